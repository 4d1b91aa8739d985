#!/usr/bin/env bash
# run.sh: benchmark polymma's kernels against cuBLAS and cuBLASLt on the four
# idioms of bench/specs/ (GEMM, ReLU+GEMM, GEMM+bias+ReLU, Add(GEMM, GEMM)).
#
#   bash bench/run.sh [--dtype f16|bf16|i8|f8] [--quick]
#                     [--set paper|square|llm|odd|decode|all|batched|grouped]
#                     [--n N] [--seed S]
#                     [--size MxNxK]... [--reps R] [--fast-accum]
#                     [--build-only | --run-only]
#
#   --dtype DT    the element type (default f16): f16 or bf16 (the four
#                 idioms, against cublasGemmEx and cuBLASLt in that type);
#                 i8 (int8 x int8 -> int32) or f8 (e4m3 x e4m3 -> bf16):
#                 GEMM only, B stored N x K, against cuBLASLt (TN)
#   --quick       the quick subset: 10 paper sizes, square 1024/2048/4096 and
#                 two LLM shapes (default: every size of every set)
#   --set NAME    one size set (default all); --n N: the paper set's length
#                 (100); --seed S: its seed; --size MxNxK: these sizes only;
#                 batched and grouped run their own harnesses (bench/sets.sh)
#   --reps R      at least R timed rounds (default 30; at least 20)
#   --fast-accum  f8: cuBLASLt's fp8 fast accumulation on (default off)
#   --build-only  generate and compile only (works without a GPU)
#   --run-only    run what an earlier --build-only left (same --dtype)
#
# Generates one runtime-size kernel per idiom with build/polymma (an idiom
# the generator refuses becomes 'unsupported' rows, not a skip), compiles
# them with bench/bench.cu, runs it, and writes to $OUT (default
# build/bench/out): bench.csv, bench.log, summary.md (and the SVG plots if
# gnuplot is installed; otherwise run bench/report.sh on the CSV later);
# for a dtype other than f16 the names end in _DT (bench_bf16.csv,
# bench_bf16.log, summary_bf16.md, speedup_bf16_<idiom>.svg) and the build
# is in build/bench/DT. Specs: f16 bench/specs/<idiom>.tc; bf16 the same
# with every f16 made bf16 (written to build/bench/bf16/specs); i8 and f8
# bench/specs/DT/<idiom>.tc (gemm only: other idioms are 'unsupported').
# Prints the summary table last. Exit status: 0 if no row failed.
# Environment: POLYMMA (build/polymma), NVCC, ARCH (sm_90; kernels of
# --target sm_90a are built for sm_90a), GEN_ARGS (--target sm_80: the
# options of 'polymma gen' for every idiom), CC (cc),
# POLYMMA_DESC (how polymma was built, for the CSV; default: the git commit).
set -u -o pipefail
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.." || exit 1

# The element type: before anything else, since the build directory and
# the output names depend on it.
DT=f16
for ((i = 1; i <= $#; i++)); do
	if [ "${!i}" = --dtype ]; then j=$((i + 1)); DT=${!j:-}; fi
done
case $DT in
f16 | bf16 | i8 | f8) ;;
*) echo "run.sh: --dtype must be f16, bf16, i8 or f8 (not '$DT')" >&2; exit 2 ;;
esac
if [ "$DT" = f16 ]; then W=build/bench SFX=; else W=build/bench/$DT SFX=_$DT; fi
DTDEF=BENCH_DT_$(echo "$DT" | tr '[:lower:]' '[:upper:]')
POLYMMA=${POLYMMA:-build/polymma}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
GEN_ARGS=${GEN_ARGS:---target sm_80}
HOSTCC=${CC:-cc}
command -v "$HOSTCC" >/dev/null 2>&1 || HOSTCC=gcc
IDIOMS="gemm relu_gemm gemm_bias_relu add_gemm"

# The spec of idiom $1 for $DT (prints its path; none: no spec for $DT).
spec_for() {
	case $DT in
	f16) echo "bench/specs/$1.tc" ;;
	bf16)	# the f16 spec with every element type f16 made bf16
		mkdir -p "$W/specs" &&
		sed 's/\bf16(/bf16(/g' "bench/specs/$1.tc" >"$W/specs/$1.tc" &&
		echo "$W/specs/$1.tc" ;;
	*) [ -e "bench/specs/$DT/$1.tc" ] && echo "bench/specs/$DT/$1.tc" ;;
	esac
}

