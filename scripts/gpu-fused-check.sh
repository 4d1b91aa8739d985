#!/usr/bin/env bash
# gpu-fused-check.sh: generate polymma kernels with fused pointwise prologues
# and epilogues (every function of the spec language in each position, 4
# layouts, sm_80 and sm_90a, and a few on sm_70, with --mma-inflight on,
# --tma off and --persistent on, and 192x128 persistent blocks),
# build tests/gpu/check_fused.cu against
# each and run them: PASS/FAIL per case, "N passed, M failed" last, exit 1 on
# any failure.
#
#   bash scripts/gpu-fused-check.sh [--build-only | --run-only] [--only REGEX]
#                                   [--force | --force-only]
#   bash scripts/gpu-fused-check.sh --list
#
#   --build-only  generate and compile only (works without a GPU)
#   --run-only    run what an earlier --build-only left in build/fused
#   --only REGEX  only the binaries whose name matches REGEX (an extended
#                 regex, awk), e.g. '^epi_(relu|chain)_nn'
#   --force       (or FORCE=1) after the usual runs, the forced-variant
#                 sweep: for every selected binary whose file has a variant
#                 table, one run per row of its pm_variants_* table with
#                 POLYMMA_VARIANT=<suffix> (_base for the unsuffixed kernel;
#                 split rows also with ,s=2 and ,s=3), at its sizes and
#                 FORCE_SIZES; sizes a forced variant cannot run are SKIP
#                 lines (check_fused.cu), a forced variant that runs no size
#                 is a FAIL ("never legal"); one summary line per binary
#                 (variants run / never legal), logs in build/fused/sweep.
#                 The host fp64 reference makes this slow: select with
#                 --only (e.g. '^(epi_chain|pro_epi)_')
#   --force-only  the sweep without the usual runs
#   --list        print every binary name and stop
# Run from anywhere; works in the repository root. Needs build/polymma and nvcc.
# Environment: POLYMMA (build/polymma), NVCC (nvcc on PATH, else
# /usr/local/cuda/bin/nvcc), ARCH (sm_90), JOBS (16 parallel builds),
# RUN_JOBS (8 checkers at a time on the one GPU), SIZES (the MxNxK run for
# every binary; multiples of 128x128x32), SIZES_SM90A (the same for sm_90a
# binaries; multiples of 128x128x64), FORCE_SIZES (the sweep's sizes beyond
# those: ragged M and N, K a multiple of 64), OUT (folder for the full log
# fused.log; default build/fused).
#
# Binary NAME = CASE_LAYOUT_CFG; the spec build/fused/NAME.tc defines the
# launcher NAME. CASE is epi_FN (C(i, j) = FN(C(i, j) + bias(j)); binary FN:
# FN(C(i, j), bias(j)); exp: exp((C(i, j) + bias(j)) * 0.05)), epi_chain (a
# temporary accumulator, bias, row scale s(i), residual R(i, j), into output
# O), pro_FN (C(i, j) +=! FN(A(..)) * B(..); binary FN: FN(A(..), 0.25)),
# pro_b (tanh on B), pro_ab (on both operands), pro_epi (prologue and
# epilogue in one kernel).
set -u -o pipefail
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.."
# shellcheck source=scripts/sweep-collect.sh
. scripts/sweep-collect.sh

W=build/fused
POLYMMA=${POLYMMA:-build/polymma}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-16}
RUN_JOBS=${RUN_JOBS:-8}
SIZES=${SIZES:-"256x384x160 512x256x1024"}
# sm_90a: K a multiple of 64 (block tile 128x128x64); the small sizes run
# the small-tile variant (1024x1024 its TMA twin), 2048x2304 the 128x128
# kernel, 2304x1408 the medium one, 1024x1536 the persistent
# one, 2048x4096 the wide persistent one and 640x896x3072 (35 tiles, 48 k
# tiles) the split persistent one, 3 chunks (where the spec has them),
# 2560x2944x512 the tall persistent one (M a multiple of 256, N not) and
# 2304x2304x1024 the split persistent one on the tail of several waves
SIZES_SM90A=${SIZES_SM90A:-"256x384x192 512x256x1024 1024x1024x512 1024x1536x512 2048x2304x256 2304x1408x512 2304x2304x1024 2048x4096x256 640x896x3072 2560x2944x512"}
UNARY="relu sigmoid tanh gelu gelu_erf silu exp abs"
BINARY="max min"
LAYOUTS="nn nt tn tt"
# the forced-variant sweep's ragged sizes, beside the binary's
FORCE_SIZES=${FORCE_SIZES:-"1000x3000x512 200x328x576 4104x264x1024"}

