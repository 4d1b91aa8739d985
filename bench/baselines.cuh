// bench/baselines.cuh — included by bench.cu inside its anonymous
// namespace: the device helpers (input fill, the pointwise kernels of the
// unfused baselines), the input sets, and the cuBLAS / cuBLASLt calls of the
// two baselines on row-major data.
// ---- device helpers -------------------------------------------------------
#include "random.cuh"	// fill_kernel

// The baselines' separate pointwise kernels: 8 halves (16 bytes) a thread
// where the size allows, grid-stride, fp32 arithmetic, one rounding.
__device__ __forceinline__ bool vec_ok(const void *p, int64_t n) {
	return n % 8 == 0 && ((uintptr_t)p & 15) == 0;
}

__global__ void relu_kernel(const __half *in, __half *out, int64_t n) {
	int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if (vec_ok(in, n) && vec_ok(out, n)) {
		const __half2 z = __float2half2_rn(0.0f);
		for (int64_t v = t; v < n / 8; v += stride) {
			uint4 x = reinterpret_cast<const uint4 *>(in)[v];
			__half2 *h = reinterpret_cast<__half2 *>(&x);
			for (int q = 0; q < 4; ++q)
				h[q] = __hmax2(h[q], z);
			reinterpret_cast<uint4 *>(out)[v] = x;
		}
	} else {
		for (int64_t i = t; i < n; i += stride)
			out[i] = __float2half_rn(fmaxf(__half2float(in[i]), 0.0f));
	}
}

// C(i, j) = C(i, j) + bias(j), or relu of that when Relu; C row-major
// M x N, in place. The paper's baseline runs bias<false> then relu_kernel
// (one kernel per operation); bias<true> is the hand-fused bias+ReLU
// kernel of the stricter cublas_1pw baseline.
__device__ __forceinline__ float bias_act(float x, bool relu) {
	return relu ? fmaxf(x, 0.0f) : x;
}
template <bool Relu>
__global__ void bias_kernel(__half *C, const __half *bias, int64_t M, int64_t N) {
	int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x, n = M * N;
	if (N % 8 == 0 && vec_ok(C, n) && vec_ok(bias, N)) {
		for (int64_t v = t; v < n / 8; v += stride) {
			int64_t j = (v * 8) % N;
			uint4 x = reinterpret_cast<const uint4 *>(C)[v];
			uint4 b = *reinterpret_cast<const uint4 *>(bias + j);
			__half2 *h = reinterpret_cast<__half2 *>(&x);
			const __half2 *hb = reinterpret_cast<const __half2 *>(&b);
			for (int q = 0; q < 4; ++q) {
				float2 c = __half22float2(h[q]), d = __half22float2(hb[q]);
				h[q] = __floats2half2_rn(bias_act(c.x + d.x, Relu),
					bias_act(c.y + d.y, Relu));
			}
			reinterpret_cast<uint4 *>(C)[v] = x;
		}
	} else {
		for (int64_t i = t; i < n; i += stride)
			C[i] = __float2half_rn(bias_act(__half2float(C[i]) +
				__half2float(bias[i % N]), Relu));
	}
}

// O = X + Y
__global__ void add_kernel(const __half *X, const __half *Y, __half *O, int64_t n) {
	int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if (vec_ok(X, n) && vec_ok(Y, n) && vec_ok(O, n)) {
		for (int64_t v = t; v < n / 8; v += stride) {
			uint4 x = reinterpret_cast<const uint4 *>(X)[v];
			uint4 y = reinterpret_cast<const uint4 *>(Y)[v];
			__half2 *hx = reinterpret_cast<__half2 *>(&x);
			const __half2 *hy = reinterpret_cast<const __half2 *>(&y);
			for (int q = 0; q < 4; ++q) {
				float2 a = __half22float2(hx[q]), b = __half22float2(hy[q]);
				hx[q] = __floats2half2_rn(a.x + b.x, a.y + b.y);
			}
			reinterpret_cast<uint4 *>(O)[v] = x;
		}
	} else {
		for (int64_t i = t; i < n; i += stride)
			O[i] = __float2half_rn(__half2float(X[i]) + __half2float(Y[i]));
	}
}

int sm_count = 132;
unsigned grid_for(int64_t n) {
	int64_t b = (n / 8 + 255) / 256;
	return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, (int64_t)sm_count * 16));
}


struct Set {	// one input set, its output and the baselines' temporaries
	__half *A = nullptr, *B = nullptr, *E = nullptr, *F = nullptr, *bias = nullptr;
	__half *O = nullptr, *Ar = nullptr, *T1 = nullptr, *T2 = nullptr;
};

