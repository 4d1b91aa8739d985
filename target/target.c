/* The targets, by name. */
#include <stdio.h>
#include <string.h>

#include "target/target.h"
#include "target/targets.h"

static const struct pm_target *const targets[] = {
	&pm_target_sm80, &pm_target_sm70, &pm_target_sm90a,
};

#define N(a) ((int) (sizeof(a) / sizeof((a)[0])))

const struct pm_target *pm_target_find(const char *name)
{
	for (int i = 0; i < N(targets); ++i)
		if (!strcmp(targets[i]->name, name))
			return targets[i];
	if (!strcmp(name, pm_target_host_c.name))
		return &pm_target_host_c;
	return NULL;
}

const struct pm_target *pm_target_default(void)
{
	return targets[0];
}

const struct pm_target *pm_target_host(void)
{
	return &pm_target_host_c;
}

const struct pm_variant_desc *pm_target_variant(const struct pm_target *t,
	enum pm_variant_role r)
{
	for (int i = 0; i < t->nvariants; ++i)
		if (t->variants[i].role == r)
			return &t->variants[i];
	return NULL;
}

int pm_target_has_macro(const struct pm_target *t, int m, int n, int k)
{
	for (int i = 0; i < t->nmacros; ++i)
		if (t->macros[i].m == m && t->macros[i].n == n &&
		    t->macros[i].k == k)
			return 1;
	return 0;
}

const struct pm_elem pm_elem_f16 = {
	.type = PM_F16, .bytes = 2, .ctype = "__half", .pair = "__half2",
	.to_f32 = "__half2float", .from_f32 = "__float2half_rn",
	.pair_from_f32 = "__float2half2_rn", .bits = "__half_as_ushort",
	.tma = "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", .header = "cuda_fp16.h",
	.mant = 11, .emin = -14, .emax = 15,
};

const struct pm_elem pm_elem_bf16 = {
	.type = PM_BF16, .bytes = 2, .ctype = "__nv_bfloat16",
	.pair = "__nv_bfloat162", .to_f32 = "__bfloat162float",
	.from_f32 = "__float2bfloat16_rn",
	.pair_from_f32 = "__float2bfloat162_rn",
	.bits = "__bfloat16_as_ushort",
	.tma = "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", .header = "cuda_bf16.h",
	.mant = 8, .emin = -126, .emax = 127,
};

/* The 8-bit floats: read by the MMA only (no pointwise code on them: no
 * pair forms); bytes for TMA. */
const struct pm_elem pm_elem_e4m3 = {
	.type = PM_F8E4M3, .bytes = 1, .ctype = "__nv_fp8_e4m3",
	.bits = "pm_fp8_bits", .tma = "CU_TENSOR_MAP_DATA_TYPE_UINT8",
	.header = "cuda_fp8.h", .mant = 4, .emin = -6, .emax = 8,
};

const struct pm_elem pm_elem_e5m2 = {
	.type = PM_F8E5M2, .bytes = 1, .ctype = "__nv_fp8_e5m2",
	.bits = "pm_fp8_bits", .tma = "CU_TENSOR_MAP_DATA_TYPE_UINT8",
	.header = "cuda_fp8.h", .mant = 3, .emin = -14, .emax = 15,
};

/* i8: the MMA reads it; bytes for TMA; widened to a 16-bit operand
 * through float (exact; docs/decisions/0047) */
const struct pm_elem pm_elem_s8 = {
	.type = PM_I8, .bytes = 1, .ctype = "int8_t", .bits = "pm_s8_bits",
	.to_f32 = "(float)",
	.tma = "CU_TENSOR_MAP_DATA_TYPE_UINT8", .header = "stdint.h",
};

static const struct pm_elem *const elems[] = { &pm_elem_f16, &pm_elem_bf16,
	&pm_elem_e4m3, &pm_elem_e5m2, &pm_elem_s8 };

const struct pm_elem *pm_elem_storage(enum pm_type ty)
{
	for (int i = 0; i < N(elems); ++i)
		if (elems[i]->type == ty)
			return elems[i];
	return NULL;
}

const struct pm_elem *pm_elem_of(enum pm_type ty)
{
	const struct pm_elem *e = pm_elem_storage(ty);

	return e && e->bytes == 2 ? e : NULL;
}

int pm_operand_k(const struct pm_target *t, const struct pm_operand_row *r)
{
	return r && r->k ? r->k : t->ik;
}

const struct pm_operand_row *pm_target_operand(const struct pm_target *t,
	enum pm_type in)
{
	for (int i = 0; i < t->noperands; ++i)
		if (t->operands[i].in == in)
			return &t->operands[i];
	return NULL;
}

const struct pm_operand_row *pm_target_pair(const struct pm_target *t,
	enum pm_type ta, enum pm_type tb, int *conv)
{
	const struct pm_operand_row *ra = pm_target_operand(t, ta);
	const struct pm_operand_row *rb = pm_target_operand(t, tb);
	int c = ta == tb ? 0 : rb && (unsigned) ta < 32 && (rb->widen >> ta &
		1u) ? 1 : ra && (unsigned) tb < 32 && (ra->widen >> tb & 1u) ?
		2 : -1;

	if (conv)
		*conv = c < 0 ? 0 : c;
	return c < 0 ? NULL : c == 1 ? rb : ra;
}

int pm_target_supports(const struct pm_target *t, enum pm_type in,
	enum pm_type out)
{
	const struct pm_operand_row *r = pm_target_operand(t, in);

	return r && (unsigned) out < 32 && (r->outs >> out & 1u);
}

/* "a, b or c" into buf. */
static void or_list(char *buf, int len, const char *const *names, int n)
{
	int off = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && off < len; ++i)
		off += snprintf(buf + off, len - off, "%s%s",
			!i ? "" : i == n - 1 ? " or " : ", ", names[i]);
}

void pm_target_operand_list(const struct pm_target *t, char *buf, int len)
{
	const char *names[8];
	int n = 0;

	for (int i = 0; i < t->noperands && n < 8; ++i)
		names[n++] = pm_type_name(t->operands[i].in);
	or_list(buf, len, names, n);
}

void pm_operand_out_list(const struct pm_operand_row *r, char *buf, int len)
{
	static const enum pm_type all[] = { PM_F16, PM_BF16, PM_F32, PM_I8,
		PM_I32, PM_F8E4M3, PM_F8E5M2 };
	const char *names[8];
	int n = 0;

	for (int i = 0; i < N(all); ++i)
		if (r->outs >> all[i] & 1u)
			names[n++] = pm_type_name(all[i]);
	or_list(buf, len, names, n);
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