cfg_args() {
	case $1 in
	sm80) echo "--target sm_80" ;;
	sm70_32x32x8) echo "--target sm_70 --mma 32x32x8" ;;
	sm70_16x16x8) echo "--target sm_70 --mma 16x16x8" ;;
	sm90a) echo "--target sm_90a" ;;
	sm90a_inflight) echo "--target sm_90a --mma-inflight on --stages 4" ;;
	sm90a_cpasync) echo "--target sm_90a --tma off" ;;
	sm90a_persist) echo "--target sm_90a --persistent on" ;;
	sm90a_wg3) echo "--target sm_90a --persistent on --block 192x128x64 --warp 64x128" ;;
	sm90a_n96) echo "--target sm_90a --persistent on --split-k 1 --block 128x96x64 --warp 64x96 --mma 64x96x64" ;;
	sm90a_pinfl) echo "--target sm_90a --persistent on --split-k 1 --mma-inflight on --block 64x192x64 --warp 64x192 --stages 6" ;;
	*) return 1 ;;
	esac
}

# One line per binary: NAME CASE LAYOUT CFG
job_list() {
	local c l fn cases=()
	for fn in $UNARY $BINARY; do cases+=("epi_$fn"); done
	cases+=(epi_chain)
	for fn in $UNARY $BINARY; do cases+=("pro_$fn"); done
	cases+=(pro_b pro_ab pro_epi)
	for c in "${cases[@]}"; do
		for l in $LAYOUTS; do echo "${c}_${l}_sm80 $c $l sm80"; done
	done
	for c in "${cases[@]}"; do
		for l in $LAYOUTS; do echo "${c}_${l}_sm90a $c $l sm90a"; done
	done
	for c in "epi_chain nn" "epi_chain tt" "pro_relu nt" "pro_epi tn"; do
		set -- $c
		echo "${1}_${2}_sm90a_inflight $1 $2 sm90a_inflight"
	done
	for c in "epi_chain nn" "pro_relu tt" "pro_b nt" "pro_epi tn"; do
		set -- $c
		echo "${1}_${2}_sm90a_cpasync $1 $2 sm90a_cpasync"
	done
	for c in "epi_chain nn" "epi_chain tt" "epi_gelu nt" "epi_max tn" \
		 "pro_relu nt" "pro_silu tt" "pro_epi nn" "pro_epi tn"; do
		set -- $c
		echo "${1}_${2}_sm90a_persist $1 $2 sm90a_persist"
	done
	# three consumer warpgroups beside a producer warpgroup (a register
	# prologue in 192x128 blocks: setmaxnreg.inc 152)
	for c in "pro_relu nn" "pro_relu tt" "pro_silu nt" "pro_epi tn"; do
		set -- $c
		echo "${1}_${2}_sm90a_wg3 $1 $2 sm90a_wg3"
	done
	# 128x96 blocks (wgmma n = 96, B in 32-column swizzled blocks)
	for c in "epi_chain nn" "epi_chain tt" "pro_relu nn" "pro_relu nt" \
		 "pro_epi tn" "epi_silu nn"; do
		set -- $c
		echo "${1}_${2}_sm90a_n96 $1 $2 sm90a_n96"
	done
	# one k tile of wgmma in flight in a persistent kernel (epilogues:
	# a prologue under --mma-inflight on is applied in shared memory,
	# which TMA and so the persistent kernel do not allow)
	for c in "epi_chain nn" "epi_chain tt" "epi_gelu nt" "epi_max tn"; do
		set -- $c
		echo "${1}_${2}_sm90a_pinfl $1 $2 sm90a_pinfl"
	done
	for c in "epi_chain nn" "epi_chain tt" "pro_relu nn" "pro_relu tt" \
		 "epi_sigmoid nt" "pro_exp tn" "pro_epi nn"; do
		set -- $c
		echo "${1}_${2}_sm70_32x32x8 $1 $2 sm70_32x32x8"
	done
	for c in "epi_chain nn" "pro_relu nn"; do
		set -- $c
		echo "${1}_${2}_sm70_16x16x8 $1 $2 sm70_16x16x8"
	done
}
selected_jobs() {
	job_list | awk -v re="$ONLY" '$1 ~ re'
}

