// bench/baselines.cuh — included by bench.cu inside its anonymous
// namespace: the device helpers (input fill, the pointwise kernels of the
// unfused baselines), the input sets, and the cuBLAS / cuBLASLt calls of the
// two baselines on row-major data, for the element type of dtype.cuh.
using dt::In;
using dt::Out;

// ---- device helpers -------------------------------------------------------
// Random inputs of the element type (dtype.cuh): for f16 the values of
// random.cuh's fill_kernel.
__global__ void fill_typed(In *p, int64_t n, uint64_t seed) {
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		p[i] = dt::rand_elem(seed, i);
}

// The baselines' separate pointwise kernels (f16 and bf16; i8 and f8 have
// the GEMM idiom only): 8 elements (16 bytes) a thread where the size
// allows, grid-stride, fp32 arithmetic, one rounding. PW<T>: T's pairs and
// conversions.
template <class T> struct PW;
template <> struct PW<__half> {
	using T2 = __half2;
	static __device__ __forceinline__ float2 to2(T2 x) { return __half22float2(x); }
	static __device__ __forceinline__ T2 from2(float a, float b) {
		return __floats2half2_rn(a, b);
	}
	static __device__ __forceinline__ float to(__half x) { return __half2float(x); }
	static __device__ __forceinline__ __half from(float x) { return __float2half_rn(x); }
};
template <> struct PW<__nv_bfloat16> {
	using T2 = __nv_bfloat162;
	static __device__ __forceinline__ float2 to2(T2 x) { return __bfloat1622float2(x); }
	static __device__ __forceinline__ T2 from2(float a, float b) {
		return __floats2bfloat162_rn(a, b);
	}
	static __device__ __forceinline__ float to(__nv_bfloat16 x) {
		return __bfloat162float(x);
	}
	static __device__ __forceinline__ __nv_bfloat16 from(float x) {
		return __float2bfloat16_rn(x);
	}
};

__device__ __forceinline__ bool vec_ok(const void *p, int64_t n) {
	return n % 8 == 0 && ((uintptr_t)p & 15) == 0;
}

template <class T>
__global__ void relu_kernel(const T *in, T *out, int64_t n) {
	using P = PW<T>;
	using T2 = typename P::T2;
	int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if (vec_ok(in, n) && vec_ok(out, n)) {
		const T2 z = P::from2(0.0f, 0.0f);
		for (int64_t v = t; v < n / 8; v += stride) {
			uint4 x = reinterpret_cast<const uint4 *>(in)[v];
			T2 *h = reinterpret_cast<T2 *>(&x);
			for (int q = 0; q < 4; ++q)
				h[q] = __hmax2(h[q], z);
			reinterpret_cast<uint4 *>(out)[v] = x;
		}
	} else {
		for (int64_t i = t; i < n; i += stride)
			out[i] = P::from(fmaxf(P::to(in[i]), 0.0f));
	}
}

// C(i, j) = C(i, j) + bias(j), or relu of that when Relu; C row-major
// M x N, in place. The paper's baseline runs bias<false> then relu_kernel
// (one kernel per operation); bias<true> is the hand-fused bias+ReLU
// kernel of the stricter cublas_1pw baseline.
__device__ __forceinline__ float bias_act(float x, bool relu) {
	return relu ? fmaxf(x, 0.0f) : x;
}
template <class T, bool Relu>
__global__ void bias_kernel(T *C, const T *bias, int64_t M, int64_t N) {
	using P = PW<T>;
	using T2 = typename P::T2;
	int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x, n = M * N;
	if (N % 8 == 0 && vec_ok(C, n) && vec_ok(bias, N)) {
		for (int64_t v = t; v < n / 8; v += stride) {
			int64_t j = (v * 8) % N;
			uint4 x = reinterpret_cast<const uint4 *>(C)[v];
			uint4 b = *reinterpret_cast<const uint4 *>(bias + j);
			T2 *h = reinterpret_cast<T2 *>(&x);
			const T2 *hb = reinterpret_cast<const T2 *>(&b);
			for (int q = 0; q < 4; ++q) {
				float2 c = P::to2(h[q]), d = P::to2(hb[q]);
				h[q] = P::from2(bias_act(c.x + d.x, Relu),
					bias_act(c.y + d.y, Relu));
			}
			reinterpret_cast<uint4 *>(C)[v] = x;
		}
	} else {
		for (int64_t i = t; i < n; i += stride)
			C[i] = P::from(bias_act(P::to(C[i]) + P::to(bias[i % N]), Relu));
	}
}

// O = X + Y
template <class T>
__global__ void add_kernel(const T *X, const T *Y, T *O, int64_t n) {
	using P = PW<T>;
	using T2 = typename P::T2;
	int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	if (vec_ok(X, n) && vec_ok(Y, n) && vec_ok(O, n)) {
		for (int64_t v = t; v < n / 8; v += stride) {
			uint4 x = reinterpret_cast<const uint4 *>(X)[v];
			uint4 y = reinterpret_cast<const uint4 *>(Y)[v];
			T2 *hx = reinterpret_cast<T2 *>(&x);
			const T2 *hy = reinterpret_cast<const T2 *>(&y);
			for (int q = 0; q < 4; ++q) {
				float2 a = P::to2(hx[q]), b = P::to2(hy[q]);
				hx[q] = P::from2(a.x + b.x, a.y + b.y);
			}
			reinterpret_cast<uint4 *>(O)[v] = x;
		}
	} else {
		for (int64_t i = t; i < n; i += stride)
			O[i] = P::from(P::to(X[i]) + P::to(Y[i]));
	}
}

