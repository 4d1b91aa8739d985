// Experiment: time the Add(GEMM, GEMM) launcher of KERNEL_FILE (bench spec)
// at a few sizes with CUDA events (median of 50 after 10 warm-up).
#include KERNEL_FILE
#include <algorithm>
#include <cstdio>
#include <vector>
__global__ void fillk(__half *p, long n, unsigned s) {
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
		p[i] = __float2half((float)((i * 2654435761u + s) % 2001) / 1000.0f - 1.0f);
}
int main(int argc, char **argv) {
	for (int a = 1; a < argc; ++a) {
		long M, N, K;
		sscanf(argv[a], "%ldx%ldx%ld", &M, &N, &K);
		__half *A, *B, *E, *F, *O;
		cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2);
		cudaMalloc(&E, M * K * 2); cudaMalloc(&F, K * N * 2); cudaMalloc(&O, M * N * 2);
		fillk<<<256, 256>>>(A, M * K, 1); fillk<<<256, 256>>>(B, K * N, 2);
		fillk<<<256, 256>>>(E, M * K, 3); fillk<<<256, 256>>>(F, K * N, 4);
		cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
		std::vector<float> t;
		for (int r = 0; r < 60; ++r) {
			cudaEventRecord(e0);
			cudaError_t err = pm_add_gemm(A, B, E, F, O, M, N, K, 0);
			cudaEventRecord(e1); cudaEventSynchronize(e1);
			if (err) { printf("error %s\n", cudaGetErrorName(err)); return 1; }
			float ms; cudaEventElapsedTime(&ms, e0, e1); if (r >= 10) t.push_back(ms);
		}
		std::sort(t.begin(), t.end());
		printf("%s %s %.2f us\n", KERNEL_FILE, argv[a], t[t.size() / 2] * 1000);
		cudaFree(A); cudaFree(B); cudaFree(E); cudaFree(F); cudaFree(O);
	}
}