# The case's statements, with @A / @B standing for the operand reads, its
# extra inputs (b: bias(j), s: s(i), r: R(i, j)), output name and the
# reference expressions for check_fused.cu (EPI in v, i, j; PRO_A/B in x).
case_def() {
	local c=$1 fn
	STMTS= EXTRA= OUTN=C EPI= PRO_A= PRO_B=
	case $c in
	epi_chain)
		EXTRA=bsr OUTN=O
		STMTS="T(i, j) +=! @A * @B
    U(i, j) = gelu(T(i, j) + bias(j)) * s(i)
    O(i, j) = max(U(i, j) + R(i, j) * 0.5, -0.75) - 0.125"
		EPI="r_max(r_gelu(v + bias[j]) * scale[i] + R[i * N + j] * 0.5, -0.75) - 0.125" ;;
	epi_exp)
		EXTRA=b
		STMTS="C(i, j) +=! @A * @B
    C(i, j) = exp((C(i, j) + bias(j)) * 0.05)"
		EPI="r_exp((v + bias[j]) * 0.05)" ;;
	epi_max | epi_min)
		fn=${c#epi_} EXTRA=b
		STMTS="C(i, j) +=! @A * @B
    C(i, j) = $fn(C(i, j), bias(j))"
		EPI="r_$fn(v, bias[j])" ;;
	epi_*)
		fn=${c#epi_} EXTRA=b
		STMTS="C(i, j) +=! @A * @B
    C(i, j) = $fn(C(i, j) + bias(j))"
		EPI="r_$fn(v + bias[j])" ;;
	pro_max | pro_min)
		fn=${c#pro_}
		STMTS="C(i, j) +=! $fn(@A, 0.25) * @B"
		PRO_A="r_$fn(x, 0.25)" ;;
	pro_b)
		STMTS="C(i, j) +=! @A * tanh(@B)"
		PRO_B="r_tanh(x)" ;;
	pro_ab)
		STMTS="C(i, j) +=! sigmoid(@A) * (@B * 2 - 1)"
		PRO_A="r_sigmoid(x)" PRO_B="x * 2 - 1" ;;
	pro_epi)
		EXTRA=b
		STMTS="C(i, j) +=! silu(@A) * @B
    C(i, j) = relu(C(i, j) + bias(j))"
		PRO_A="r_silu(x)" EPI="r_relu(v + bias[j])" ;;
	pro_*)
		fn=${c#pro_}
		STMTS="C(i, j) +=! $fn(@A) * @B"
		PRO_A="r_$fn(x)" ;;
	*) return 1 ;;
	esac
}

# nvcc splits -D values at commas; "\," keeps one.
esc() { printf '%s' "${1//,/\\,}"; }

