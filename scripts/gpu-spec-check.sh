#!/usr/bin/env bash
# gpu-spec-check.sh: the generic GPU check — any spec, every variant. Each
# case generates one file, builds tests/gpu/check_spec.cu against it (the
# reference is the language's own, polymma_reference, so a case needs no
# checker code) and runs it:
#   plain       the launch plan chooses, at the case's sizes;
#   --force     every row of the file's variant table (POLYMMA_VARIANT;
#               split rows also with s=2 and s=3) at FORCE_SIZES: SKIP
#               where a row cannot run a size, FAIL where it runs none;
#   --sanitize TOOLS  every row under compute-sanitizer --tool T for each T
#               of TOOLS (memcheck,racecheck,synccheck) at SAN_SIZES (a
#               ragged size and a split-K one): a FAIL where it reports an
#               error; its summary lines go to the log.
#   --ws        every run through NAME_ws with a workspace of the caller's
#               (check_spec.cu --ws) where the file has NAME_ws (split-K,
#               K-major copies: docs/decisions/0033); the plain entry
#               otherwise.
#
#   bash scripts/gpu-spec-check.sh [--build-only | --run-only] [--force]
#        [--no-plain] [--sanitize TOOLS] [--ws] [--only REGEX] [--list]
#
# Needs build/polymma, build/libpolymma.a and nvcc (compute-sanitizer for
# --sanitize). Environment: POLYMMA, LIB (build/libpolymma.a), NVCC, JOBS
# (16 builds), RUN_JOBS (8 runs at a time on the one GPU), SIZES,
# ROWS (a regex: only the forced or sanitized rows it matches, e.g.
# '^_persist_swap'), FORCE_SIZES, SAN_SIZES (named: M=..,N=..,K=..; a case's extra symbols are appended),
# KSIZES_8, KSIZES_16, KSIZES_1 (K not a multiple of the k tile, appended to
# each of the three lists by the case's K rule), OUT (folder of
# spec-check.log; default build/spec), RUN_TIMEOUT (seconds one run may
# take, 900; a run past it fails with rc=124: a hang names its row),
# CHECK_REF_CACHE (the folder where check_spec.cu keeps each size's
# reference outputs, keyed by the spec, sizes and inputs: a file's forced
# rows compute a size's reference once; default build/spec/ref, empty for
# none).
set -u -o pipefail
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.." || exit 2
# shellcheck source=scripts/sweep-collect.sh
. scripts/sweep-collect.sh

W=build/spec
POLYMMA=${POLYMMA:-build/polymma}
LIB=${LIB:-build/libpolymma.a}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
JOBS=${JOBS:-16}
RUN_JOBS=${RUN_JOBS:-8}
# ragged M and N; one and several waves; split-K (small M N, long K); the
# split persistent, wide and tall persistent sizes of gpu-fused-check.sh.
# decode shapes (M <= 64, the skinny row: docs/decisions/0040).
# K a multiple of 64 (sm_90a's k tile), N of 8 (16-byte rows).
SIZES=${SIZES:-"M=1000,N=3000,K=512 M=200,N=328,K=576 M=4104,N=264,K=1024 M=2304,N=2304,K=1024 M=256,N=384,K=8192 M=640,N=896,K=3072 M=2048,N=4096,K=256 M=16,N=4104,K=4096 M=8,N=3000,K=2048 M=56,N=17160,K=1024"}
# the forced rows: ragged, split-K, and one size every exact row divides
# (768 = 3 x 256 = 4 x 192)
FORCE_SIZES=${FORCE_SIZES:-"M=1000,N=3000,K=512 M=200,N=328,K=576 M=768,N=768,K=512 M=256,N=384,K=4096 M=4104,N=264,K=1024 M=16,N=4104,K=4096"}
SAN_SIZES=${SAN_SIZES:-"M=200,N=328,K=576 M=256,N=384,K=4096"}
# K not a multiple of the k tile (docs/decisions/0030-ragged-k.md): the last
# k tile partial; split-K (small M N, long K) with the last chunk's last tile
# partial; 776 and 1000 on rows every exact row divides (768). By the case's
# K rule: K % 8 where K is a contiguous dimension (16-byte rows of 16-bit
# types), K % 16 (8-bit types), any K (no tensor has K last: gemm_tn).
KSIZES_8=${KSIZES_8:-"M=1000,N=3000,K=1000 M=200,N=328,K=8 M=200,N=328,K=24 M=768,N=768,K=776 M=4104,N=264,K=4104 M=256,N=384,K=8200 M=768,N=768,K=1000"}
KSIZES_16=${KSIZES_16:-"M=1000,N=3000,K=1008 M=200,N=328,K=16 M=200,N=328,K=48 M=768,N=768,K=784 M=4104,N=264,K=4112 M=256,N=384,K=8208"}
# sm_70 takes no partial k tile (docs/decisions/0030): K multiples of 32
KSIZES_32=${KSIZES_32:-"M=200,N=328,K=32 M=768,N=768,K=800"}
KSIZES_1=${KSIZES_1:-"M=1000,N=3000,K=1 M=200,N=328,K=7 M=200,N=328,K=127 M=768,N=768,K=129 M=4104,N=264,K=1000 M=256,N=384,K=8199"}
# odd M (7, 127, 129, 4097: partial row tiles) with K 1000 and small K, a
# split-K size (small grid, long K): the prologues reading vectors and the
# three contractions of docs/decisions/0039 (K % 8); odd32: sm_70's (K % 32)
KSIZES_odd=${KSIZES_odd:-"M=7,N=8,K=8 M=127,N=136,K=1000 M=129,N=264,K=40 M=129,N=1000,K=1000 M=4097,N=264,K=1000 M=255,N=384,K=8200"}
# epilogues reading vectors along the tokens (sa(M): any M,
# schedule_tree/sizes.c row_vector): odd and decode M, the swapped rows'
# ragged columns (N, K whole 16-byte rows of 8-bit operands too)
KSIZES_vec=${KSIZES_vec:-"M=1,N=272,K=1008 M=7,N=4112,K=512 M=9,N=144,K=64 M=15,N=3008,K=2048 M=33,N=1008,K=528 M=127,N=144,K=1008 M=4097,N=272,K=1008"}
KSIZES_odd32=${KSIZES_odd32:-"M=7,N=8,K=32 M=127,N=136,K=992 M=129,N=264,K=64 M=255,N=384,K=8192"}
# i8 weights beside f16/bf16 activations (docs/decisions/0047): odd M, the
# i8 tensor's contiguous dimension (N, or K where K-major) whole 16-byte
# rows (16 elements); w8_32: sm_70's (K % 32)
KSIZES_w8=${KSIZES_w8:-"M=7,N=16,K=16 M=127,N=144,K=1008 M=129,N=272,K=48 M=129,N=1008,K=1008 M=4097,N=272,K=1008 M=255,N=384,K=8208 M=768,N=768,K=1008"}
KSIZES_w8_32=${KSIZES_w8_32:-"M=7,N=16,K=32 M=127,N=144,K=992 M=129,N=272,K=64 M=255,N=384,K=8192"}

