#!/usr/bin/env bash
# gpu-check.sh: generate polymma gemm kernels (4 layouts x 3 configs, plus one
# fixed-size nn kernel per config), build tests/gpu/check_gemm.cu against each
# and run them: PASS/FAIL per case, "N passed, M failed" last, exit 1 on failure.
#
#   bash scripts/gpu-check.sh [--time] [--build-only | --run-only]
#                             [--force | --force-only]
#
#   --time        also time nn of each config at 2048^3 and 4096^3 against cuBLAS
#   --build-only  generate and compile only (works without a GPU)
#   --run-only    run what an earlier --build-only left in build/gpu
#   --force       (or FORCE=1) after the usual runs, the forced-variant sweep:
#                 for every binary of a file with a variant table (not the
#                 fixed-size ones unless FORCE_FIXED=1), one run per row of
#                 its pm_variants_* table with POLYMMA_VARIANT=<suffix>
#                 (_base for the unsuffixed kernel; split rows also with
#                 ,s=2 and ,s=3), at the configuration's sizes and
#                 FORCE_SIZES; sizes a forced variant cannot run are SKIP
#                 lines (check_gemm.cu), a forced variant that runs no size
#                 at all is a FAIL ("never legal"); one summary line per
#                 file (variants run / never legal), logs in build/gpu/sweep
#   --force-only  the sweep without the usual runs
# Run from anywhere; works in the repository root. Needs build/polymma and nvcc.
# Environment: POLYMMA (build/polymma), NVCC (nvcc on PATH, else
# /usr/local/cuda/bin/nvcc), ARCH (sm_90; sm_90a configurations always build
# for sm_90a), JOBS (16), OUT (folder for the full log gpu-check.log; default
# build/gpu), ONLY (a regex: only the configurations it matches: sm80, sm90a,
# sm70_16x16x8, sm70_32x32x8, sm80_split3, sm90a_split5, sm90a_cpasync (the
# cp.async pipeline, --tma off), sm90a_persist (--persistent on): k always in 3 / 5
# chunks where it has that many k tiles), sm90a_cluster (--persistent on
# --cluster 2: pairs of blocks sharing B by multicast; an odd number of
# tile rows at 384x128x192, 640x384x1472, 1024x1536x512 ...), sm90a_nocl
# (--cluster 1: split-K reduced through the workspace only), sm90a_p192
# (--persistent on, 192x192 blocks: three consumer warps of 64x192),
# sm90a_n96 / sm90a_n96np / sm90a_n80 (128x96 and 128x80 blocks, wgmma n =
# 96 / 80: B in 32- / 16-column swizzled blocks), sm90a_pinfl (--persistent
# on --mma-inflight on: one k tile of wgmma in flight, 64x192 blocks);
# SIZES_SM90A
# (the sizes of the sm_90a configurations), FORCE_SIZES (the sweep's sizes
# beyond those: ragged M and N, K a multiple of 64 or not: 776, 1000, a
# partial last k tile, docs/decisions/0030-ragged-k.md), RUN_JOBS (4: sweep
# checkers at a time on the one GPU).
set -u -o pipefail
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.."
# shellcheck source=scripts/sweep-collect.sh
. scripts/sweep-collect.sh