# Generate and compile one binary; all output to build/fused/NAME.build.log.
build_one() {
	local name=$1 case=$2 layout=$3 cfg=$4
	local tc=$W/$name.tc cu=$W/$name.cu bin=$W/$name akm=0 bnk=0
	local adecl="f16(M, K) A" aread="A(i, k)" bdecl="f16(K, N) B" bread="B(k, j)"
	local decl defs=() cudadir
	cudadir=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
	exec >"$W/$name.build.log" 2>&1
	rm -f "$tc" "$cu" "$bin" "$W/$name.ok"
	[ "${layout:0:1}" = t ] && akm=1 adecl="f16(K, M) A" aread="A(k, i)"
	[ "${layout:1:1}" = t ] && bnk=1 bdecl="f16(N, K) B" bread="B(j, k)"
	case_def "$case" || { echo "== $name: unknown case $case"; exit 1; }
	decl="$adecl, $bdecl"
	[[ $EXTRA == *b* ]] && decl+=", f16(N) bias"
	[[ $EXTRA == *s* ]] && decl+=", f16(M) s"
	[[ $EXTRA == *r* ]] && decl+=", f16(M, N) R"
	STMTS=${STMTS//@A/$aread}
	STMTS=${STMTS//@B/$bread}
	printf '# %s: generated by scripts/gpu-fused-check.sh\ndef %s(%s) -> (f16(M, N) %s) {\n    %s\n}\n' \
		"$name" "$name" "$decl" "$OUTN" "$STMTS" >"$tc"
	cat "$tc"
	local gen=("$POLYMMA" gen "$tc" -o "$cu" $(cfg_args "$cfg"))
	echo "== $name: ${gen[*]}"
	"${gen[@]}" || { echo "== $name: GENERATION FAILED rc=$?"; exit 1; }
	defs=(-DKFN="$name" -DA_KM=$akm -DB_NK=$bnk)
	[[ $EXTRA == *b* ]] && defs+=(-DHAS_BIAS=1)
	[[ $EXTRA == *s* ]] && defs+=(-DHAS_SCALE=1)
	[[ $EXTRA == *r* ]] && defs+=(-DHAS_RES=1)
	[ -n "$PRO_A" ] && defs+=(-DPRO_A="$(esc "$PRO_A")")
	[ -n "$PRO_B" ] && defs+=(-DPRO_B="$(esc "$PRO_B")")
	[ -n "$EPI" ] && defs+=(-DEPI="$(esc "$EPI")")
	local arch=(-arch="$ARCH")
	[[ $name == *sm90a* ]] && arch=(-gencode=arch=compute_90a,code=sm_90a)
	local cmd=("$NVCC" -O2 "${arch[@]}" -std=c++17 --resource-usage
		-DKERNEL_FILE="\"$PWD/$cu\"" "${defs[@]}" tests/gpu/check_fused.cu
		-cudart shared
		-Xlinker -rpath -Xlinker "$cudadir/lib64" -Xlinker -rpath -Xlinker "$cudadir/lib"
		-o "$bin")
	printf '== %s:' "$name"; printf " '%s'" "${cmd[@]}"; echo
	"${cmd[@]}" || { echo "== $name: COMPILATION FAILED rc=$?"; exit 1; }
	touch "$W/$name.ok"
}

# Run one checker; its output to build/fused/NAME.run.log, last line "rc=N".
run_one() {
	local name=$1 log=$W/$1.run.log rc sizes=$SIZES
	[[ $name == *sm90a* ]] && sizes=$SIZES_SM90A
	echo "== run $W/$name --tag $name $sizes" >"$log"
	exec 2>>"$log"	# also the shell's own "Segmentation fault" notices
	timeout 120 "$W/$name" --tag "$name" $sizes >>"$log" 2>&1; rc=$?
	echo "rc=$rc" >>"$log"
}

# One line per sweep run: NAME VARIANT (built binaries of files with a table).
sweep_list() {
	local name v
	while read -r name _; do
		[ -e "$W/$name.ok" ] && [ -x "$W/$name" ] || continue
		for v in $(file_variants "$W/$name.cu"); do echo "$name $v"; done
	done <"$JOBFILE"
}

# One forced run: build/fused/sweep/NAME@VARIANT.log, last line "rc=N".
sweep_one() {
	local name=$1 v=$2 log=$W/sweep/$1@$2.log sizes="$SIZES $FORCE_SIZES"
	[[ $name == *sm90a* ]] && sizes="$SIZES_SM90A $FORCE_SIZES"
	echo "== run POLYMMA_VARIANT=$v $W/$name --tag $name $sizes" >"$log"
	exec 2>>"$log"	# also the shell's own "Segmentation fault" notices
	POLYMMA_VARIANT=$v timeout 600 "$W/$name" --tag "$name" $sizes >>"$log" 2>&1
	echo "rc=$?" >>"$log"
}

if [ "${1:-}" = --build-one ]; then shift; build_one "$@"; exit; fi
if [ "${1:-}" = --run-one ]; then shift; run_one "$@"; exit; fi
if [ "${1:-}" = --sweep-one ]; then shift; sweep_one "$@"; exit; fi

do_build=1 do_run=1 do_plain=1 do_force=0 ONLY=
[ "${FORCE:-0}" = 1 ] && do_force=1
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) do_run=0 ;;
	--run-only) do_build=0 ;;
	--force) do_force=1 ;;
	--force-only) do_force=1 do_plain=0 ;;
	--only) [ $# -ge 2 ] || { echo "--only needs a REGEX" >&2; exit 2; }; ONLY=$2; shift ;;
	--list) job_list | cut -d' ' -f1; exit 0 ;;
	*) echo "usage: $0 [--build-only | --run-only] [--only REGEX] [--force | --force-only] [--list]" >&2
	   exit 2 ;;
	esac
	shift