# Batched specs (tests/specs/bmm_*.tc, docs/decisions/0036): their own sizes
# (every list: plain, forced, sanitized), batch 1, 3 and 64 with odd sizes
# where the layout allows them (a contiguous dimension is whole 16-byte
# rows): BSIZES_8 for M odd, N and K multiples of 8 (A (Bt, M, K)); BSIZES_M8
# for K odd, M and N multiples of 8 (A (Bt, K, M)); BSIZES_32 sm_70's
# (K a multiple of 32). Bt=16, M=N=768: every exact persistent row's tile
# divides it and each block runs units of several batches
# (docs/decisions/0042).
BSIZES_8=${BSIZES_8:-"Bt=1,M=1,N=8,K=8 Bt=3,M=7,N=136,K=72 Bt=3,M=127,N=264,K=1000 Bt=64,M=129,N=136,K=264 Bt=64,M=256,N=256,K=256 Bt=1,M=1000,N=3000,K=512 Bt=16,M=768,N=768,K=136"}
BSIZES_M8=${BSIZES_M8:-"Bt=1,M=8,N=8,K=1 Bt=3,M=8,N=136,K=7 Bt=3,M=128,N=264,K=127 Bt=64,M=136,N=128,K=129 Bt=64,M=256,N=256,K=256 Bt=16,M=768,N=768,K=129"}
BSIZES_32=${BSIZES_32:-"Bt=1,M=1,N=8,K=32 Bt=3,M=127,N=264,K=96 Bt=64,M=129,N=136,K=256"}

# Grouped specs (tests/specs/moe_*.tc, docs/decisions/0045): E groups of
# T rows at most, each size with its group counts (tests/gpu/check_spec.cu:
# "groups=A:B:..." or "groups=auto", 0 1 7 127 129 64 255 33 over and over):
# empty groups, groups of one row, odd and partial tiles, rows past the last
# group (left poisoned), offsets past T (clamped). N and K multiples of 8
# (whole 16-byte rows); GSIZES_32: sm_70's (K a multiple of 32).
GSIZES_8=${GSIZES_8:-"E=1,T=1,N=8,K=8,groups=1 E=3,T=12,N=136,K=72,groups=0:1:7 E=3,T=300,N=264,K=1000,groups=127:0:129 E=1,T=5,N=8,K=8,groups=0 E=8,T=700,N=136,K=264,groups=auto E=64,T=5000,N=512,K=512,groups=auto E=16,T=1300,N=768,K=136,groups=auto E=2,T=1000,N=3000,K=512,groups=600:900"}
# GSIZES_16: i8 weights' rows (N % 16), with groups of 1024 rows and more
# (the launcher-applied copies, docs/decisions/0059)
GSIZES_16=${GSIZES_16:-"E=1,T=1,N=16,K=16,groups=1 E=3,T=12,N=144,K=72,groups=0:1:7 E=3,T=300,N=272,K=1000,groups=127:0:129 E=8,T=700,N=144,K=264,groups=auto E=2,T=3000,N=1024,K=520,groups=1200:1800 E=4,T=5000,N=512,K=512,groups=auto"}
GSIZES_32=${GSIZES_32:-"E=1,T=1,N=8,K=32,groups=1 E=3,T=12,N=136,K=96,groups=0:1:7 E=3,T=300,N=264,K=256,groups=127:0:129 E=8,T=700,N=136,K=256,groups=auto"}