# One idiom: generate, check the launcher's size order, compile to an object.
# Writes $W/k_<idiom>.status: "status<TAB>config<TAB>note" (the manifest line).
build_kernel() {
	local id=$1 cu=$W/k_$1.cu meta=$W/k_$1.json obj=$W/k_$1.o log=$W/k_$1.log rc
	local g0 g1 spec
	rm -f "$cu" "$meta" "$obj" "$W/k_$id.status" "$W/k_$id.gen_ms"
	if ! spec=$(spec_for "$id"); then
		printf 'unsupported\t\tbench --dtype %s has no %s spec (bench/specs/%s/)\n' \
			"$DT" "$id" "$DT" >"$W/k_$id.status"
		echo 0 >"$W/k_$id.gen_ms"
		return
	fi
	g0=$(date +%s%N)
	# shellcheck disable=SC2086
	"$POLYMMA" gen "$spec" -o "$cu" --meta "$meta" $GEN_ARGS >"$log" 2>&1
	rc=$?
	g1=$(date +%s%N)
	echo $(( (g1 - g0) / 1000000 )) >"$W/k_$id.gen_ms"
	if [ $rc = 1 ]; then
		local msg
		msg=$(grep -m1 'error:' "$log" | sed 's/^.*error: *//; s/\t/ /g')
		printf 'unsupported\t\tpolymma gen: %s\n' "${msg:-exit 1}" >"$W/k_$id.status"
		return
	elif [ $rc != 0 ]; then
		printf 'error\t\tpolymma gen exited %s: %s\n' "$rc" \
			"$(tail -n 1 "$log" | tr '\t' ' ')" >"$W/k_$id.status"
		return
	fi
	# The launcher takes the sizes in the order of the JSON "sizes" array:
	# bench.cu passes M, N, K.
	local sizes cfg
	sizes=$(tr -d ' \n' <"$meta" | sed -n 's/.*"sizes":\[\([^]]*\)\].*/\1/p')
	if [ "$sizes" != '"M","N","K"' ]; then
		printf 'error\t\tlauncher sizes are [%s], bench.cu passes M, N, K\n' "$sizes" \
			>"$W/k_$id.status"
		return
	fi
	cfg=$(tr -d '\n' <"$meta" | sed 's/  */ /g' | awk '{
		t = $0
		n = split("target block warp mma threads stages split_k smem persistent", k, " ")
		out = ""
		for (i = 1; i <= n; i++) {
			re = "\"" k[i] "\": *(\\[[^]]*\\]|\"[^\"]*\"|[0-9]+)"
			if (match(t, re)) {
				v = substr(t, RSTART, RLENGTH); sub(/^"[^"]*": */, "", v)
				gsub(/[][" ]/, "", v); gsub(/,/, "x", v)
				out = out (out == "" ? "" : " ") (k[i] == "target" ? v : k[i] "=" v)
			}
		}
		print out }')
	# sm_90a kernels (wgmma) need the architecture-specific target
	local karch=(-arch="$ARCH")
	case " $GEN_ARGS " in
	*sm_90a*) karch=(-gencode=arch=compute_90a,code=sm_90a) ;;
	esac
	if ! "$NVCC" -O3 "${karch[@]}" -std=c++17 --resource-usage -c "$cu" -o "$obj" >>"$log" 2>&1; then
		printf 'error\t%s\tnvcc failed on the generated kernel (see %s)\n' "$cfg" "$log" \
			>"$W/k_$id.status"
		return
	fi
	printf 'ok\t%s\t\n' "$cfg" >"$W/k_$id.status"
}

if [ "${1:-}" = --build-kernel ]; then build_kernel "$2"; exit; fi

# The batched and grouped sets: their own harnesses (bench/sets.sh).
for ((i = 1; i < $#; i++)); do
	j=$((i + 1))
	if [ "${!i}" = --set ] && { [ "${!j}" = batched ] || [ "${!j}" = grouped ]; }; then
		exec bash bench/sets.sh "${!j}"
	fi
done

do_build=1 do_run=1 bench_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick | --fast-accum) bench_args+=("$1") ;;
	--set | --n | --seed | --size | --reps)
		[ $# -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; exit 2; }
		bench_args+=("$1" "$2"); shift ;;
	--dtype) shift ;;	# read above
	--build-only) do_run=0 ;;
	--run-only) do_build=0 ;;
	*) sed -n '2,23p' "$SELF" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done