done
[ $do_build = 0 ] && [ $do_run = 0 ] &&
	{ echo "--build-only and --run-only exclude each other" >&2; exit 2; }
mkdir -p "$W"
LOG=${OUT:-$W}/fused.log
RES=$W/results.txt	# PASS/FAIL lines of all runs
mkdir -p "$(dirname "$LOG")"
: >"$LOG"
: >"$RES"
JOBFILE=$W/jobs.txt
selected_jobs >"$JOBFILE"
[ -s "$JOBFILE" ] || { echo "no binary matches '$ONLY'"; exit 2; }

if [ $do_build = 1 ]; then
	if [ ! -x "$POLYMMA" ] || ! "$NVCC" --version >/dev/null 2>&1; then
		echo "FAIL setup - need $POLYMMA (built) and nvcc ($NVCC)" | tee -a "$LOG" "$RES"
	else
		echo "building $(wc -l <"$JOBFILE") binaries with $JOBS jobs ..."
		t0=$SECONDS
		xargs -P "$JOBS" -L 1 bash "$SELF" --build-one <"$JOBFILE"
		echo "built in $((SECONDS - t0)) s"
	fi
fi
while read -r name _; do		# all build logs into the one log
	[ -f "$W/$name.build.log" ] && cat "$W/$name.build.log" >>"$LOG"
	if [ $do_build = 1 ] && [ ! -e "$W/$name.ok" ]; then
		echo "FAIL $name - build failed: $(tail -n 1 "$W/$name.build.log" 2>/dev/null)" |
			tee -a "$RES"
	fi
done <"$JOBFILE"
if [ $do_force = 1 ]; then	# the sweep's runs, per binary
	mkdir -p "$W/sweep"
	sweep_list >"$W/sweep/runs.txt"
	awk '{ v[$1] = v[$1] " " $2; n[$1]++; if (!($1 in o)) o[$1] = ++k; f[k] = $1 }
	     END { for (i = 1; i <= k; i++) printf "sweep %-24s %2d:%s\n", f[i], n[f[i]], v[f[i]] }' \
		"$W/sweep/runs.txt" >>"$LOG"
	[ $do_run = 0 ] && echo "forced-variant sweep: $(wc -l <"$W/sweep/runs.txt") runs over $(cut -d' ' -f1 "$W/sweep/runs.txt" | sort -u | wc -l) binaries (list in $LOG)"