# NAME|SPEC|GEN ARGS|EXTRA SIZES (appended to every size, e.g. ,L=192)|K RULE
# (8, the default: K % 8; 16; 1: any K; 32: sm_70; odd, odd32: odd M too;
# KSIZES_<rule> join every list)
# [|SIZE LIST: the name of a variable whose sizes replace every list]
CASES=(
	"gemm_nn_sm90a|examples/gemm_nn.tc|--target sm_90a|"
	"gemm_nn_sm80|examples/gemm_nn.tc|--target sm_80|"
	"relu_gemm_sm90a|examples/relu_gemm.tc|--target sm_90a|"
	"relu_gemm_sm80|examples/relu_gemm.tc|--target sm_80|"
	"bias_relu_sm90a|examples/gemm_bias_relu.tc|--target sm_90a|"
	"bias_relu_sm80|examples/gemm_bias_relu.tc|--target sm_80|"
	"add_gemm_sm90a|examples/add_gemm.tc|--target sm_90a|"
	"add_gemm_sm80|examples/add_gemm.tc|--target sm_80|"
	"f32out_sm90a|tests/specs/gemm_f32out.tc|--target sm_90a|"
	"f32out_sm80|tests/specs/gemm_f32out.tc|--target sm_80|"
	"f32epi_sm90a|tests/specs/gemm_f32out_epi.tc|--target sm_90a|"
	"f32epi_sm80|tests/specs/gemm_f32out_epi.tc|--target sm_80|"
	"add2k_sm90a|tests/specs/add_gemm_2k.tc|--target sm_90a|,L=192"
	"add2k_sm80|tests/specs/add_gemm_2k.tc|--target sm_80|,L=192"
	"add2k_l1000_sm90a|tests/specs/add_gemm_2k.tc|--target sm_90a|,L=1000"
	"add2k_l1000_sm80|tests/specs/add_gemm_2k.tc|--target sm_80|,L=1000"
	"gemm_tn_sm90a|examples/gemm_tn.tc|--target sm_90a||1"
	"gemm_tn_sm80|examples/gemm_tn.tc|--target sm_80||1"
	"gemm_nn_sm70|examples/gemm_nn.tc|--target sm_70||32"
	"relu_gemm_sm70|examples/relu_gemm.tc|--target sm_70||32"
	"heavy_sm90a|tests/specs/heavy_epi.tc|--target sm_90a|"
	"heavy_sm80|tests/specs/heavy_epi.tc|--target sm_80|"
	"res_pro_sm90a|tests/specs/add_gemm_res_pro.tc|--target sm_90a|,L=192"
	"res_pro_sm80|tests/specs/add_gemm_res_pro.tc|--target sm_80|,L=192"
	"pro_b_sm90a|tests/specs/pro_b_gemm.tc|--target sm_90a|"
	"pro_b_sm80|tests/specs/pro_b_gemm.tc|--target sm_80|"
	"pro_ab_sm90a|tests/specs/pro_ab_gemm.tc|--target sm_90a|"
	"pro_ab_sm80|tests/specs/pro_ab_gemm.tc|--target sm_80|"
	"swiglu_sm90a|tests/specs/swiglu.tc|--target sm_90a|"
	"swiglu_sm80|tests/specs/swiglu.tc|--target sm_80|"
	"swiglu_b_sm90a|tests/specs/swiglu_shared_b.tc|--target sm_90a|"
	"swiglu_b_sm80|tests/specs/swiglu_shared_b.tc|--target sm_80|"
	"swiglu_p64_sm90a|tests/specs/swiglu.tc|--target sm_90a --persistent on --split-k 1 --block 64x128x64 --warp 64x128 --mma 64x128x64|"
	"mc_nn_sm90a|examples/gemm_nn.tc|--target sm_90a --cluster 2|"
	"mc_bias_relu_sm90a|examples/gemm_bias_relu.tc|--target sm_90a --cluster 2|"
)
# batched specs (docs/decisions/0036): every target
CASES+=(
	"bmm_nn_sm90a|tests/specs/bmm_nn.tc|--target sm_90a|||BSIZES_8"
	"bmm_nn_sm80|tests/specs/bmm_nn.tc|--target sm_80|||BSIZES_8"
	"bmm_nn_sm70|tests/specs/bmm_nn.tc|--target sm_70|||BSIZES_32"
	"bmm_bcast_b_sm90a|tests/specs/bmm_bcast_b.tc|--target sm_90a|||BSIZES_M8"
	"bmm_bcast_b_sm80|tests/specs/bmm_bcast_b.tc|--target sm_80|||BSIZES_M8"
	"bmm_bias_sm90a|tests/specs/bmm_bias.tc|--target sm_90a|||BSIZES_8"
	"bmm_bias_sm80|tests/specs/bmm_bias.tc|--target sm_80|||BSIZES_8"
	"bmm_bias_notma_sm90a|tests/specs/bmm_bias.tc|--target sm_90a --tma off|||BSIZES_8"
	"bmm_dequant_sm90a|tests/specs/bmm_dequant.tc|--target sm_90a|||BSIZES_8"
	"bmm_dequant_sm80|tests/specs/bmm_dequant.tc|--target sm_80|||BSIZES_8"
	"bmm_dequant_sm70|tests/specs/bmm_dequant.tc|--target sm_70|||BSIZES_32"
	"bmm_scale_sm90a|tests/specs/bmm_scale.tc|--target sm_90a|||BSIZES_8"
)
# grouped specs (docs/decisions/0045): every target, TMA on and off
for b in moe_up moe_scale moe_swiglu; do
	# any T: moe_scale's per-token s(T) is read row by row
	# (schedule_tree/sizes.c row_vector)
	CASES+=("${b}_sm90a|tests/specs/$b.tc|--target sm_90a|||GSIZES_8"
		"${b}_notma_sm90a|tests/specs/$b.tc|--target sm_90a --tma off|||GSIZES_8"
		"${b}_sm80|tests/specs/$b.tc|--target sm_80|||GSIZES_8"
		"${b}_sm70|tests/specs/$b.tc|--target sm_70|||GSIZES_32")