struct LtPlan {
	cublasLtMatmulDesc_t desc = nullptr;
	std::vector<cublasLtMatmulDesc_t> bias_desc;	// one per set (bias pointer)
	cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
	cublasLtMatmulAlgo_t algo;
	std::string info, err;
	~LtPlan() {
		if (desc) cublasLtMatmulDescDestroy(desc);
		for (auto d : bias_desc) if (d) cublasLtMatmulDescDestroy(d);
		if (la) cublasLtMatrixLayoutDestroy(la);
		if (lb) cublasLtMatrixLayoutDestroy(lb);
		if (ld) cublasLtMatrixLayoutDestroy(ld);
	}
};

std::string lt_err(const char *what, cublasStatus_t s) {
	return std::string(what) + ": " + cublasGetStatusString(s);
}

// cuBLASLt on row-major data: O^T (N x M, column-major) = B^T (N x K) * A^T
// (K x M), which are the row-major buffers B, A read as column-major. The
// bias (length N) runs along the rows of O^T, i.e. one value per column j.
bool lt_prepare(LtPlan &p, Idiom id, int64_t M, int64_t N, int64_t K,
	const std::vector<Set> &sets) {
	cublasStatus_t s;
#define LTCK(x) do { s = (x); if (s != CUBLAS_STATUS_SUCCESS) { \
	p.err = lt_err(#x, s); return false; } } while (0)
	LTCK(cublasLtMatrixLayoutCreate(&p.la, CUDA_R_16F, N, K, N));
	LTCK(cublasLtMatrixLayoutCreate(&p.lb, CUDA_R_16F, K, M, K));
	LTCK(cublasLtMatrixLayoutCreate(&p.ld, CUDA_R_16F, N, M, N));
	cublasLtMatmulDesc_t query;
	if (id == GEMM_BIAS_RELU) {
		cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_RELU_BIAS;
		for (const Set &x : sets) {
			cublasLtMatmulDesc_t d;
			LTCK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
			p.bias_desc.push_back(d);
			LTCK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE,
				&ep, sizeof ep));
			const void *bp = x.bias;
			LTCK(cublasLtMatmulDescSetAttribute(d,
				CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
		}
		query = p.bias_desc[0];
	} else {
		LTCK(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
		query = p.desc;
	}
	cublasLtMatmulPreference_t pref;
	LTCK(cublasLtMatmulPreferenceCreate(&pref));
	uint64_t ws = kLtWs;
	s = cublasLtMatmulPreferenceSetAttribute(pref,
		CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
	cublasLtMatmulHeuristicResult_t res;
	int nres = 0;
	if (s == CUBLAS_STATUS_SUCCESS)
		s = cublasLtMatmulAlgoGetHeuristic(lt, query, p.la, p.lb, p.ld, p.ld,
			pref, 1, &res, &nres);
	cublasLtMatmulPreferenceDestroy(pref);
	if (s != CUBLAS_STATUS_SUCCESS) {
		p.err = lt_err("cublasLtMatmulAlgoGetHeuristic", s);
		return false;
	}
	if (nres < 1) {
		p.err = "cublasLtMatmulAlgoGetHeuristic: no algorithm";
		return false;
	}
	p.algo = res.algo;
	int32_t algo_id = -1;
	uint32_t tile = 0, stages = 0;
	size_t w;
	cublasLtMatmulAlgoConfigGetAttribute(&p.algo, CUBLASLT_ALGO_CONFIG_ID,
		&algo_id, sizeof algo_id, &w);
	cublasLtMatmulAlgoConfigGetAttribute(&p.algo, CUBLASLT_ALGO_CONFIG_TILE_ID,
		&tile, sizeof tile, &w);
	cublasLtMatmulAlgoConfigGetAttribute(&p.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID,
		&stages, sizeof stages, &w);
	char b[96];
	snprintf(b, sizeof b, "cublasLt algo=%d tile=%u stages=%u", algo_id, tile, stages);
	p.info = b;
	return true;
#undef LTCK
}

cublasStatus_t lt_matmul(const LtPlan &p, cublasLtMatmulDesc_t d, const __half *A,
	const __half *B, __half *O, float beta) {
	const float one = 1.0f;
	return cublasLtMatmul(lt, d, &one, B, p.la, A, p.lb, &beta, O, p.ld, O, p.ld,
		&p.algo, lt_ws, kLtWs, st);
}

// cublasGemmEx on row-major data (the same transposition as above).
cublasStatus_t gemm_ex(const __half *A, const __half *B, __half *C, int64_t M,
	int64_t N, int64_t K) {
	const float one = 1.0f, zero = 0.0f;
	return cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K,
		&one, B, CUDA_R_16F, (int)N, A, CUDA_R_16F, (int)K, &zero, C,
		CUDA_R_16F, (int)N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

std::string blas_err(cublasStatus_t s) {
	return s == CUBLAS_STATUS_SUCCESS ? "" : std::string(cublasGetStatusString(s));
}
std::string cuda_err(cudaError_t e) {
	return e == cudaSuccess ? "" : std::string(cudaGetErrorName(e));
}
