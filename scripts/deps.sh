#!/usr/bin/env bash
# Check that the build dependencies of polymma are present: a C compiler,
# isl, GMP and cmocka headers (and the static isl/GMP libraries), python3,
# pkg-config and cmake (make check tests the Python module and the
# installed library's consumers), and xz for the isl source that make
# builds (scripts/isl-imath.sh; without it that build falls back to the
# system's isl with a warning). Quiet when everything is there. When something is missing and we run as root, install
# the Debian packages; otherwise say what to install and exit 1.
#
#   CC=clang bash scripts/deps.sh
set -u

cc=${CC:-gcc}
pkgs="libisl-dev libgmp-dev libcmocka-dev python3 pkg-config cmake xz-utils"

# Everything polymma includes or links from its dependencies, checked with
# the compiler itself so that multiarch include paths are honoured.
missing() {
	local m=""
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "compiler:$cc"
		return
	fi
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/polymma-deps.XXXXXX") || { echo "mktemp"; return; }
	local h
	for h in isl/ctx.h isl/schedule.h isl/ast_build.h gmp.h; do
		printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > "$dir/t.c"
		"$cc" -fsyntax-only "$dir/t.c" >/dev/null 2>&1 || m="$m header:$h"
	done
	printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\nint main(void) { return 0; }\n' > "$dir/t.c"
	"$cc" -fsyntax-only "$dir/t.c" >/dev/null 2>&1 || m="$m header:cmocka.h"
	# Static isl and GMP: the command line must run on machines without isl.
	printf '#include <isl/ctx.h>\nint main(void) { isl_ctx_free(isl_ctx_alloc()); return 0; }\n' > "$dir/t.c"
	if ! "$cc" "$dir/t.c" -o "$dir/t" -Wl,-Bstatic -lisl -lgmp -Wl,-Bdynamic -lm >/dev/null 2>&1; then
		m="$m library:libisl.a/libgmp.a"
	fi
	rm -rf "$dir"
	# make check runs the Python module's tests (tests/test_python.py)
	# and builds against an installed copy (tests/test_install.sh): test
	# tools, installed with the rest as root, else only reported
	local c
	for c in python3 pkg-config cmake; do
		command -v "$c" >/dev/null 2>&1 || m="$m tool:$c"
	done
	# the isl source package (docs/decisions/0052-small-integer-isl.md)
	command -v xz >/dev/null 2>&1 || m="$m isl:xz"
	echo "$m"
}

m=$(missing)
[ -z "$m" ] && exit 0
# only test tools (or xz) missing and no way to install them: the build
# goes on (without xz, on the system's isl: scripts/isl-imath.sh warns)
if [ -z "$(printf '%s' "$m" | tr ' ' '\n' | grep -Ev '^(tool|isl):' | grep .)" ] &&
   ! { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }; then
	t=$(printf '%s' "$m" | tr ' ' '\n' | grep '^tool:' | tr '\n' ' ')
	[ -z "$t" ] || echo "polymma: make check needs: $t(apt-get install python3 pkg-config cmake)" >&2
	exit 0
fi

echo "polymma: missing build dependencies:$m" >&2
case "$m" in
compiler:*)
	echo "polymma: no C compiler '$cc' (set CC, or install gcc)" >&2
	case "$cc" in
	gcc | cc) pkgs="$pkgs gcc" ;;
	*) exit 1 ;;	# a compiler the user named: nothing to install
	esac
	;;
esac

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "polymma: installing $pkgs" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get update && apt-get install -y $pkgs; then
		m=$(missing)
		[ -z "$m" ] && exit 0
		echo "polymma: still missing after installing:$m" >&2
	else
		echo "polymma: apt-get failed" >&2
	fi
	exit 1
fi

echo "polymma: install them with:  sudo apt-get install -y $pkgs" >&2
exit 1
