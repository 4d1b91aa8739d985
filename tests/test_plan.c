/* The launch plans of generated sm_90a files, run on the host.
 *
 * For each example (relu_gemm: a prologue through the MMA's registers and
 * its cost model; gemm_nn, gemm_bias_relu, add_gemm: the fill rules):
 * polymma gen --target sm_90a, then nvcc builds tests/plan_probe.cu
 * against the file (the plan's CUDA calls answered by a model of an H100,
 * no GPU needed) and runs it at the sizes of tests/golden/plan_sizes.txt
 * (the benchmark's 100 paper sizes and a few ragged, tiny and big ones).
 * Its output must equal tests/golden/plan_NAME_sm90a.txt (PM_UPDATE_GOLDEN=1
 * rewrites them; review the diff: each line is the variant a size runs).
 * A few plans are also asserted by name, with the measurement behind them
 * (docs/decisions/). Skipped when nvcc is not found (PATH,
 * /usr/local/cuda/bin). POLYMMA_KEEP_TMP=1 keeps the files.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/nvcc_util.h"
#include "tests/util.h"

static char nvcc[512];
static char tmpdir[] = "/tmp/polymma-test-plan.XXXXXX";

static int group_setup(void **state)
{
	(void) state;
	if (pm_test_find_nvcc(nvcc, sizeof(nvcc)) < 0)
		return 0;
	if (!mkdtemp(tmpdir))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[700];

	(void) state;
	if (!nvcc[0] || getenv("POLYMMA_KEEP_TMP"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The plans of examples/NAME.tc at every size, or NULL (a failure printed). */
static char *plans(const char *name)
{
	char cmd[4096], out[600];
	char *sizes = pm_test_read("tests/golden/plan_sizes.txt");
	int n;

	if (!sizes)
		return NULL;
	for (char *c = sizes; *c; ++c)
		if (*c == '\n')
			*c = ' ';
	snprintf(out, sizeof(out), "%s/%s.txt", tmpdir, name);
	n = snprintf(cmd, sizeof(cmd), "%s gen examples/%s.tc --target sm_90a "
		"-o %s/%s.cu && %s -std=c++17 "
		"-gencode=arch=compute_90a,code=sm_90a -DKERNEL_FILE='\"%s/%s.cu\"' "
		"-DPLAN=%s tests/plan_probe.cu -o %s/%s > %s/%s.log 2>&1 && "
		"%s/%s %s > %s", pm_test_polymma_bin(), name, tmpdir, name, nvcc,
		tmpdir, name, name, tmpdir, name, tmpdir, name, tmpdir, name,
		sizes, out);
	free(sizes);
	if (n < 0 || n >= (int) sizeof(cmd) || system(cmd) != 0) {
		fprintf(stderr, "failed: %s\n", n > 0 && n < (int) sizeof(cmd) ?
			cmd : name);
		return NULL;
	}
	return pm_test_read(out);
}

