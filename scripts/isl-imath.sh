#!/usr/bin/env bash
# isl with small integers (docs/decisions/0052-small-integer-isl.md): the
# installed libisl-dev version, configured --with-int=imath-32 (no GMP,
# integers that fit 32 bits inline) and position-independent, as a static
# library: the same generated files with ~1.7x less CPU (docs/PERF.md
# "Generation time"). LLVM's Polly builds its isl the same way.
#
#   scripts/isl-imath.sh PREFIX       build it into PREFIX (make ISL_PREFIX=PREFIX;
#                                     the build's output on stdout)
#   scripts/isl-imath.sh --cache DIR MK
#                                     what `make` runs: build it once into
#                                     DIR/VERSION-imath32 (kept there), then
#                                     write MK, a makefile fragment naming it;
#                                     when it cannot be built (no network, no
#                                     source package), one warning line, and
#                                     MK names no isl (the system's is used)
#
# The source is Debian's package of the installed libisl-dev version
# (apt-get source --download-only through a private source list, from the
# archives apt is configured with and deb.debian.org: the system's apt
# configuration and state are not changed; the upstream tarball is built). Needs apt-get, tar with xz, a C compiler ($CC, else cc) and make.
# Takes ~2 minutes on 2 cores.
set -euo pipefail

isl_version() {
	dpkg-query -W -f '${source:Version}' libisl-dev
}

# The archives apt is configured with (but the security one: no source of
# isl there), then deb.debian.org.
archives() {
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
			sed -n 's/^URIs://p'
		grep -hs '^deb ' /etc/apt/sources.list |
			awk '{ for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }'
		echo http://deb.debian.org/debian
	} | tr ' \t' '\n\n' | grep -v -e '-security' -e '^$' | awk '!seen[$0]++' |
		tr '\n' ' '
}

# build PREFIX: download, configure, compile and install into PREFIX
build() {
	local prefix=$1 version tmp src codename
	version=$(isl_version)
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/polymma-isl.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	cat > "$tmp/src.sources" <<EOF
Types: deb-src
URIs: $(archives)
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	local apt=(-o Dir::Etc::SourceList="$tmp/src.sources"
		-o Dir::Etc::SourceParts=/nonexistent
		-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache"
		-o Acquire::Retries=2)
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
	# an archive that does not answer: the others may
	apt-get "${apt[@]}" update || true
	(cd "$tmp" && apt-get "${apt[@]}" source --download-only "isl=$version")
	tar -C "$tmp" -xf "$tmp"/isl_*.orig.tar.*
	src=$(echo "$tmp"/isl-*/)
	# a release tarball: no git, the version file stands in for it
	[ -f "$src/gitversion.h" ] ||
		echo "#define GIT_HEAD_ID \"isl-$version\"" > "$src/gitversion.h"
	# -fno-semantic-interposition: position-independent (libpolymma.so
	# links it too) without giving up inlining isl's own functions
	(cd "$src" && ./configure --with-int=imath-32 --disable-shared \
		--enable-static --with-pic --prefix="$prefix" \
		CC="${CC:-cc}" CFLAGS="-O2 -fno-semantic-interposition" &&
		make -j"$(nproc)" libisl.la &&
		make install-libLTLIBRARIES install-pkgincludeHEADERS \
			install-nodist_pkgincludeHEADERS)
	rm -f "$prefix"/lib/libisl.la
	# the Makefile links an ISL_PREFIX with this mark into libpolymma.so
	echo "built by polymma's scripts/isl-imath.sh: position-independent" \
		> "$prefix"/lib/polymma-pic
}

# --cache DIR MK
cached() {
	local cache=$1 mk=$2 version dir log tmp
	if ! version=$(isl_version 2>/dev/null); then
		echo "polymma: warning: no libisl-dev version; using the system isl (generation ~1.7x slower)" >&2
		echo "ISL_BUILT :=" > "$mk"
		return
	fi
	dir=$cache/${version//:/_}-imath32
	log=$dir.log
	if [ ! -f "$dir/lib/libisl.a" ]; then
		mkdir -p "$cache"
		echo "polymma: building isl $version (imath-32) into $dir, once (~2 min; log $log)" >&2
		tmp=$(mktemp -d "$dir.tmp.XXXXXX")
		# a process of its own, so that errexit holds
		if ! bash "$0" "$tmp" > "$log" 2>&1; then
			rm -rf "$tmp"
			echo "polymma: warning: could not build isl $version (imath-32) from Debian's source (log $log); using the system isl (generation ~1.7x slower)" >&2
			echo "ISL_BUILT :=" > "$mk"
			return
		fi
		# another build may have finished first: keep either
		mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
	fi
	echo "ISL_BUILT := $dir" > "$mk"
}

if [ "${1:-}" = --cache ]; then
	cached "${2:?usage: $0 --cache DIR MK}" "${3:?usage: $0 --cache DIR MK}"
	exit 0
fi
prefix=$(realpath -m "${1:?usage: scripts/isl-imath.sh PREFIX | --cache DIR MK}")
build "$prefix"
echo "isl $(isl_version) (imath-32) in $prefix: make ISL_PREFIX=$prefix"
