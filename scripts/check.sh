#!/usr/bin/env bash
# make check's runner: every test program, then the smoke test, the
# dependency checker, make install's consumers and the Python module's
# tests, JOBS at a time (default: the number of CPUs, 2 to 8), each
# program's output printed as one group when it ends, between "== NAME"
# and "== NAME: N s". A program that uses every CPU itself (test_nvcc, its
# compiles JOBS at a time) runs alone, and so does make install's test. The slowest programs start first
# (SLOW below), so that the last ones end together. The last line counts
# programs: "N passed, M failed"; the exit status is 1 when one failed (a
# test program that did not build counts as failed).
#
# Run from the repository root, after make builds what it can:
#   scripts/check.sh CLI SHLIB EXAMPLE BUILD TEST_PROGRAM...
# (SHLIB "off": the Python module's tests without libpolymma.so).
set -u
[ $# -ge 4 ] || { echo "usage: $0 CLI SHLIB EXAMPLE BUILD TEST..." >&2; exit 2; }
cli=$1 shlib=$2 example=$3 build=$4
shift 4

# Test programs that run longest, in that order (the others follow in
# their order); a name that is not a test program is ignored.
SLOW="test_nvcc test_host_render test_host_render_ua test_host_render_k
test_fused_forms test_host_render_deq test_kmajor test_host_render_red
test_cli_out test_cluster test_batch test_emit_fused test_group"
# Programs that run JOBS processes themselves: alone.
ALONE="test_nvcc"

jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
[ "$jobs" -ge 2 ] 2>/dev/null || jobs=2
[ "$jobs" -le 8 ] || jobs=8

tmp=$(mktemp -d "${TMPDIR:-/tmp}/polymma-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The jobs: name, command, alone (1/0), in the order they start.
names=() cmds=() alone=()
add() {	# NAME COMMAND ALONE
	names+=("$1") cmds+=("$2") alone+=("$3")
}
pass=0 fail=0 failed=
ordered=()
for s in $SLOW; do
	for t in "$@"; do
		[ "${t##*/}" = "$s" ] && ordered+=("$t")
	done
done
for t in "$@"; do
	case " $SLOW " in *" ${t##*/} "*) ;; *) ordered+=("$t") ;; esac
done
for t in "${ordered[@]}"; do
	if [ ! -x "$t" ]; then
		echo "== $t: did not build"
		fail=$((fail + 1)) failed="$failed $t"
		continue
	fi
	a=0
	case " $ALONE " in *" ${t##*/} "*) a=1 ;; esac
	add "$t" "POLYMMA='$cli' ./$t" $a
done
add "smoke: $example examples/gemm_nn.tc" \
	"./$example examples/gemm_nn.tc" 0
for a in --self-test .; do
	add "deps: sh tests/check_deps.sh $a" "sh tests/check_deps.sh $a" 0
done
add "python: python3 tests/test_python.py" \
	"POLYMMA='$cli' POLYMMA_LIB='$shlib' python3 tests/test_python.py" 0
# make install runs make in the build directory: alone, last
add "install: sh tests/test_install.sh $build" \
	"sh tests/test_install.sh $build" 1

# The name a failure is reported under (as the sequential loop did).
fail_name() {
	case $1 in
	smoke:*) echo "$example" ;;
	"deps: sh tests/check_deps.sh "*) echo "check_deps.sh[${1##* }]" ;;
	install:*) echo "test_install.sh" ;;
	python:*) echo "test_python.py" ;;
	*) echo "$1" ;;
	esac
}

start() {	# INDEX
	local i=$1
	(
		t0=$(date +%s)
		bash -c "${cmds[$i]}" >"$tmp/$i.log" 2>&1 </dev/null
		rc=$?
		echo $(($(date +%s) - t0)) >"$tmp/$i.s"
		echo $rc >"$tmp/$i.rc"
	) &
	pid[$i]=$!
}

finish() {	# INDEX
	local i=$1 n=${names[$1]}
	echo "== $n"
	cat "$tmp/$i.log"
	if [ "$(cat "$tmp/$i.rc")" = 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1)) failed="$failed $(fail_name "$n")"
	fi
	case $n in
	*:*) ;;
	*) echo "== $n: $(cat "$tmp/$i.s") s" ;;
	esac
}

declare -A pid=()
next=0 running=0 running_alone=0
total=${#names[@]}
while [ $next -lt $total ] || [ $running -gt 0 ]; do
	# start what fits: an ALONE job waits for every slot, and runs alone
	while [ $next -lt $total ] && [ $running_alone -eq 0 ]; do
		if [ "${alone[$next]}" = 1 ]; then
			[ $running -eq 0 ] || break
			running_alone=1
		elif [ $running -ge "$jobs" ]; then
			break
		fi
		start $next
		next=$((next + 1)) running=$((running + 1))
	done
	wait -n 2>/dev/null
	for i in "${!pid[@]}"; do
		[ -f "$tmp/$i.rc" ] || continue
		wait "${pid[$i]}" 2>/dev/null
		unset "pid[$i]"
		running=$((running - 1))
		[ "${alone[$i]}" = 1 ] && running_alone=0
		finish "$i"
	done
done
[ -z "$failed" ] || echo "failed:$failed"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