/* The plans of NAME equal the golden file's. */
static char *check_golden(const char *name)
{
	char path[256], *s = plans(name), *golden;

	assert_non_null(s);
	snprintf(path, sizeof(path), "tests/golden/plan_%s_sm90a.txt", name);
	if (getenv("PM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(s, f);
		fclose(f);
	}
	golden = pm_test_read(path);
	assert_non_null(golden);
	if (strcmp(golden, s)) {
		fprintf(stderr, "plans differ from %s (diff it with %s/%s.txt; "
			"POLYMMA_KEEP_TMP=1)\n", path, tmpdir, name);
		fail();
	}
	free(golden);
	return s;
}

/* s has the line "SIZE PLAN\n". */
static void assert_plan(const char *s, const char *size, const char *plan)
{
	char line[200];

	int found;

	snprintf(line, sizeof(line), "\n%s %s\n", size, plan);
	found = strstr(s, line) || !strncmp(s, line + 1, strlen(line + 1));
	if (!found)
		fprintf(stderr, "no plan \"%s %s\"\n", size, plan);
	assert_true(found);
}

/* ReLU+GEMM: the cost model on more than one tile per SM, the workspace
 * split (never clusters) from 28 k tiles on small grids (measured, run131
 * to run134: docs/decisions/0012-register-prologue-cost-model.md). */
static void test_relu_gemm(void **state)
{
	char *s;

	(void) state;
	if (!nvcc[0])
		skip();
	s = check_golden("relu_gemm");
	/* 128x256 blocks where they fill the waves (216 tiles of 128x128:
	 * wide 7-17 % faster than two 128x128 blocks per SM) */
	assert_plan(s, "1536x2304x3456", "s=1 persist=2 tdp=0 small=0 "
		"medium=0 cl=0");
	/* 128x192 where they fill the waves better (2 waves, 74 %: 13 %) */
	assert_plan(s, "1664x2816x2432", "s=1 persist=5 tdp=0 small=0 "
		"medium=0 cl=0");
	/* the medium blocks on one partial wave (5 % faster than wide) */
	assert_plan(s, "2432x1280x1664", "s=1 persist=0 tdp=0 small=0 "
		"medium=1 cl=0");
	/* 192x192 blocks (a producer warpgroup, three consumer ones):
	 * one round of 126 blocks (measured 32 % faster) */
	assert_plan(s, "3456x1280x768", "s=1 persist=6 tdp=0 small=0 "
		"medium=0 cl=0");
	/* tall blocks no faster than two big ones per SM, but the wide
	 * row's guarded kernel on the ragged N (1152 = 4.5 x 256; measured
	 * 5 % faster than the base there: docs/decisions/0065) */
	assert_plan(s, "3072x1152x1280", "s=1 persist=2 tdp=0 small=0 "
		"medium=0 cl=0");
	/* small grids: 4 chunks of the workspace split, not clusters */
	assert_plan(s, "2048x128x2432", "s=4 persist=3 tdp=0 small=0 "
		"medium=0 cl=0");
	/* no 64x192 blocks with MMAs in flight: a wgmma in flight reads
	 * its A registers */
	assert_null(strstr(s, "persist=7"));
	/* under 28 k tiles: the small variant */
	assert_plan(s, "3968x128x1408", "s=1 persist=0 tdp=0 small=1 "
		"medium=0 cl=0");
	for (int c = 2; c <= 8; ++c) {
		char cl[16];

		snprintf(cl, sizeof(cl), " cl=%d\n", c);
		assert_null(strstr(s, cl));
	}
	free(s);
}

/* GEMM: the fill rules (128x256 at 85 %, the tail split, 128x192), the
 * 192x192 blocks' model. */
static void test_gemm(void **state)
{
	char *s;

	(void) state;
	if (!nvcc[0])
		skip();
	s = check_golden("gemm_nn");
	assert_plan(s, "1920x3840x1664", "s=1 persist=2 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "2944x3840x2944", "s=1 persist=5 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "1664x2816x2432", "s=6 persist=3 tdp=264 small=0 "
		"medium=0 cl=0");
	/* 192x192 blocks where they run the grid in fewer rounds: 126 of
	 * them in one, against 270 tiles of 128x128 in three (measured 32 %
	 * faster), 3968x1152x1408 (25 %); not 3072x3072x640 (one round less
	 * modelled 3 % faster, measured the same) */
	assert_plan(s, "3456x1280x768", "s=1 persist=6 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "3968x1152x1408", "s=1 persist=6 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "3072x3072x640", "s=1 persist=5 tdp=0 small=0 "
		"medium=0 cl=0");
	/* 64x192 blocks with MMAs in flight where 128x128 blocks run one
	 * unsplit wave and they do too: 110 against 80 tiles (measured 5-7 %
	 * faster); not where their grid is two waves (168 at 896x2176x2944)
	 * or the 128x128 grid splits (384x2688x2432: 14 % slower) */
	assert_plan(s, "640x2048x3584", "s=1 persist=7 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "2048x768x2816", "s=1 persist=7 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "896x2176x2944", "s=1 persist=1 tdp=0 small=0 "
		"medium=0 cl=0");
	/* 64x128 blocks with MMAs in flight (slim) where the small row or
	 * two chunks ran a grid they hold in one wave: 126 of them at
	 * 384x2688x2432 (measured 11 % faster than the split), 128 at
	 * 1024x1024x1024 (12 % faster than _small_tma); not where the split
	 * takes three chunks (896x768x3200: 6 % slower) or their grid is
	 * two waves (640x1792x256, 140: 16 % slower;
	 * docs/decisions/0067-slim-row-small-grids.md) */
	assert_plan(s, "384x2688x2432", "s=1 persist=12 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "896x768x3200", "s=3 persist=3 tdp=0 small=0 "
		"medium=0 cl=0");
	assert_plan(s, "640x1792x256", "s=1 persist=0 tdp=0 small=1 "
		"medium=0 cl=0");
	free(s);
}

static void test_fused(void **state)
{
	char *s;

	(void) state;
	if (!nvcc[0])
		skip();
	s = check_golden("gemm_bias_relu");
	free(s);
	s = check_golden("add_gemm");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relu_gemm),
		cmocka_unit_test(test_gemm),
		cmocka_unit_test(test_fused),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
