/* libFuzzer target over the library entry points (make fuzz).
 *
 * The input's first byte picks what runs, the rest is the spec text (NUL
 * bytes end it, as a C string would):
 *   0 polymma_check;
 *   1 polymma_generate for sm_80 without split-K and small variant (one
 *     kernel: generation stays fast enough to fuzz);
 *   2 the same for sm_90a with --persistent on;
 *   3 polymma_generate with the defaults (sm_80, every variant).
 * PM_FUZZ_MODES (e.g. "0" or "12") restricts the modes the first byte
 * picks from: the check mode alone runs thousands of inputs a second, a
 * generating mode a few (every valid spec runs isl's whole pipeline).
 * A crash, a leak, a sanitizer report or an exit 3 (POLYMMA_ERR_INTERNAL:
 * a bug by contract) is a finding; findings are kept under
 * tests/fuzz/regress/ and replayed by tests/test_fuzz_regress.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "polymma.h"

static const char *const modes[][6] = {
	{ NULL },
	{ "target", "sm_80", "split-k", "1", "small-variant", "off" },
	{ "target", "sm_90a", "persistent", "on", NULL, NULL },
	{ NULL },
};

int pm_fuzz_one(const uint8_t *data, size_t size);

/* The modes PM_FUZZ_MODES allows (all four when unset or invalid). */
static int pick_mode(uint8_t byte)
{
	static int allowed[4], n = -1;
	const char *env;

	if (n < 0) {
		n = 0;
		env = getenv("PM_FUZZ_MODES");
		for (; env && *env && n < 4; env++)
			if (*env >= '0' && *env <= '3')
				allowed[n++] = *env - '0';
		if (n == 0)
			for (; n < 4; n++)
				allowed[n] = n;
	}
	return allowed[byte % n];
}

int pm_fuzz_one(const uint8_t *data, size_t size)
{
	int mode = pick_mode(size ? data[0] : 0), rc;
	char *text = malloc(size + 1);
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *report = NULL;

	if (!text || !ctx || !o)
		abort();
	if (size)
		memcpy(text, data + 1, size - 1);
	text[size ? size - 1 : 0] = '\0';
	for (int i = 0; i < 6 && modes[mode][i]; i += 2)
		if (polymma_options_set(o, modes[mode][i], modes[mode][i + 1],
		    NULL) != POLYMMA_OK)
			abort();
	rc = mode == 0 ? polymma_check(ctx, text, "fuzz.tc", o, &report) :
		polymma_generate(ctx, text, "fuzz.tc", o, &r);
	free(report);
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
	return rc;
}

#ifdef PM_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (pm_fuzz_one(data, size) == POLYMMA_ERR_INTERNAL)
		abort();
	return 0;
}
#endif