fi
if [ $do_run = 0 ]; then
	f=$(grep -c '^FAIL ' "$RES")
	echo "build only: $(wc -l <"$JOBFILE") binaries, $f failed; log in $LOG"
	[ "$f" = 0 ]; exit
fi

{ nvidia-smi -L; "$NVCC" --version | tail -n 1; } >>"$LOG" 2>&1
if [ $do_plain = 1 ]; then
echo "running $(wc -l <"$JOBFILE") checkers, $RUN_JOBS at a time, sizes $SIZES ..."
t0=$SECONDS
while read -r name _; do
	rm -f "$W/$name.run.log"
	[ -e "$W/$name.ok" ] && [ -x "$W/$name" ] && echo "$name"
done <"$JOBFILE" | xargs -P "$RUN_JOBS" -n 1 bash "$SELF" --run-one
echo "ran in $((SECONDS - t0)) s"
fi

# Collect, in job order: full output to the log, case lines to RES, one
# status cell per binary for the table.
declare -A cell seen
rows=()
[ $do_plain = 1 ] && while read -r name case layout cfg; do
	row="$case $cfg"
	[ -n "${seen["$row"]+x}" ] || { seen["$row"]=1; rows+=("$row"); }
	log=$W/$name.run.log
	if [ ! -e "$W/$name.ok" ] || [ ! -x "$W/$name" ]; then
		[ $do_build = 0 ] && echo "FAIL $name - not built" | tee -a "$LOG" >>"$RES"
		cell["$row $layout"]="$layout BUILD!"
		continue
	fi
	cat "$log" >>"$LOG"
	grep -E '^(PASS|FAIL) ' "$log" >>"$RES"
	p=$(grep -c '^PASS ' "$log") f=$(grep -c '^FAIL ' "$log")
	if ! grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log"; then
		echo "FAIL $name - crashed or timed out ($(tail -n 1 "$log")): $(tail -n 2 "$log" | head -n 1)" |
			tee -a "$LOG" >>"$RES"
		cell["$row $layout"]="$layout $p/$((p + f)) CRASH!"
	elif [ "$f" != 0 ]; then
		cell["$row $layout"]="$layout $p/$((p + f)) FAIL!"
	else
		cell["$row $layout"]="$layout $p/$p"
	fi
done <"$JOBFILE"


# The forced-variant sweep: every row of every table, RUN_JOBS at a time;
# then, per binary, its case lines to RES and one summary line.
if [ $do_force = 1 ]; then
	rm -f "$W"/sweep/*.log
	if [ $do_plain = 0 ] && [ $do_build = 0 ]; then	# else reported above
		while read -r name _; do
			[ -e "$W/$name.ok" ] && [ -x "$W/$name" ] ||
				echo "FAIL $name - not built" | tee -a "$LOG" >>"$RES"
		done <"$JOBFILE"
	fi
	echo "forced-variant sweep: $(wc -l <"$W/sweep/runs.txt") runs, $RUN_JOBS at a time ..."
	t0=$SECONDS
	xargs -P "$RUN_JOBS" -L 1 bash "$SELF" --sweep-one <"$W/sweep/runs.txt"
	echo "swept in $((SECONDS - t0)) s"
	sweep_collect
fi

echo
for row in "${rows[@]}"; do
	line=$(printf '%-13s %-13s' $row)
	for l in $LAYOUTS; do
		[ -n "${cell["$row $l"]+x}" ] && line+=$(printf '  %-13s' "${cell["$row $l"]}")
	done
	echo "$line"
done
p=$(grep -c '^PASS ' "$RES")
f=$(grep -c '^FAIL ' "$RES")
s=$(grep -c '^SKIP ' "$RES")
if [ "$f" != 0 ]; then
	echo; echo "failures (first 40; all in $LOG):"
	grep '^FAIL ' "$RES" | head -n 40
fi
echo "log: $LOG"
[ "$s" != 0 ] && echo "$s skipped (forced variant cannot run this size)"
echo "$p passed, $f failed"
[ "$f" = 0 ] && [ "$p" != 0 ]