done
# grouped i8 weights (docs/decisions/0047, 0059): N % 16 (the i8 rows)
CASES+=("moe_w8_sm90a|tests/specs/moe_w8.tc|--target sm_90a|||GSIZES_16"
	"moe_w8_sm80|tests/specs/moe_w8.tc|--target sm_80|||GSIZES_16")
# prologues reading vectors and scalars (dequantizing weights) and three
# contractions (docs/decisions/0039): every target, odd M, K 1000
for b in gemm_dequant_b gemm_scale_a_k gemm_dequant_zs gemm3; do
	x=
	[ $b = gemm3 ] && x=,L=1000,P=264
	CASES+=("${b}_sm90a|tests/specs/$b.tc|--target sm_90a|$x|odd"
		"${b}_sm80|tests/specs/$b.tc|--target sm_80|$x|odd")
	[ $b = gemm3 ] && x=,L=992,P=224
	CASES+=("${b}_sm70|tests/specs/$b.tc|--target sm_70|$x|odd32")
done
# epilogues reading row and column vectors (docs/decisions/0034): the f16
# specs of tests/specs/gemm_f16_scale*.tc on both targets
for f in tests/specs/gemm_f16_scale*.tc; do
	b=$(basename "$f" .tc)
	CASES+=("${b}_sm90a|$f|--target sm_90a||vec" "${b}_sm80|$f|--target sm_80||vec")
done
# i8 weights widened to f16 or bf16 (docs/decisions/0047): every target
# (bf16 not on sm_70)
for b in gemm_w8 gemm_w8_zp gemm_w8_bf16; do
	# the plain run too: the i8 tensor's contiguous N a multiple of 16
	CASES+=("${b}_sm90a|tests/specs/$b.tc|--target sm_90a||w8|KSIZES_w8"
		"${b}_sm80|tests/specs/$b.tc|--target sm_80||w8|KSIZES_w8")
	[ $b = gemm_w8_bf16 ] ||
		CASES+=("${b}_sm70|tests/specs/$b.tc|--target sm_70||w8_32|KSIZES_w8_32")
