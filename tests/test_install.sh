#!/bin/sh
# make install into a scratch DESTDIR, then build examples/embed.c against
# it twice, as users do: with pkg-config, and with CMake's
# find_package(polymma) (target polymma::polymma; polymma::gen runs the
# command from a custom command). Each built program must generate a kernel
# for examples/gemm_nn.tc; the same with polymma-shared.pc against
# libpolymma.so (which must export polymma_* only). A consumer whose tool
# is missing is skipped.
# Run from the repository root: sh tests/test_install.sh [BUILD]
set -u
build=${1:-build}
d=$(mktemp -d "${TMPDIR:-/tmp}/polymma-install.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
prefix=/opt/pm
fail=0

make --no-print-directory -s BUILD="$build" install DESTDIR="$d/root" \
	PREFIX="$prefix" >"$d/install.log" 2>&1 || {
	cat "$d/install.log"; echo "FAIL: make install"; exit 1; }
root=$d/root$prefix
for f in bin/polymma lib/libpolymma.a lib/libpolymma.so.0 lib/libpolymma.so \
	include/polymma.h lib/pkgconfig/polymma.pc lib/pkgconfig/polymma-shared.pc lib/cmake/polymma/polymmaConfig.cmake \
	lib/cmake/polymma/polymmaConfigVersion.cmake; do
	[ -f "$root/$f" ] || { echo "FAIL: $f not installed"; fail=1; }
done

run() {	# NAME PROGRAM
	if "$2" examples/gemm_nn.tc >"$d/$1.out" 2>&1 &&
	   grep -q 'cudaError_t gemm_nn(' "$d/$1.out"; then
		echo "ok: $1"
	else
		cat "$d/$1.out"; echo "FAIL: $1"; fail=1
	fi
}

if command -v pkg-config >/dev/null 2>&1; then
	# the .pc holds the final prefix; point pkg-config at the staged one
	flags=$(PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d/root \
		pkg-config --cflags --libs polymma) &&
	${CC:-cc} examples/embed.c $flags -o "$d/embed-pc" &&
	run pkg-config "$d/embed-pc" || { echo "FAIL: pkg-config build"; fail=1; }
	# the static library: no libpolymma.so needed at run time
	if ldd "$d/embed-pc" 2>/dev/null | grep -q libpolymma; then
		echo "FAIL: polymma.pc links libpolymma.so"; fail=1
	fi
	flags=$(PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d/root \
		pkg-config --cflags --libs polymma-shared) &&
	${CC:-cc} examples/embed.c $flags -Wl,-rpath,"$root/lib" \
		-o "$d/embed-so" &&
	run pkg-config-shared "$d/embed-so" &&
	ldd "$d/embed-so" | grep -q "$root/lib/libpolymma.so.0" ||
		{ echo "FAIL: polymma-shared.pc build"; fail=1; }
	bad=$(nm -D --defined-only "$root/lib/libpolymma.so" |
		awk '$3 !~ /^polymma_/ { print $3 }')
	[ -z "$bad" ] || { echo "FAIL: libpolymma.so exports $bad"; fail=1; }
else
	echo "skip: pkg-config (not installed)"
fi

if command -v cmake >/dev/null 2>&1; then
	mkdir -p "$d/proj"
	cp examples/embed.c "$d/proj/"
	cat >"$d/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(use_polymma C)
find_package(polymma 0.1 REQUIRED)
add_executable(embed embed.c)
target_link_libraries(embed PRIVATE polymma::polymma)
add_executable(embed_so embed.c)
target_link_libraries(embed_so PRIVATE polymma::shared)
add_custom_command(OUTPUT gemm.h
	COMMAND polymma::gen check ${SPEC}
	COMMAND polymma::gen gen ${SPEC} -o gemm.cu --header gemm.h
	DEPENDS ${SPEC})
add_custom_target(kernel ALL DEPENDS gemm.h)
CM
	if cmake -S "$d/proj" -B "$d/cb" -DCMAKE_PREFIX_PATH="$root" \
		-DSPEC="$PWD/examples/gemm_nn.tc" >"$d/cmake.log" 2>&1 &&
	   cmake --build "$d/cb" >>"$d/cmake.log" 2>&1 &&
	   grep -q 'gemm_nn_argv' "$d/cb/gemm.h"; then
		run cmake "$d/cb/embed"
		run cmake-shared "$d/cb/embed_so"
	else
		cat "$d/cmake.log"; echo "FAIL: cmake build"; fail=1
	fi
	# a newer major version must not be found
	sed 's/0\.1 REQUIRED/9 REQUIRED/' "$d/proj/CMakeLists.txt" >"$d/p2"
	mv "$d/p2" "$d/proj/CMakeLists.txt"
	if cmake -S "$d/proj" -B "$d/cb2" -DCMAKE_PREFIX_PATH="$root" \
		-DSPEC=x >/dev/null 2>&1; then
		echo "FAIL: find_package(polymma 9) succeeded"; fail=1
	else
		echo "ok: find_package(polymma 9) refused"
	fi
else
	echo "skip: cmake (not installed)"
fi
exit $fail
