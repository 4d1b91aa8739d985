/* The target tables. */
#include <stdio.h>
#include <string.h>

#include "emit/embedded.h"
#include "emit/target.h"

static const struct pm_macro sm70_macros[] = {
	{ 16, 16, 8 }, { 32, 32, 8 },
};

static const struct pm_macro sm80_macros[] = {
	{ 16, 8, 16 }, { 16, 16, 16 }, { 32, 16, 16 }, { 32, 32, 16 },
	{ 64, 32, 16 }, { 32, 64, 16 }, { 64, 64, 16 }, { 32, 32, 32 },
	{ 64, 32, 32 },
	{ 64, 64, 32 },
};

/* warpgroup macros: MM = 64, one wgmma m64nNk16 per 16 of MK */
static const struct pm_macro sm90_macros[] = {
	{ 64, 128, 64 }, { 64, 64, 16 }, { 64, 128, 16 }, { 64, 256, 16 },
	{ 64, 64, 32 }, { 64, 128, 32 }, { 64, 256, 32 }, { 64, 64, 64 },
	{ 64, 256, 64 }, { 64, 192, 16 }, { 64, 192, 32 }, { 64, 192, 64 },
	{ 64, 80, 16 }, { 64, 80, 32 }, { 64, 80, 64 }, { 64, 96, 16 },
	{ 64, 96, 32 }, { 64, 96, 64 },
};

static const struct pm_macro host_macros[] = {
	{ 8, 8, 4 }, { 16, 8, 16 }, { 16, 16, 8 }, { 16, 16, 16 },
	{ 32, 32, 8 }, { 32, 32, 16 },
};

static const char *const sm70_helpers[] = {
	pm_embed_common_cuh, pm_embed_sm70_cuh,
};
static const char *const sm80_helpers[] = {
	pm_embed_common_cuh, pm_embed_sm80_cuh,
};
static const char *const sm90_helpers[] = {
	pm_embed_common_cuh, pm_embed_sm90_cuh, pm_embed_sm90_split_cuh,
};
static const char *const host_helpers[] = {
	pm_embed_host_h,
};

#define N(a) ((int) (sizeof(a) / sizeof((a)[0])))

static const struct pm_target targets[] = {
	{ "sm_80", "sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
	  16, 8, 16, "pm_sm80", N(sm80_macros), sm80_macros, 3,
	  128, 128, 32, 64, 64, 3, 2, sm80_helpers, N(sm80_helpers), 1, 1, 1,
	  32, "pm_lane_id", 0, NULL, NULL, 64, 64, 32, 32, 4, 0, 0, 0, 0, 0, 0,
	  0, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
	  { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
	  { 0, 0, 0, 0, 0 } },
	{ "sm_70", "sm_75", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
	  8, 8, 4, "pm_sm70", N(sm70_macros), sm70_macros, 1,
	  128, 128, 32, 64, 64, 2, 1, sm70_helpers, N(sm70_helpers), 1, 0, 0,
	  32, "pm_lane_id", 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	  0, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
	  { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
	  { 0, 0, 0, 0, 0 } },
	{ "sm_90a", "-gencode=arch=compute_90a,code=sm_90a",
	  "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16",
	  64, 8, 16, "pm_sm90", N(sm90_macros), sm90_macros, 0,
	  128, 128, 64, 64, 128, 3, 2, sm90_helpers, N(sm90_helpers), 1, 0, 1,
	  128, "pm_wg_thread", 1, "pm_sm90_drain", "pm_wgmma_wait<1>();",
	  64, 64, 64, 64, 4, 64, 128, 64, 128, 1, 2,
	  4, { 128, 256, 64, 256, 3 }, { 256, 128, 128, 128, 3 },
	  { 128, 192, 64, 192, 4 }, { 500, 950, 1090, 1000, 1060 },
	  { 192, 192, 64, 192, 3 }, { 1100, 1060, 1090, 1000, 1090 },
	  { 64, 192, 64, 192, 6 } },
};

static const struct pm_target host_target = {
	"host", "", "scalar C", 1, 1, 1, "pm_host", N(host_macros),
	host_macros, 0, 64, 64, 16, 32, 32, 2, 2, host_helpers, N(host_helpers), 0,
	1, 0, 32, "pm_lane_id", 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
	0, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
	{ 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 },
	{ 0, 0, 0, 0, 0 }
};

const struct pm_target *pm_target_find(const char *name)
{
	for (int i = 0; i < N(targets); ++i)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	if (!strcmp(name, "host"))
		return &host_target;
	return NULL;
}

const struct pm_target *pm_target_default(void)
{
	return &targets[0];
}

const struct pm_target *pm_target_host(void)
{
	return &host_target;
}

int pm_target_has_macro(const struct pm_target *t, int m, int n, int k)
{
	for (int i = 0; i < t->nmacros; ++i)
		if (t->macros[i].m == m && t->macros[i].n == n &&
		    t->macros[i].k == k)
			return 1;
	return 0;
}

int pm_target_supports(const struct pm_target *t, enum pm_type in,
	enum pm_type out)
{
	(void) t;
	return in == PM_F16 && (out == PM_F16 || out == PM_F32);
}

void pm_target_macro_list(const struct pm_target *t, char *buf, int len)
{
	int off = 0;

	buf[0] = '\0';
	for (int i = 0; i < t->nmacros && off < len; ++i)
		off += snprintf(buf + off, len - off, "%s%dx%dx%d",
			i ? ", " : "", t->macros[i].m, t->macros[i].n,
			t->macros[i].k);
}