done
# bf16: every spec of tests/specs/*bf16*.tc on both targets (the mixed
# one above)
for f in tests/specs/*bf16*.tc; do
	b=$(basename "$f" .tc)
	[[ $b == gemm_w8* ]] && continue
	CASES+=("${b}_sm90a|$f|--target sm_90a|" "${b}_sm80|$f|--target sm_80|")
done
# 8-bit operands (docs/decisions/0029): every spec of tests/specs/*f8e*.tc
# and *_i8_*.tc / *_i8.tc on sm_90a; the i8 ones on sm_80 too
# (docs/decisions/0032; sm_80 refuses the 8-bit floats, sm_70 all of them)
for f in tests/specs/*f8e*.tc tests/specs/*_i8_*.tc tests/specs/*_i8.tc; do
	[ -e "$f" ] || continue
	b=$(basename "$f" .tc)
	k=16; [[ $b == *scale* ]] && k=vec
	CASES+=("${b}_sm90a|$f|--target sm_90a||$k")
	[[ $b == *i8* ]] && CASES+=("${b}_sm80|$f|--target sm_80||16")
done

# epilogue reductions (docs/decisions/0037): the row sum in the four
# layouts, the row max, the column sum and a scalar (amax of a stored D), on the three targets, at odd
# sizes (KSIZES_r8, KSIZES_r32: M 1, 7, 127, 129); check_spec.cu checks
# that a second launch gives the outputs bit for bit
for f in tests/specs/gemm_rowsum*.tc tests/specs/gemm_rowmax.tc \
	tests/specs/gemm_colsum.tc tests/specs/gemm_amax_out.tc; do
	b=$(basename "$f" .tc) t=
	# A read (k, i): M its contiguous dimension, a multiple of 8
	[[ $b == *_t? ]] && t=t
	CASES+=("${b}_sm90a|$f|--target sm_90a||r8$t" "${b}_sm80|$f|--target sm_80||r8$t"
		"${b}_sm70|$f|--target sm_70||r32$t")
done
KSIZES_r8=${KSIZES_r8:-"M=1,N=8,K=1000 M=7,N=136,K=1000 M=127,N=1000,K=72 M=129,N=1032,K=1000 M=1000,N=3000,K=1000"}
KSIZES_r32=${KSIZES_r32:-"M=1,N=8,K=992 M=7,N=136,K=992 M=127,N=1000,K=64 M=129,N=1032,K=992 M=768,N=768,K=800"}
KSIZES_r8t=${KSIZES_r8t:-"M=8,N=8,K=1000 M=120,N=136,K=1000 M=136,N=1000,K=72 M=1000,N=3000,K=1000"}
KSIZES_r32t=${KSIZES_r32t:-"M=8,N=8,K=992 M=120,N=136,K=992 M=136,N=1000,K=64 M=768,N=768,K=800"}

# rows that are not whole 16-byte units and pointers that are not 16-byte
# aligned: the _unaligned row (docs/decisions/0046-narrow-copies.md), chosen
# by the launcher. 44 sizes per case, M, N and K from 1, 7, 8, 127, 129, 777,
# 1000, 4095, 4097 (none all multiples of 8; the products at most 1.2e9 for
# the host reference), every fourth with every tensor 1 element past its
# allocation's start and every fourth 2 (off=, tests/gpu/check_spec.cu;
# those allocations of exactly the tensor's size); the first three are the
# sanitizer's. sm_70: K a multiple of 32 (no partial k tile, decisions/0030).
# Then FORCE_SIZES' aligned ones (UAFORCE), which every row runs: --force
# runs every row at all of them (the others SKIP where the launcher needs
# the _unaligned row, _unaligned runs all); the other cases' --force runs
# _unaligned at their aligned sizes too (POLYMMA_VARIANT=_unaligned).
UAFORCE="M=768,N=768,K=512 M=256,N=384,K=4096 M=16,N=4104,K=4096"
UAFORCE32="M=768,N=768,K=512 M=256,N=384,K=4096"
UASIZES=${UASIZES:-"M=129,N=127,K=777,off=1 M=7,N=4095,K=129,off=3 M=1000,N=7,K=1000 M=129,N=127,K=4095 M=8,N=4097,K=8,off=1 M=8,N=4097,K=1 M=4097,N=129,K=8,off=2 M=129,N=127,K=777 M=4095,N=8,K=7,off=1 M=777,N=1000,K=777 M=127,N=1000,K=1000,off=2 M=7,N=8,K=777 M=129,N=127,K=129,off=1 M=7,N=7,K=4097 M=1000,N=127,K=4097,off=2 M=777,N=1,K=127 M=1,N=129,K=8,off=1 M=777,N=4095,K=129 M=1,N=777,K=127,off=2 M=129,N=129,K=777 M=4097,N=8,K=8,off=1 M=1000,N=8,K=129 M=129,N=1000,K=7,off=2 M=7,N=127,K=1 M=7,N=4097,K=4095,off=1 M=1,N=129,K=1 M=8,N=4097,K=4095,off=2 M=127,N=8,K=4095 M=127,N=129,K=7,off=1 M=127,N=1000,K=4097 M=129,N=1000,K=1000,off=2 M=8,N=1000,K=127 M=127,N=8,K=1,off=1 M=777,N=8,K=4097 M=1,N=129,K=4095,off=2 M=1,N=8,K=4095 M=129,N=1000,K=8,off=1 M=777,N=127,K=1000 M=127,N=1000,K=777,off=2 M=777,N=7,K=1000 M=127,N=7,K=7,off=1 M=777,N=7,K=4097 M=4097,N=4095,K=8,off=2 M=127,N=8,K=127 $UAFORCE"}
UASIZES_32=${UASIZES_32:-"M=129,N=127,K=992,off=1 M=7,N=4095,K=128,off=3 M=1000,N=7,K=1024 M=4095,N=4095,K=32 M=1,N=7,K=1024,off=1 M=127,N=4097,K=992 M=777,N=777,K=32,off=2 M=7,N=1000,K=1024 M=4097,N=127,K=1024,off=1 M=129,N=1000,K=1024 M=129,N=129,K=32,off=2 M=4095,N=8,K=1024 M=7,N=1,K=1024,off=1 M=1000,N=777,K=992 M=8,N=129,K=1024,off=2 M=1,N=777,K=1024 M=4095,N=7,K=992,off=1 M=4097,N=1000,K=32 M=1,N=8,K=1024,off=2 M=7,N=4095,K=32 M=7,N=129,K=32,off=1 M=4097,N=1,K=32 M=127,N=127,K=4096,off=2 M=127,N=7,K=992 M=129,N=777,K=32,off=1 M=4095,N=129,K=992 M=129,N=127,K=32,off=2 M=127,N=1,K=1024 M=777,N=777,K=1024,off=1 M=777,N=1000,K=1024 M=127,N=1,K=992,off=2 M=7,N=4097,K=992 M=7,N=129,K=992,off=1 M=4095,N=127,K=992 M=7,N=8,K=992,off=2 M=4097,N=8,K=1024 M=7,N=8,K=32,off=1 M=129,N=777,K=1024 M=1,N=4095,K=1024,off=2 M=129,N=1,K=992 M=127,N=1,K=4096,off=1 M=129,N=4097,K=1024 M=8,N=129,K=32,off=2 M=7,N=127,K=4096 $UAFORCE32"}
# batched (Bt=3): the first 16 sizes of each, then two aligned ones
UASIZES_B= UASIZES_B32=
for s in $(echo $UASIZES | cut -d' ' -f1-16); do UASIZES_B+="$s,Bt=3 "; done
for s in $(echo $UASIZES_32 | cut -d' ' -f1-16); do UASIZES_B32+="$s,Bt=3 "; done
UASIZES_B+="Bt=16,M=768,N=768,K=256 Bt=3,M=256,N=384,K=1024"
UASIZES_B32+="Bt=16,M=768,N=768,K=256 Bt=3,M=256,N=384,K=1024"
for t in sm_90a sm_80 sm_70; do
	u=${t/_/} l=UASIZES lb=UASIZES_B
	[ $t = sm_70 ] && l=UASIZES_32 lb=UASIZES_B32
	for s in gemm_nn gemm_nt gemm_tn gemm_tt gemm_bias_relu relu_gemm \
		add_gemm gemm_epilogue_chain; do
		CASES+=("ua_${s#gemm_}_$u|examples/$s.tc|--target $t|||$l")
	done
	CASES+=("ua_swiglu_$u|tests/specs/swiglu.tc|--target $t|||$l"
		"ua_scale_res_$u|tests/specs/gemm_f16_scale_res.tc|--target $t|||$l"
		"ua_rowsum_$u|tests/specs/gemm_rowsum.tc|--target $t|||$l"
		"ua_dequant_b_$u|tests/specs/gemm_dequant_b.tc|--target $t|||$l"
		"ua_bmm_nn_$u|tests/specs/bmm_nn.tc|--target $t|||$lb")
	[ $t = sm_70 ] && continue
	CASES+=("ua_f32out_$u|tests/specs/gemm_f32out.tc|--target $t|||$l"
		"ua_bf16_nn_$u|tests/specs/gemm_bf16_nn.tc|--target $t|||$l"
		"ua_i8_nt_$u|tests/specs/gemm_i8_nt.tc|--target $t|||$l")
done
CASES+=("ua_f8_nt_sm90a|tests/specs/gemm_f8e4m3_nt.tc|--target sm_90a|||UASIZES"
	"ua_nn_notma_sm90a|examples/gemm_nn.tc|--target sm_90a --tma off|||UASIZES")

field() { local -a parts; IFS="|" read -r -a parts <<<"$1"; echo "${parts[$2 - 1]:-}"; }
case_of() { local c; for c in "${CASES[@]}"; do [ "${c%%|*}" = "$1" ] && echo "$c"; done; }
with_extra() { local s; for s in $1; do printf '%s%s ' "$s" "$2"; done; }

build_one() {
	local c; c=$(case_of "$1")
	local name=$1 spec gen cu=$W/$1.cu arch
	spec=$(field "$c" 2) gen=$(field "$c" 3)
	exec >"$W/$name.build.log" 2>&1
	rm -f "$W/$name.ok" "$W/$name"
	echo "== $name: $POLYMMA gen $spec -o $cu $gen"
	# shellcheck disable=SC2086
	"$POLYMMA" gen "$spec" -o "$cu" $gen || { echo "== $name: GENERATION FAILED"; exit 1; }
	arch=-arch=sm_80
	[[ $gen == *sm_90a* ]] && arch=-gencode=arch=compute_90a,code=sm_90a
	local kfn; kfn=$(sed -n 's/^def \([A-Za-z0-9_]*\).*/\1/p' "$spec")
	local ws=()
	# NAME_ws and NAME_workspace_size called as NAME_argv calls NAME
	# (check_spec.cu --ws)
	if grep -q "^extern \"C\" size_t ${kfn}_workspace_size(" "$cu"; then
		local call sz
		call=$(sed -n "s/^\treturn $kfn(\(tensors\[.*\)stream);\$/\1/p" "$cu")
		sz=$(grep -o 'sizes\[[0-9]*\]' <<<"$call" | paste -sd, - | sed 's/,/, /g')
		{
			echo "#define CHECK_WS 1"
			grep -q "pm_kc_run_$kfn(" "$cu" && echo "#define CHECK_WS_COPIES 1"
			echo "static cudaError_t ws_argv(void *const *tensors, const int64_t *sizes, void *pm_w, size_t pm_wn, cudaStream_t stream) { (void) sizes; return ${kfn}_ws(${call}pm_w, pm_wn, stream); }"
			echo "static size_t ws_size_argv(const int64_t *sizes) { (void) sizes; return ${kfn}_workspace_size($sz); }"
		} >"$W/$name.ws.h"
		ws=(-DWS_HEADER="\"$PWD/$W/$name.ws.h\"")
	fi
	local cmd=("$NVCC" -O2 "$arch" -std=c++17 -I. -Iinclude -Itests/gpu
		-DKERNEL_FILE="\"$PWD/$cu\"" -DKFN="$kfn" "${ws[@]}" tests/gpu/check_spec.cu "$LIB"
		-o "$W/$name")
	echo "== $name: ${cmd[*]}"
	"${cmd[@]}" || { echo "== $name: COMPILATION FAILED"; exit 1; }
	touch "$W/$name.ok"
}