OUTDIR=${OUT:-build/bench/out}
mkdir -p "$W" "$OUTDIR"
CSV=$OUTDIR/bench$SFX.csv LOG=$OUTDIR/bench$SFX.log SUMMARY=$OUTDIR/summary$SFX.md

if [ $do_build = 1 ]; then
	if [ ! -x "$POLYMMA" ]; then
		echo "run.sh: $POLYMMA is missing: run make first (on the CPU machine)" >&2
		exit 1
	fi
	if ! "$NVCC" --version >/dev/null 2>&1; then
		echo "run.sh: nvcc not found ($NVCC)" >&2
		exit 1
	fi
	t0=$(date +%s%N)
	for id in $IDIOMS; do bash "$SELF" --build-kernel "$id" --dtype "$DT" & done
	wait
	t1=$(date +%s%N)
	: >"$W/kernels.tsv"
	objs=()
	for id in $IDIOMS; do
		line=$(cat "$W/k_$id.status" 2>/dev/null || printf 'error\t\tbuild_kernel did not finish')
		printf '%s\t%s\n' "$id" "$line" >>"$W/kernels.tsv"
		printf '  %-15s %s\n' "$id" "$(printf '%s' "$line" | tr '\t' ' ')"
		[ "${line%%	*}" = ok ] && objs+=("$W/k_$id.o")
	done
	gen_ms=$(cat "$W"/k_*.gen_ms 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
	awk -v n=${#objs[@]} -v t=$(( (t1 - t0) / 1000000 )) -v g="$gen_ms" -v d="$DT" 'BEGIN {
		printf "polymma gen (%s): 4 idioms in %d ms (sum; in parallel); compiled %d kernels; %.1f s in all\n", d, g, n, t / 1000 }'
	cudadir=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
	"$HOSTCC" -std=c11 -O2 -Wall -Wextra -c bench/stats.c -o "$W/stats.o" &&
	"$HOSTCC" -std=c11 -O2 -Wall -Wextra -c bench/numbers.c -o "$W/numbers.o" &&
	"$HOSTCC" -std=c11 -O2 -Wall -Wextra -Ibench bench/report.c "$W/stats.o" \
		"$W/numbers.o" -lm \
		-o "$W/report" &&
	"$NVCC" -O3 -arch="$ARCH" -std=c++17 -Ibench -DBENCH_DTYPE="$DTDEF" \
		-c bench/bench.cu -o "$W/bench.o" &&
	"$NVCC" -arch="$ARCH" "$W/bench.o" "$W/stats.o" "$W/numbers.o" "${objs[@]}" -lcublas -lcublasLt \
		-Xlinker -rpath -Xlinker "$cudadir/lib64" -Xlinker -rpath -Xlinker "$cudadir/lib" \
		-o "$W/bench" || { echo "run.sh: building the bench failed" >&2; exit 1; }
	echo "built $W/bench (--dtype $DT)"
fi
[ $do_run = 1 ] || exit 0

for f in "$W/bench" "$W/report" "$W/kernels.tsv"; do
	[ -e "$f" ] || { echo "run.sh: $f is missing: build first" >&2; exit 1; }
done
gen_info="$("$POLYMMA" --version 2>/dev/null | head -n 1) ($POLYMMA)"
gen_info+=" ${POLYMMA_DESC:-commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)};"
gen_info+=" polymma gen options: $GEN_ARGS"
{ nvidia-smi -L 2>/dev/null; "$NVCC" --version 2>/dev/null | tail -n 1; } >"$LOG"
t0=$SECONDS
"$W/bench" --dtype "$DT" --kernels "$W/kernels.tsv" --csv "$CSV" \
	--comment "$gen_info" "${bench_args[@]}" 2>&1 | tee -a "$LOG"
rc=$?
echo "bench ran in $((SECONDS - t0)) s (exit $rc)" | tee -a "$LOG"

"$W/report" "$CSV" "$SUMMARY" || rc=1
if command -v gnuplot >/dev/null 2>&1; then
	NO_INSTALL=1 bash bench/report.sh "$CSV" "$OUTDIR" >/dev/null || true
fi
echo
awk '/^## All sizes/ { on = 1 } /^## / && !/^## All sizes/ { on = 0 } on' "$SUMMARY"
echo "CSV: $CSV; summary: $SUMMARY"
exit $rc