int sm_count = 132;
unsigned grid_for(int64_t n) {
	int64_t b = (n / 8 + 255) / 256;
	return (unsigned)std::max<int64_t>(1, std::min<int64_t>(b, (int64_t)sm_count * 16));
}


struct Set {	// one input set, its output and the baselines' temporaries
	In *A = nullptr, *B = nullptr, *E = nullptr, *F = nullptr, *bias = nullptr;
	In *Ar = nullptr;	// relu(A) (f16, bf16: In == Out)
	Out *O = nullptr, *T1 = nullptr, *T2 = nullptr;
};

// f8: the per-tensor scales of A and B for cuBLASLt (device floats, 1.0;
// set by main) and whether its fp8 fast accumulation is on (--fast-accum).
float *lt_scale_one = nullptr;
bool lt_fast_accum = false;

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
// i8 and f8 (dt::b_kmajor: B is stored N x K, K-major): the row-major N x K
// buffer B read as column-major is K x N (ld K), so cuBLASLt's A is B
// transposed and its B is A as before: "TN", as its int8 and fp8 kernels
// require.
bool lt_prepare(LtPlan &p, Idiom id, int64_t M, int64_t N, int64_t K,
	const std::vector<Set> &sets) {
	cublasStatus_t s;
#define LTCK(x) do { s = (x); if (s != CUBLAS_STATUS_SUCCESS) { \
	p.err = lt_err(#x, s); return false; } } while (0)
	if (dt::b_kmajor)
		LTCK(cublasLtMatrixLayoutCreate(&p.la, dt::in_type, K, N, K));
	else
		LTCK(cublasLtMatrixLayoutCreate(&p.la, dt::in_type, N, K, N));
	LTCK(cublasLtMatrixLayoutCreate(&p.lb, dt::in_type, K, M, K));
	LTCK(cublasLtMatrixLayoutCreate(&p.ld, dt::out_type, N, M, N));
	auto make_desc = [&](cublasLtMatmulDesc_t *d) -> bool {
		LTCK(cublasLtMatmulDescCreate(d, dt::compute, dt::scale_type));
		if (dt::b_kmajor) {
			cublasOperation_t op = CUBLAS_OP_T;
			LTCK(cublasLtMatmulDescSetAttribute(*d, CUBLASLT_MATMUL_DESC_TRANSA,
				&op, sizeof op));
		}
		if (dt::is_f8) {	// per-tensor scales (of cuBLASLt's A and B)
			const void *sp = lt_scale_one;
			int8_t fast = lt_fast_accum;
			LTCK(cublasLtMatmulDescSetAttribute(*d,
				CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sp, sizeof sp));
			LTCK(cublasLtMatmulDescSetAttribute(*d,
				CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sp, sizeof sp));
			LTCK(cublasLtMatmulDescSetAttribute(*d,
				CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
		}
		return true;
	};
	cublasLtMatmulDesc_t query;
	if (id == GEMM_BIAS_RELU) {
		cublasLtEpilogue_t ep = CUBLASLT_EPILOGUE_RELU_BIAS;
		for (const Set &x : sets) {
			cublasLtMatmulDesc_t d = nullptr;
			bool ok = make_desc(&d);
			if (d)
				p.bias_desc.push_back(d);
			if (!ok)
				return false;
			LTCK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE,
				&ep, sizeof ep));
			const void *bp = x.bias;
			LTCK(cublasLtMatmulDescSetAttribute(d,
				CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
		}
		query = p.bias_desc[0];
	} else {
		if (!make_desc(&p.desc))
			return false;
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
	char b[128];
	snprintf(b, sizeof b, "cublasLt algo=%d tile=%u stages=%u%s%s", algo_id, tile,
		stages, dt::b_kmajor ? " TN" : "",
		dt::is_f8 ? (lt_fast_accum ? " fast_accum=1" : " fast_accum=0") : "");
	p.info = b;
	return true;
#undef LTCK
}

cublasStatus_t lt_matmul(const LtPlan &p, cublasLtMatmulDesc_t d, const In *A,
	const In *B, Out *O, float beta) {
	const dt::Scale one = 1, b = (dt::Scale)beta;
	return cublasLtMatmul(lt, d, &one, B, p.la, A, p.lb, &b, O, p.ld, O, p.ld,
		&p.algo, lt_ws, kLtWs, st);
}

// cublasGemmEx on row-major data (the same transposition as above; i8: TN
// as well). f8 has none: cublasGemmEx takes no fp8.
cublasStatus_t gemm_ex(const In *A, const In *B, Out *C, int64_t M, int64_t N,
	int64_t K) {
	const dt::Scale one = 1, zero = 0;
	if (dt::b_kmajor)
		return cublasGemmEx(blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)N, (int)M, (int)K,
			&one, B, dt::in_type, (int)K, A, dt::in_type, (int)K, &zero, C,
			dt::out_type, (int)N, dt::compute, CUBLAS_GEMM_DEFAULT);
	return cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K,
		&one, B, dt::in_type, (int)N, A, dt::in_type, (int)K, &zero, C,
		dt::out_type, (int)N, dt::compute, CUBLAS_GEMM_DEFAULT);
}

// "" or what went wrong; a library that does not support the call (e.g.
// cublasGemmEx for i8 on some version) makes the row "unsupported": the
// prefix kUnsupported says so to the gate.
const std::string kUnsupported = "unsupported: ";
std::string blas_err(cublasStatus_t s) {
	if (s == CUBLAS_STATUS_SUCCESS)
		return "";
	std::string e = cublasGetStatusString(s);
	return s == CUBLAS_STATUS_NOT_SUPPORTED ? kUnsupported + e : e;
}
std::string cuda_err(cudaError_t e) {
	return e == cudaSuccess ? "" : std::string(cudaGetErrorName(e));
}