# A run: $W/sweep/NAME@VARIANT.log (VARIANT "-" : the plan's choice);
# TOOL: compute-sanitizer's tool or "-".
run_one() {
	local name=$1 v=$2 tool=$3 c sizes log pre=()
	c=$(case_of "$name")
	log=$W/sweep/$name@$v${tool/#-/}.log
	local kr; kr=$(field "$c" 5)
	local kvar=KSIZES_${kr:-8}
	local ks=${!kvar}
	sizes=$(with_extra "$SIZES $ks" "$(field "$c" 4)")
	[ "$v" != - ] && sizes=$(with_extra "$FORCE_SIZES $ks" "$(field "$c" 4)")
	local sl; sl=$(field "$c" 6)
	[ -n "$sl" ] && sizes=${!sl}
	if [ "$tool" != - ]; then
		sizes=$(with_extra "$SAN_SIZES ${ks%% *} ${ks##* }" "$(field "$c" 4)")
		# a batched case: its first three sizes (batch 1 and 3)
		[ -n "$sl" ] && sizes=$(tr ' ' '\n' <<<"${!sl}" | head -n 3 | paste -sd ' ' -)
		pre=(compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 10)
		[ "$tool" = memcheck ] && pre+=(--leak-check no)
		log=$W/sweep/$name@$v.$tool.log
	fi
	local wsarg=()
	[ "${SPEC_CHECK_WS:-0}" = 1 ] && wsarg=(--ws)
	echo "== run POLYMMA_VARIANT=$v ${pre[*]} $W/$name $(field "$c" 2) ${wsarg[*]} $sizes" >"$log"
	exec 2>>"$log"
	# shellcheck disable=SC2086
	if [ "$v" = - ]; then timeout "${RUN_TIMEOUT:-900}" "${pre[@]}" "$W/$name" "$(field "$c" 2)" --tag "$name" "${wsarg[@]}" $sizes
	else POLYMMA_VARIANT=$v timeout "${RUN_TIMEOUT:-900}" "${pre[@]}" "$W/$name" "$(field "$c" 2)" --tag "$name" "${wsarg[@]}" $sizes
	fi >>"$log" 2>&1
	echo "rc=$?" >>"$log"
}

if [ "${1:-}" = --build-one ]; then shift; build_one "$@"; exit; fi
if [ "${1:-}" = --run-one ]; then shift; run_one "$@"; exit; fi

do_build=1 do_run=1 do_plain=1 do_force=0 tools='' ONLY=''
while [ $# -gt 0 ]; do
	case $1 in
	--build-only) do_run=0 ;;
	--run-only) do_build=0 ;;
	--force) do_force=1 ;;
	--no-plain) do_plain=0 ;;
	--sanitize) tools=${2//,/ }; shift ;;
	--ws) export SPEC_CHECK_WS=1 ;;
	--only) ONLY=$2; shift ;;
	--list) for c in "${CASES[@]}"; do echo "${c%%|*}"; done; exit 0 ;;
	*) echo "usage: $0 [--build-only | --run-only] [--force] [--no-plain] [--sanitize TOOLS] [--ws] [--only REGEX] [--list]" >&2
	   exit 2 ;;
	esac
	shift