W=build/gpu
POLYMMA=${POLYMMA:-build/polymma}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-16}
SIZES="128x256x64 256x128x32 384x128x160 512x768x256 128x128x4096 1024x512x2048 2048x1536x1024 2304x2304x1024 2816x1536x512 4096x4096x4096"
# 2304x2304x1024: 324 tiles of 128x128, more than a wave of 264 blocks;
# 2816x1536x512: 264 tiles, exactly one.
# sm_90a's default block tile is 128x128x64: K a multiple of 64;
# 1024x1024x448: 64 tiles, 7 k tiles (too few to split), the small
# variant's TMA twin (256 blocks)
# 896x768x4096 (42 tiles, 3 chunks of 22, 22, 20 k tiles), 1024x768x2048
# (48 tiles, 2 chunks): under 3/5 tile per SM, the split persistent variant;
# 128x128x4096, 1024x512x2048, 640x384x1472: too few units to fill half the
# SMs, the small variant
# 1024x1536x512: 96 tiles (3/5 to 1 per SM), the persistent variant
# 2304x1408x896: 198 tiles, the medium variant (64x128 blocks)
# 2304x2304x1024: the split persistent one (324 tiles, a tail of 60 in
# chunks of 2); 3200x1408x1408 (275 tiles: the tail's 11 in 5 chunks,
# the strips gathered by every warp); 4096^3: the wide persistent one; 2560x2944x512: the tall one
# (M a multiple of 256, N not; 230 tiles of 256x128, 87 % of two waves)
# Split in clusters (an H100 holds 66, 39, 30, 22, 17, 15, 15 clusters of
# 2 .. 8 such blocks): 1024x768x2048 in 2 chunks, 512x640x4096 (20 tiles) 4,
# 256x1408x5120 (22) 5, 512x512x6144 (16) 6, 384x512x7168 (12) 7,
# 384x384x8192 (9) 8; 896x768x4096's 42 tiles in 3 chunks are more clusters
# than fit: the workspace's
SIZES_SM90A=${SIZES_SM90A:-"128x256x64 256x128x128 384x128x192 512x768x256 128x128x4096 1024x512x2048 896x768x4096 1024x768x2048 512x640x4096 256x1408x5120 512x512x6144 384x512x7168 384x384x8192 640x384x1472 1024x1024x448 1024x1536x512 2048x1536x1024 2304x1408x896 2304x2304x1024 2560x2944x512 2816x1536x512 3200x1408x1408 4096x4096x4096 2304x1920x1024 1000x3000x512"}
# the forced-variant sweep's ragged sizes, beside the configuration's
FORCE_SIZES=${FORCE_SIZES:-"1000x3000x512 200x328x576 4104x264x1024 200x328x776 1000x3000x1000"}
RUN_JOBS=${RUN_JOBS:-4}
FIXED_M=1024 FIXED_N=2048 FIXED_K=512
TIME_SIZES="2048x2048x2048 4096x4096x4096"
CONFIGS=("sm80|--target sm_80"
	 "sm90a|--target sm_90a"
	 "sm70_16x16x8|--target sm_70 --mma 16x16x8"
	 "sm70_32x32x8|--target sm_70 --mma 32x32x8"
	 "sm80_split3|--target sm_80 --split-k 3"
	 "sm90a_split5|--target sm_90a --split-k 5"
	 "sm90a_cpasync|--target sm_90a --tma off"
	 "sm90a_persist|--target sm_90a --persistent on"
	 "sm90a_cluster|--target sm_90a --persistent on --cluster 2"
	 "sm90a_nocl|--target sm_90a --cluster 1"
	 "sm90a_p192|--target sm_90a --persistent on --block 192x192x64 --warp 64x192 --stages 3"
	 "sm90a_n96|--target sm_90a --persistent on --split-k 1 --block 128x96x64 --warp 64x96 --mma 64x96x64"
	 "sm90a_n96np|--target sm_90a --persistent off --split-k 1 --block 128x96x64 --warp 64x96 --mma 64x96x64"
	 "sm90a_n80|--target sm_90a --persistent on --split-k 1 --block 128x80x64 --warp 64x80 --mma 64x80x64"
	 "sm90a_pinfl|--target sm_90a --persistent on --split-k 1 --mma-inflight on --block 64x192x64 --warp 64x192 --stages 6")
# ONLY=REGEX keeps the configurations whose name matches
if [ -n "${ONLY:-}" ]; then
	kept=()
	for c in "${CONFIGS[@]}"; do
		[[ ${c%%|*} =~ $ONLY ]] && kept+=("$c")
	done
	CONFIGS=("${kept[@]}")
fi

# One line per binary: NAME LAYOUT FIXED(0|1) GEN-ARGS...
job_list() {
	local c l
	for l in nn nt tn tt; do
		for c in "${CONFIGS[@]}"; do echo "${l}_${c%%|*} $l 0 ${c#*|}"; done
	done
	# no fixed-size twin for 192x192, 128x96, 128x80 or 64x192 blocks:
	# they do not divide the fixed 1024x2048 (polymma refuses such a size
	# fixed at generation)
	for c in "${CONFIGS[@]}"; do
		[[ ${c%%|*} =~ p192|n96|n80|pinfl ]] && continue
		echo "nn_${c%%|*}_fixed nn 1 ${c#*|}"
	done
}

