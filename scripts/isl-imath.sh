#!/usr/bin/env bash
# Build the system's isl version with small integers (configure
# --with-int=imath-32: no GMP, integers that fit 32 bits inline) as a static
# library in PREFIX, for `make ISL_PREFIX=PREFIX`: the same generated files
# with ~1.7x less CPU (docs/PERF.md "Generation time").
#
#   scripts/isl-imath.sh PREFIX
#
# The source is Debian's package of the installed libisl-dev version
# (apt-get source through a private source list: the system's apt
# configuration is not changed); needs apt-get, dpkg-source, a C compiler
# and make. Takes a few minutes.
set -euo pipefail
prefix=$(realpath -m "${1:?usage: scripts/isl-imath.sh PREFIX}")
version=$(dpkg-query -W -f '${source:Version}' libisl-dev)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/polymma-isl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $(. /etc/os-release && echo "$VERSION_CODENAME")
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt=(-o Dir::Etc::SourceList="$tmp/src.sources" -o Dir::Etc::SourceParts=/nonexistent
	-o Dir::State::Lists="$tmp/lists")
mkdir -p "$tmp/lists/partial"
apt-get "${apt[@]}" update >/dev/null
(cd "$tmp" && apt-get "${apt[@]}" source --download-only "isl=$version" >/dev/null)
tar -C "$tmp" -xf "$tmp"/isl_*.orig.tar.*
src=$(echo "$tmp"/isl-*/)
# a release tarball: no git, the version file stands in for it
[ -f "$src/gitversion.h" ] ||
	echo "#define GIT_HEAD_ID \"isl-$version\"" > "$src/gitversion.h"
(cd "$src" && ./configure --with-int=imath-32 --disable-shared \
	--enable-static --prefix="$prefix" CFLAGS="-O2 -g" >/dev/null &&
	make -j"$(nproc)" libisl.la >/dev/null &&
	make install-libLTLIBRARIES install-pkgincludeHEADERS \
		install-nodist_pkgincludeHEADERS >/dev/null)
echo "isl $version (imath-32) in $prefix: make ISL_PREFIX=$prefix"