done
names=()
for c in "${CASES[@]}"; do
	[ -z "$ONLY" ] || [[ ${c%%|*} =~ $ONLY ]] && names+=("${c%%|*}")
done
mkdir -p "$W/sweep"
export CHECK_REF_CACHE=${CHECK_REF_CACHE-$W/ref}
rm -f "$W/sweep/san.txt"
LOG=${OUT:-$W}/spec-check.log
RES=$W/results.txt
mkdir -p "$(dirname "$LOG")"
: >"$LOG"
: >"$RES"
if [ $do_build = 1 ]; then
	echo "building ${#names[@]} binaries with $JOBS jobs ..."
	t0=$SECONDS
	printf '%s\n' "${names[@]}" | xargs -P "$JOBS" -L 1 bash "$SELF" --build-one
	echo "built in $((SECONDS - t0)) s"
fi
for n in "${names[@]}"; do
	cat "$W/$n.build.log" >>"$LOG" 2>/dev/null
	[ -e "$W/$n.ok" ] || echo "FAIL $n - not built: $(tail -n 1 "$W/$n.build.log" 2>/dev/null)" | tee -a "$LOG" >>"$RES"
done
[ $do_run = 0 ] && { f=$(grep -c '^FAIL ' "$RES"); echo "build only: $f failed"; [ "$f" = 0 ]; exit; }
{ nvidia-smi -L; "$NVCC" --version | tail -n 1; } >>"$LOG" 2>&1