# Generate and compile one binary; all output to build/gpu/NAME.build.log.
build_one() {
	local name=$1 layout=$2 fixed=$3; shift 3
	local cu=$W/$name.cu bin=$W/$name akm=0 bnk=0 fdefs=()
	local cudadir; cudadir=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
	exec >"$W/$name.build.log" 2>&1
	rm -f "$cu" "$bin" "$W/$name.ok"
	[ "${layout:0:1}" = t ] && akm=1
	[ "${layout:1:1}" = t ] && bnk=1
	if [ "$fixed" = 1 ]; then
		set -- "$@" -D M=$FIXED_M -D N=$FIXED_N -D K=$FIXED_K
		fdefs=(-DFIXED_M=$FIXED_M -DFIXED_N=$FIXED_N -DFIXED_K=$FIXED_K)
	fi
	echo "== $name: $POLYMMA gen examples/gemm_$layout.tc -o $cu $*"
	"$POLYMMA" gen "examples/gemm_$layout.tc" -o "$cu" "$@" ||
		{ echo "== $name: GENERATION FAILED rc=$?"; exit 1; }
	local arch=(-arch="$ARCH") ws=()
	# sm_90a kernels (wgmma) need the architecture-specific target
	[[ $name == *sm90a* ]] && arch=(-gencode=arch=compute_90a,code=sm_90a)
	# a kernel that can split k: also check its workspace entry
	grep -q "_workspace_size(" "$cu" && ws=(-DCG_WS)
	local cmd=("$NVCC" -O2 "${arch[@]}" -std=c++17 --resource-usage
		-DKERNEL_FILE="\"$PWD/$cu\"" -DKFN=gemm_$layout -DA_KM=$akm -DB_NK=$bnk
		"${fdefs[@]}" "${ws[@]}" tests/gpu/check_gemm.cu -lcublas
		-Xlinker -rpath -Xlinker "$cudadir/lib64" -Xlinker -rpath -Xlinker "$cudadir/lib"
		-o "$bin")
	echo "== $name: ${cmd[*]}"
	"${cmd[@]}" || { echo "== $name: COMPILATION FAILED rc=$?"; exit 1; }
	touch "$W/$name.ok"
}

# One line per sweep run: NAME VARIANT (built binaries of files with a table).
sweep_list() {
	local name fixed v
	while read -r name _ fixed _; do
		[ "$fixed" = 1 ] && [ "${FORCE_FIXED:-0}" != 1 ] && continue
		[ -e "$W/$name.ok" ] && [ -x "$W/$name" ] || continue
		for v in $(file_variants "$W/$name.cu"); do echo "$name $v"; done
	done < <(job_list)
}

# One forced run: build/gpu/sweep/NAME@VARIANT.log, last line "rc=N".
sweep_one() {
	local name=$1 v=$2 fixed=0 sizes log
	log=$W/sweep/$name@$v.log
	[[ $name == *_fixed ]] && fixed=1
	if [ $fixed = 1 ]; then sizes=
	elif [[ $name == *sm90a* ]]; then sizes="$SIZES_SM90A $FORCE_SIZES"
	else sizes="$SIZES $FORCE_SIZES"; fi
	echo "== run POLYMMA_VARIANT=$v $W/$name --tag $name $sizes" >"$log"
	exec 2>>"$log"	# also the shell's own "Segmentation fault" notices
	POLYMMA_VARIANT=$v timeout 600 "$W/$name" --tag "$name" $sizes >>"$log" 2>&1
	echo "rc=$?" >>"$log"
}

if [ "${1:-}" = --build-one ]; then shift; build_one "$@"; exit; fi
if [ "${1:-}" = --sweep-one ]; then shift; sweep_one "$@"; exit; fi

do_build=1 do_run=1 do_time=0 do_plain=1 do_force=0
[ "${FORCE:-0}" = 1 ] && do_force=1
for a in "$@"; do
	case $a in
	--time) do_time=1 ;;
	--build-only) do_run=0 ;;
	--run-only) do_build=0 ;;
	--force) do_force=1 ;;
	--force-only) do_force=1 do_plain=0 ;;
	*) echo "usage: $0 [--time] [--build-only | --run-only] [--force | --force-only]" >&2
	   exit 2 ;;
	esac
done
mkdir -p "$W"
LOG=${OUT:-$W}/gpu-check.log
RES=$W/results.txt	# PASS/FAIL/TIME lines of all runs
mkdir -p "$(dirname "$LOG")"
: >"$LOG"
: >"$RES"

if [ $do_build = 1 ]; then
	if [ ! -x "$POLYMMA" ] || ! "$NVCC" --version >/dev/null 2>&1; then
		echo "FAIL setup - need $POLYMMA (built) and nvcc ($NVCC)" | tee -a "$LOG" "$RES"
	else
		echo "building $(job_list | wc -l) binaries with $JOBS jobs ..."
		t0=$SECONDS
		job_list | xargs -P "$JOBS" -L 1 bash "$SELF" --build-one
		echo "built in $((SECONDS - t0)) s"
	fi
fi
while read -r name _; do		# all build logs into the one log
	[ -f "$W/$name.build.log" ] && cat "$W/$name.build.log" >>"$LOG"
	if [ $do_build = 1 ] && [ ! -e "$W/$name.ok" ]; then
		echo "FAIL $name - build failed: $(tail -n 1 "$W/$name.build.log" 2>/dev/null)" |
			tee -a "$RES"
	fi
