/* The C drivers of test_host_render.c: each allocates the inputs and
 * outputs at their exact sizes, fills the inputs, poisons the outputs with
 * NaN, calls the host rendering (CALL) and checks every output element
 * against a naive reference, printing "N wrong" and exiting nonzero on a
 * mismatch. */
#ifndef PM_TEST_HOST_RENDER_DRIVERS_H
#define PM_TEST_HOST_RENDER_DRIVERS_H

/* One contraction, layouts A_KM / B_NK, prologues PRO_A / PRO_B. */
static const char driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);\n"
	"\tfloat *A = malloc(sizeof(float) * M * K);\n"
	"\tfloat *B = malloc(sizeof(float) * K * N);\n"
	"\tfloat *C = malloc(sizeof(float) * M * N);\n"
	"\tlong bad = 0;\n"
	"\tfor (long i = 0; i < M * K; ++i) A[i] = (float) ((i * 7 + 3) % 11 - 5);\n"
	"\tfor (long i = 0; i < K * N; ++i) B[i] = (float) ((i * 5 + 1) % 13 - 6);\n"
	"\tfor (long i = 0; i < M * N; ++i) C[i] = NAN;\n"
	"\tCALL;\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tdouble s = 0;\n"
	"\t\t\tfor (long k = 0; k < K; ++k)\n"
	"\t\t\t\ts += (double) PRO_A(A_KM ? A[k * M + i] : A[i * K + k]) *\n"
	"\t\t\t\t\tPRO_B(B_NK ? B[j * K + k] : B[k * N + j]);\n"
	"\t\t\tif (!(C[i * N + j] == s) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"C[%ld][%ld] = %g, expected %g\\n\",\n"
	"\t\t\t\t\ti, j, C[i * N + j], s);\n"
	"\t\t}\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n"
	"\tfree(A);\n\tfree(B);\n\tfree(C);\n\treturn bad != 0;\n}\n";

/* Epilogue chains, rendered on the host against a reference. */
static const char epi_driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);\n"
	"\tfloat *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);\n"
	"\tfloat *bias = malloc(sizeof(float) * N), *s = malloc(sizeof(float) * M);\n"
	"\tfloat *R = malloc(sizeof(float) * M * N), *C = malloc(sizeof(float) * M * N);\n"
	"\tlong bad = 0;\n"
	"\tfor (long i = 0; i < M * K; ++i) A[i] = (float) ((i * 7 + 3) % 11 - 5) / 4;\n"
	"\tfor (long i = 0; i < K * N; ++i) B[i] = (float) ((i * 5 + 1) % 13 - 6) / 4;\n"
	"\tfor (long i = 0; i < N; ++i) bias[i] = (float) (i % 7 - 3);\n"
	"\tfor (long i = 0; i < M; ++i) s[i] = (float) (i % 5 - 2) / 2;\n"
	"\tfor (long i = 0; i < M * N; ++i) { R[i] = (float) (i % 9 - 4); C[i] = NAN; }\n"
	"\tCALL;\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tfloat v = 0;\n"
	"\t\t\tfor (long k = 0; k < K; ++k) v += A[i * K + k] * B[k * N + j];\n"
	"\t\t\tv = EPI;\n"
	"\t\t\tif (!(fabsf(C[i * N + j] - v) <= 1e-4f * (1 + fabsf(v))) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"C[%ld][%ld] = %g, expected %g\\n\", i, j, C[i * N + j], v);\n"
	"\t\t}\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n\treturn bad != 0;\n}\n";

/* Two contractions with their own reduction extents and layouts,
 * combined by a pointwise statement (idiom 4): O = relu(C + D / 2). */
static const char add_driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]), L = atol(argv[4]);\n"
	"\tfloat *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);\n"
	"\tfloat *E = malloc(sizeof(float) * L * M), *F = malloc(sizeof(float) * N * L);\n"
	"\tfloat *O = malloc(sizeof(float) * M * N);\n\tlong bad = 0;\n"
	"\tfor (long i = 0; i < M * K; ++i) A[i] = (float) ((i * 7 + 3) % 11 - 5);\n"
	"\tfor (long i = 0; i < K * N; ++i) B[i] = (float) ((i * 5 + 1) % 13 - 6);\n"
	"\tfor (long i = 0; i < L * M; ++i) E[i] = (float) ((i * 3 + 2) % 7 - 3);\n"
	"\tfor (long i = 0; i < N * L; ++i) F[i] = (float) ((i * 11 + 5) % 9 - 4);\n"
	"\tfor (long i = 0; i < M * N; ++i) O[i] = NAN;\n"
	"\tCALL;\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tfloat c = 0, d = 0;\n"
	"\t\t\tfor (long k = 0; k < K; ++k) c += A[i * K + k] * B[k * N + j];\n"
	"\t\t\tfor (long l = 0; l < L; ++l) d += E[l * M + i] * F[j * L + l];\n"
	"\t\t\tfloat v = SHARED ? (d + c) / 2 : c + d / 2; v = v > 0 ? v : 0;\n"
	"\t\t\tif (!(O[i * N + j] == v) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"O[%ld][%ld] = %g, expected %g\\n\", i, j, O[i * N + j], v);\n"
	"\t\t}\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n\treturn bad != 0;\n}\n";

/* Two contractions sharing an operand, O = silu(G) * U: SHARED_B 0,
 * G = P Q and U = P PRO_R(R) (P, the shared X, M x K; Q, R K x N);
 * SHARED_B 1, G = P Q and U = R^T Q (R K x M; Q, the shared W). */
static const char shared_driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);\n"
	"\tlong nr = K * (SHARED_B ? M : N);\n"
	"\tfloat *P = malloc(sizeof(float) * M * K), *Q = malloc(sizeof(float) * K * N);\n"
	"\tfloat *R = malloc(sizeof(float) * nr), *O = malloc(sizeof(float) * M * N);\n"
	"\tlong bad = 0;\n"
	"\tfor (long i = 0; i < M * K; ++i) P[i] = (float) ((i * 7 + 3) % 11 - 5) / 4;\n"
	"\tfor (long i = 0; i < K * N; ++i) Q[i] = (float) ((i * 5 + 1) % 13 - 6) / 4;\n"
	"\tfor (long i = 0; i < nr; ++i) R[i] = (float) ((i * 3 + 2) % 7 - 3) / 4;\n"
	"\tfor (long i = 0; i < M * N; ++i) O[i] = NAN;\n"
	"\tCALL;\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tfloat g = 0, u = 0, v;\n"
	"\t\t\tfor (long k = 0; k < K; ++k) {\n"
	"\t\t\t\tg += P[i * K + k] * Q[k * N + j];\n"
	"\t\t\t\tu += SHARED_B ? R[k * M + i] * Q[k * N + j] : P[i * K + k] * PRO_R(R[k * N + j]);\n"
	"\t\t\t}\n"
	"\t\t\tv = g / (1.0f + expf(-g)) * u;\n"
	"\t\t\tif (!(fabsf(O[i * N + j] - v) <= 1e-4f * (1 + fabsf(v))) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"O[%ld][%ld] = %g, expected %g\\n\", i, j, O[i * N + j], v);\n"
	"\t\t}\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n\treturn bad != 0;\n}\n";

#endif