# The runs: "NAME VARIANT TOOL" lines, RUN_JOBS at a time.
runs=$W/sweep/all.txt
: >"$runs"
for n in "${names[@]}"; do
	[ -e "$W/$n.ok" ] || continue
	[ $do_plain = 1 ] && echo "$n - -" >>"$runs"
	vs=$(file_variants "$W/$n.cu")
	[ -n "${ROWS:-}" ] && vs=$(printf '%s\n' $vs | grep -E -- "$ROWS")
	[ -z "$vs" ] && vs=-
	for v in $vs; do
		[ $do_force = 1 ] && [ "$v" != - ] && echo "$n $v -" >>"$runs"
		for t in $tools; do echo "$n $v $t" >>"$runs"; done
	done
done
echo "$(wc -l <"$runs") runs, $RUN_JOBS at a time ..."
t0=$SECONDS
rm -f "$W"/sweep/*.log
xargs -P "$RUN_JOBS" -L 1 bash "$SELF" --run-one <"$runs"
echo "ran in $((SECONDS - t0)) s"

# Collect: case lines, crashes, sanitizer errors; the forced rows' "never
# legal" through sweep_collect (runs.txt: the forced runs without a tool).
awk '$2 != "-" && $3 == "-" { print $1, $2 }' "$runs" >"$W/sweep/runs.txt"
while read -r n v t; do
	log=$W/sweep/$n@$v.log
	[ "$t" != - ] && log=$W/sweep/$n@$v.$t.log
	[ "$v" != - ] && [ "$t" = - ] && continue	# sweep_collect's
	cat "$log" >>"$LOG"
	grep -E '^(PASS|FAIL|SKIP) ' "$log" >>"$RES"
	grep -qE '^[0-9]+ passed, [0-9]+ failed$' "$log" ||
		echo "FAIL $n@$v $t - crashed or timed out: $(tail -n 2 "$log" | head -n 1)" | tee -a "$LOG" >>"$RES"
	if [ "$t" != - ]; then
		# memcheck, synccheck: "ERROR SUMMARY: N errors"; racecheck:
		# "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)"
		e=$(sed -n -e 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' \
			-e 's/^========= RACECHECK SUMMARY: .*(\([0-9]*\) errors, \([0-9]*\) warnings).*/\1 \2/p' "$log" |
			tail -n 1 | awk '{ print $1 + $2 }')
		echo "SAN $t $n@$v: ${e:-?} errors" >>"$W/sweep/san.txt"
		[ "${e:-1}" = 0 ] || echo "FAIL $n@$v $t - compute-sanitizer: ${e:-no summary} errors" | tee -a "$LOG" >>"$RES"
	fi
done <"$runs"
[ -s "$W/sweep/runs.txt" ] && sweep_collect
if [ -n "$tools" ]; then
	for t in $tools; do
		printf '%-10s %3d runs, %d with errors\n' "$t" "$(grep -c "^SAN $t " "$W/sweep/san.txt")" \
			"$(grep "^SAN $t " "$W/sweep/san.txt" | grep -vc ': 0 errors')"
	done | tee -a "$LOG"
	rm -f "$W/sweep/san.txt"
fi
p=$(grep -c '^PASS ' "$RES"); f=$(grep -c '^FAIL ' "$RES"); s=$(grep -c '^SKIP ' "$RES")
[ "$f" != 0 ] && { echo "failures (first 40):"; grep '^FAIL ' "$RES" | head -n 40; }
echo "log: $LOG"
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ] && [ "$p" != 0 ]