done < <(job_list)
if [ $do_force = 1 ]; then	# the sweep's runs, per file
	mkdir -p "$W/sweep"
	sweep_list >"$W/sweep/runs.txt"
	awk '{ v[$1] = v[$1] " " $2; n[$1]++; if (!($1 in o)) o[$1] = ++k; f[k] = $1 }
	     END { for (i = 1; i <= k; i++) printf "sweep %-24s %2d:%s\n", f[i], n[f[i]], v[f[i]] }' \
		"$W/sweep/runs.txt" >>"$LOG"
	[ $do_run = 0 ] && echo "forced-variant sweep: $(wc -l <"$W/sweep/runs.txt") runs over $(cut -d' ' -f1 "$W/sweep/runs.txt" | sort -u | wc -l) files (list in $LOG)"
fi
if [ $do_run = 0 ]; then
	f=$(grep -c '^FAIL ' "$RES")
	echo "build only: $f failed; log in $LOG"
	[ "$f" = 0 ]; exit
fi

# Run one binary; its case lines go to RES, a one-line summary to stdout.
run_bin() {
	local name=$1 out rc p f; shift
	echo "== run $W/$name $*" >>"$LOG"
	if [ ! -e "$W/$name.ok" ] || [ ! -x "$W/$name" ]; then
		[ $do_build = 0 ] && echo "FAIL $name - not built" | tee -a "$LOG" >>"$RES"
		printf '%-26s not built\n' "$name"
		return
	fi
	out=$(timeout 240 "$W/$name" "$@" 2>&1); rc=$?
	printf '%s\n' "$out" >>"$LOG"
	printf '%s\n' "$out" | grep -E '^(PASS|FAIL|TIME) ' >>"$RES"
	if ! printf '%s\n' "$out" | grep -qE '^[0-9]+ passed, [0-9]+ failed$'; then
		echo "FAIL $name - crashed or timed out (rc=$rc): $(printf '%s\n' "$out" | tail -n 1)" |
			tee -a "$LOG" >>"$RES"
	fi
	p=$(printf '%s\n' "$out" | grep -c '^PASS ')
	f=$(printf '%s\n' "$out" | grep -c '^FAIL ')
	printf '%-26s %3d passed, %d failed (rc=%d)\n' "$name" "$p" "$f" "$rc"
}

{ nvidia-smi -L; "$NVCC" --version | tail -n 1; } >>"$LOG" 2>&1
[ $do_plain = 1 ] && while read -r name layout fixed _; do
	if [ "$fixed" = 1 ]; then run_bin "$name" --tag "$name"
	elif [[ $name == *sm90a* ]]; then run_bin "$name" --tag "$name" $SIZES_SM90A
	else run_bin "$name" --tag "$name" $SIZES; fi
done < <(job_list)

# The forced-variant sweep: every row of every table, RUN_JOBS at a time;
# then, per file, its case lines to RES and one summary line.
if [ $do_force = 1 ]; then
	rm -f "$W"/sweep/*.log
	if [ $do_plain = 0 ] && [ $do_build = 0 ]; then	# else reported above
		while read -r name _ fixed _; do
			[ "$fixed" = 1 ] && [ "${FORCE_FIXED:-0}" != 1 ] && continue
			[ -e "$W/$name.ok" ] && [ -x "$W/$name" ] ||
				echo "FAIL $name - not built" | tee -a "$LOG" >>"$RES"
		done < <(job_list)
	fi
	echo "forced-variant sweep: $(wc -l <"$W/sweep/runs.txt") runs, $RUN_JOBS at a time ..."
	t0=$SECONDS
	xargs -P "$RUN_JOBS" -L 1 bash "$SELF" --sweep-one <"$W/sweep/runs.txt"
	echo "swept in $((SECONDS - t0)) s"
	sweep_collect
fi
if [ $do_time = 1 ]; then
	for c in "${CONFIGS[@]}"; do
		run_bin "nn_${c%%|*}" --time --tag "nn_${c%%|*}" $TIME_SIZES
	done
fi

p=$(grep -c '^PASS ' "$RES")
f=$(grep -c '^FAIL ' "$RES")
s=$(grep -c '^SKIP ' "$RES")
if [ "$f" != 0 ]; then
	echo; echo "failures (first 40; all in $LOG):"
	grep '^FAIL ' "$RES" | head -n 40
fi
if [ $do_time = 1 ]; then
	echo
	printf '%-18s %-15s %11s %8s %11s %8s %6s\n' kernel MxNxK polymma_ms TFLOP/s \
		cublas_ms TFLOP/s ratio
	grep '^TIME ' "$RES" | sed 's/ [a-z_]*=/ /g' |
		awk '{ printf "%-18s %-15s %11s %8s %11s %8s %6s\n", $2, $3, $4, $5, $6, $7, $8 }'
	echo "(ratio = polymma TFLOP/s / cuBLAS TFLOP/s; median of 20 runs, events)"
fi
echo "log: $LOG"
[ "$s" != 0 ] && echo "$s skipped (forced variant cannot run this size)"
echo "$p passed, $f failed"
[ "$f" = 0 ] && [ "$p" != 0 ]
