// bench/dtype.cuh — the element type bench.cu is compiled for: run.sh
// --dtype DT passes -DBENCH_DTYPE=BENCH_DT_<DT> (default f16). Everything
// that depends on it is here, in namespace dt: the device and host types,
// the cuBLAS / cuBLASLt type and compute enums, the input distribution, the
// gate's comparison and tolerances, and the CSV's description of the run.
//
//   f16, bf16  A (M x K), B (K x N) row-major, C row-major (M x N) of the
//              same type, fp32 accumulation: the four idioms.
//   i8         A (M x K), B (N x K) int8, both K-major (cuBLASLt's "TN":
//              its int8 kernels require it), C int32, int32 accumulation:
//              GEMM only; outputs must match exactly.
//   f8         A, B fp8 e4m3, K-major as for i8, C bf16, fp32 accumulation,
//              per-tensor scales (1.0) for cuBLASLt: GEMM only.
#ifndef PM_BENCH_DTYPE_CUH
#define PM_BENCH_DTYPE_CUH

#define BENCH_DT_F16 0
#define BENCH_DT_BF16 1
#define BENCH_DT_I8 2
#define BENCH_DT_F8 3
#ifndef BENCH_DTYPE
#define BENCH_DTYPE BENCH_DT_F16
#endif

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <cstdint>
#include <vector>

#include "random.cuh"
#include "stats.h"

#if BENCH_DTYPE == BENCH_DT_F8
// fp8 (cuda_fp8.h, CUDA_R_8F_E4M3, the cuBLASLt scale pointers) came with
// CUDA 11.8; Hopper's fp8 cuBLASLt kernels with cuBLAS 12.
#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000
#error "bench --dtype f8 needs CUDA 12 or later (cuda_fp8.h, CUDA_R_8F_E4M3 in cuBLASLt)"
#endif
#include <cuda_fp8.h>
#endif

