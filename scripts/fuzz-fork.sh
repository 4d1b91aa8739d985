#!/usr/bin/env bash
# fuzz-fork.sh: run the fuzz target on every core of a machine, in libFuzzer's
# fork mode, and say how many inputs ran and what was found.
#
#   bash scripts/fuzz-fork.sh [SECONDS] [DIR]
#
# DIR (build-fuzz) holds what `make fuzz-build` made: fuzz_generate and
# corpus/. The binary links isl statically, so DIR can be copied to a machine
# without isl (e.g. the GPU machine, 16 cores). Two fuzzers run side by side
# for SECONDS (default 520): one on the check mode alone (PM_FUZZ_MODES=0,
# thousands of inputs a second a core) on all cores but three, one on every
# mode (generation included) on three. Crashes, leaks, timeouts and
# out-of-memory inputs do not stop a run; they are kept under
# $OUT/fuzz/art-{check,all}/ (OUT defaults to DIR) with the logs; inputs
# slower than 120 s are kept there as slow-unit-* (reported, not findings).
# Exit status: 0 when nothing was found.
set -u
T=${1:-520}
D=$(readlink -f "${2:-build-fuzz}")
O=${OUT:-$D}/fuzz
[ -x "$D/fuzz_generate" ] && [ -d "$D/corpus" ] ||
	{ echo "fuzz-fork.sh: $D has no fuzz_generate/corpus: run make fuzz-build" >&2; exit 2; }
cores=$(nproc)
na=$(( cores > 4 ? cores - 4 : 1 ))
mkdir -p "$O/art-check" "$O/art-all" "$O/c-check" "$O/c-all"
cp "$D"/corpus/* "$O/c-check/"
cp "$D"/corpus/* "$O/c-all/"
run() {	# NAME JOBS [ENV]
	env $3 "$D/fuzz_generate" -fork="$2" -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_len=65536 -timeout=120 -rss_limit_mb=4096 -report_slow_units=120 \
		-artifact_prefix="$O/art-$1/" -max_total_time="$T" "$O/c-$1" \
		>"$O/$1.log" 2>&1
}
run check "$na" PM_FUZZ_MODES=0 &
run all 3 PM_FUZZ_MODES=0123 &
wait
total=0 found=0
for m in check all; do
	last=$(grep -E '^#[0-9]+' "$O/$m.log" | tail -n 1)
	n=$(printf '%s' "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
	arts=$(find "$O/art-$m" -type f \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	printf '%-5s %s\n' "$m" "$last"
	total=$(( total + ${n:-0} ))
	found=$(( found + arts ))
done
echo "fuzz-fork: $total executions in ${T} s on $cores cores; $found findings ($O/art-*)"
[ "$found" = 0 ]