namespace dt {

#if BENCH_DTYPE == BENCH_DT_F16
using In = __half;		// A, B (E, F, bias) on the device
using Out = __half;		// C (O and the temporaries)
using InBits = uint16_t;	// the same bits on the host
using OutBits = uint16_t;
using Scale = float;		// alpha, beta
constexpr cudaDataType_t in_type = CUDA_R_16F, out_type = CUDA_R_16F,
	scale_type = CUDA_R_32F;
constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
constexpr const char *name = "f16";
#elif BENCH_DTYPE == BENCH_DT_BF16
using In = __nv_bfloat16;
using Out = __nv_bfloat16;
using InBits = uint16_t;
using OutBits = uint16_t;
using Scale = float;
constexpr cudaDataType_t in_type = CUDA_R_16BF, out_type = CUDA_R_16BF,
	scale_type = CUDA_R_32F;
constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
constexpr const char *name = "bf16";
#elif BENCH_DTYPE == BENCH_DT_I8
using In = int8_t;
using Out = int32_t;
using InBits = int8_t;
using OutBits = int32_t;
using Scale = int32_t;	// CUBLAS_COMPUTE_32I with an int32 output: int32 alpha, beta
constexpr cudaDataType_t in_type = CUDA_R_8I, out_type = CUDA_R_32I,
	scale_type = CUDA_R_32I;
constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32I;
constexpr const char *name = "i8";
#elif BENCH_DTYPE == BENCH_DT_F8
using In = __nv_fp8_e4m3;
using Out = __nv_bfloat16;
using InBits = uint8_t;
using OutBits = uint16_t;
using Scale = float;
constexpr cudaDataType_t in_type = CUDA_R_8F_E4M3, out_type = CUDA_R_16BF,
	scale_type = CUDA_R_32F;
constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
constexpr const char *name = "f8";
#else
#error "BENCH_DTYPE: BENCH_DT_F16, BENCH_DT_BF16, BENCH_DT_I8 or BENCH_DT_F8"
#endif
static_assert(sizeof(In) == sizeof(InBits) && sizeof(Out) == sizeof(OutBits),
	"host bits of the element types");

constexpr bool is_f16 = BENCH_DTYPE == BENCH_DT_F16;
constexpr bool is_i8 = BENCH_DTYPE == BENCH_DT_I8;
constexpr bool is_f8 = BENCH_DTYPE == BENCH_DT_F8;
// i8 and f8: the GEMM idiom only, B stored N x K (K-major, "TN" for
// cuBLASLt), and the gate's reference is cuBLASLt (the brief's baseline;
// cublasGemmEx has no fp8). f16, bf16: B K x N, the reference cublasGemmEx.
constexpr bool gemm_only = is_i8 || is_f8;
constexpr bool b_kmajor = is_i8 || is_f8;
constexpr bool has_gemm_ex = !is_f8;
constexpr int ref_variant = gemm_only ? 2 : 1;	// 1 cublas, 2 cublaslt
// The gate's tolerances (stats.h): i32 exactly, bf16 outputs 8x fp16's.
constexpr double tol_rel = is_i8 ? 0.0 : is_f16 ? BENCH_TOL_REL_L2 : BENCH_TOL_REL_L2_BF16;
constexpr double tol_max = is_i8 ? 0.0 : is_f16 ? BENCH_TOL_MAX : BENCH_TOL_MAX_BF16;
// Poison for the outputs: all-ones halves are NaN (f16 and bf16);
// 0x80808080 is an int32 no i8 product of K <= 131071 reaches.
constexpr int poison_byte = is_i8 ? 0x80 : 0xFF;

constexpr const char *describe =
#if BENCH_DTYPE == BENCH_DT_F16
	"f16: A, B, bias and C fp16, row-major, B K x N; fp32 accumulation (cuBLAS "
	"CUDA_R_16F, CUBLAS_COMPUTE_32F); inputs uniform in [-1, 1]";
#elif BENCH_DTYPE == BENCH_DT_BF16
	"bf16: A, B, bias and C bf16, row-major, B K x N; fp32 accumulation (cuBLAS "
	"and cuBLASLt CUDA_R_16BF, CUBLAS_COMPUTE_32F); inputs uniform in [-1, 1] "
	"rounded to bf16; gate tolerances 8x fp16's";
#elif BENCH_DTYPE == BENCH_DT_I8
	"i8: A (M x K) and B (N x K) int8, both K-major (TN), C int32 row-major; "
	"int32 accumulation (cuBLASLt CUDA_R_8I x CUDA_R_8I -> CUDA_R_32I, "
	"CUBLAS_COMPUTE_32I, TN); inputs uniform in [-128, 127]; outputs must match "
	"exactly; tflops are TOP/s; GEMM only";
#else
	"f8: A (M x K) and B (N x K) fp8 e4m3, both K-major (TN), C bf16 row-major; "
	"fp32 accumulation (cuBLASLt CUDA_R_8F_E4M3 x CUDA_R_8F_E4M3 -> CUDA_R_16BF, "
	"CUBLAS_COMPUTE_32F, TN, per-tensor A/B scale pointers = 1.0); inputs uniform in [-1, 1] rounded to e4m3; gate "
	"tolerances as bf16's; GEMM only";
#endif

// ---- host: values and the gate --------------------------------------------
inline double in_value(InBits b) {
#if BENCH_DTYPE == BENCH_DT_F16
	return bench_half_to_float(b);
#elif BENCH_DTYPE == BENCH_DT_BF16
	return bench_bf16_to_float(b);
#elif BENCH_DTYPE == BENCH_DT_I8
	return b;
#else
	return bench_e4m3_to_float(b);
#endif
}
inline double out_value(OutBits b) {
#if BENCH_DTYPE == BENCH_DT_F16
	return bench_half_to_float(b);
#elif BENCH_DTYPE == BENCH_DT_I8
	return b;
#else
	return bench_bf16_to_float(b);
#endif
}
// OUT against REF, all N elements.
inline bench_cmp compare(const OutBits *out, const OutBits *ref, int64_t n) {
#if BENCH_DTYPE == BENCH_DT_F16
	return bench_compare_f16(out, ref, n, tol_rel, tol_max);
#elif BENCH_DTYPE == BENCH_DT_I8
	return bench_compare_i32(out, ref, n, tol_rel, tol_max);
#else
	return bench_compare_bf16(out, ref, n, tol_rel, tol_max);
#endif
}
// Outputs OUT (as values) against fp64 REF: in float for the float types
// (as before --dtype), in double (exactly) for i32.
inline bench_cmp compare_values(const double *out, const double *ref, int64_t n) {
	if (is_i8)
		return bench_compare_f64(out, ref, n, tol_rel, tol_max);
	std::vector<float> o(out, out + n), r(ref, ref + n);
	return bench_compare(o.data(), r.data(), n, tol_rel, tol_max);
}

// ---- device: random inputs --------------------------------------------------
__device__ __forceinline__ In rand_elem(uint64_t seed, int64_t i) {
#if BENCH_DTYPE == BENCH_DT_F16
	return __float2half_rn(bench_rand_pm1(seed, i));	// fill_kernel's values
#elif BENCH_DTYPE == BENCH_DT_BF16
	return __float2bfloat16_rn(bench_rand_pm1(seed, i));
#elif BENCH_DTYPE == BENCH_DT_I8
	return (int8_t)((int)(bench_rand_bits(seed, i) >> 56) - 128);	// [-128, 127]
#else
	return __nv_fp8_e4m3(bench_rand_pm1(seed, i));	// nearest, saturating
#endif
}

} // namespace dt

#endif
