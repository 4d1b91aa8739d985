/* The reserved names and the front-end checks of gen's limits
 * (frontend/limits.h). */
#include <ctype.h>
#include <string.h>

#include "frontend/frontend.h"
#include "frontend/limits.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

enum match { EXACT, PREFIX, SUFFIX, C_ITER };

/* The reserved names: one row per class, the names of the class in one
 * space-separated list (EXACT), or a prefix or suffix. */
static const struct {
	enum match match;
	bool def_ok;		/* the def (a global function) may be so named */
	bool gen;		/* names of generated code only: gen refuses
				 * them, check (which prints no C) accepts */
	const char *names;
	const char *why;
} reserved[] = {
	{ PREFIX, false, false, "pm_", "names starting with 'pm_' are reserved for "
		"generated code" },
	{ PREFIX, false, false, "PM_", "names starting with 'PM_' are the generated "
		"code's macros" },
	{ PREFIX, false, false, "__", "names starting with '__' are reserved for the "
		"compiler and CUDA" },
	{ PREFIX, false, false, "cuda", "names starting with 'cuda' are the CUDA "
		"runtime's" },
	{ PREFIX, false, false, "CU_", "names starting with 'CU_' are the CUDA driver's" },
	{ PREFIX, false, false, "POLYMMA_", "names starting with 'POLYMMA_' are "
		"polymma's" },
	{ SUFFIX, true, true, "_shared", "names ending in '_shared' name the shared "
		"memory copies of tensors in generated kernels" },
	{ C_ITER, true, true, "c0 c1 ...", "'c' followed by digits names the loop "
		"counters of generated kernels" },
	{ EXACT, false, false, "alignas alignof and and_eq asm auto bitand bitor bool break "
		"case catch char char8_t char16_t char32_t class compl concept "
		"const consteval constexpr constinit const_cast continue "
		"co_await co_return co_yield decltype default delete do double "
		"dynamic_cast else enum explicit export extern false float for "
		"friend goto if inline int long mutable namespace new noexcept "
		"not not_eq nullptr operator or or_eq private protected public "
		"register reinterpret_cast requires restrict return short "
		"signed sizeof static static_assert static_cast struct switch "
		"template this thread_local throw true try typedef typeid "
		"typename union unsigned using virtual void volatile wchar_t "
		"while xor xor_eq", "it is a C or C++ keyword" },
	{ EXACT, false, false, "threadIdx blockIdx blockDim gridDim warpSize clusterDim "
		"CUtensorMap CUresult dim3 half half2 nv_bfloat16 nv_bfloat162 char2 char4 uchar4 "
		"short2 int2 int4 uint2 uint4 float2 float4 double2",
		"it is a CUDA built-in variable or type" },
	{ EXACT, false, false, "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t "
		"uint64_t intptr_t uintptr_t size_t ptrdiff_t NULL EOF errno "
		"assert stdin stdout stderr main memset memcpy malloc free "
		"getenv abort printf expf exp2f tanhf erff fmaxf fminf fabsf "
		"floor floorf sqrtf", "it is a C library name that the "
		"generated code uses" },
	{ EXACT, true, true, "c d e e2 f p ws grid nows stream workspace "
		"workspace_bytes", "the generated launcher declares it next to "
		"the spec's names" },
};

/* Is name one of the space-separated words of list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; ) {
		size_t w = strcspn(p, " ");

		if (w == n && !strncmp(p, name, n))
			return true;
		p += w;
		p += strspn(p, " ");
	}
	return false;
}

static bool matches(enum match m, const char *pat, const char *name)
{
	size_t n = strlen(name), k = strlen(pat);

	switch (m) {
	case PREFIX:
		return !strncmp(name, pat, k);
	case SUFFIX:
		return n > k && !strcmp(name + n - k, pat);
	case C_ITER:
		return name[0] == 'c' && name[1] &&
			strspn(name + 1, "0123456789") == n - 1;
	case EXACT:
		return in_list(pat, name);
	}
	return false;
}

const char *pm_reserved_name(const char *name, bool def, bool gen)
{
	for (size_t i = 0; i < COUNT(reserved); ++i)
		if (!(def && reserved[i].def_ok) && reserved[i].gen == gen &&
		    matches(reserved[i].match, reserved[i].names, name))
			return reserved[i].why;
	return NULL;
}

/* The words isl's parser reads as keywords whatever their case (its
 * isl_stream's); size symbols become parameter names in the strings the
 * polyhedral stages parse. */
static const char *const isl_keywords[] = {
	"exists", "and", "or", "implies", "not", "infty", "infinity", "nan",
	"min", "max", "rat", "true", "false", "ceild", "floord", "mod",
	"ceil", "floor",
};

/* a and b are equal ignoring ASCII case. */
static bool same_word(const char *a, const char *b)
{
	for (; *a && *b; ++a, ++b)
		if (tolower((unsigned char) *a) != tolower((unsigned char) *b))
			return false;
	return *a == *b;
}

const char *pm_isl_keyword(const char *name)
{
	for (size_t i = 0; i < COUNT(isl_keywords); ++i)
		if (same_word(isl_keywords[i], name))
			return "size symbols may not be a keyword of isl's "
				"parser (exists, and, or, implies, not, infty, "
				"infinity, NaN, min, max, rat, true, false, "
				"ceild, floord, mod, ceil, floor, in any case)";
	return NULL;
}

/* The leading reductions: the contractions of a fused kernel. */
static int ncontractions(const struct pm_spec *spec)
{
	int n = 0;

	while (n < spec->nstmts && spec->stmts[n].kind == PM_S_REDUCE &&
	       !pm_stmt_is_epi_reduction(spec, n))
		n++;
	return n;
}

/* The names that only generated code reserves (the parser checked the
 * others). */
static int check_gen_names(const struct pm_spec *spec, struct pm_diags *d)
{
	int errs = d->nerrors;
	const char *why;

	for (int t = 0; t < spec->ntensors; ++t)
		if ((why = pm_reserved_name(spec->tensors[t].name, false, true)))
			pm_diag_error(d, spec->tensors[t].loc, "'%s': %s",
				spec->tensors[t].name, why);
	for (int s = 0; s < spec->nsyms; ++s)
		if ((why = pm_reserved_name(spec->syms[s].name, false, true)))
			pm_diag_error(d, spec->syms[s].loc, "'%s': %s",
				spec->syms[s].name, why);
	return d->nerrors == errs ? 0 : -1;
}

int pm_spec_check_kernel_limits(const struct pm_spec *spec,
	struct pm_diags *d)
{
	int ncon = ncontractions(spec);

	/* the messages of kernel.c, before the isl work */
	if (ncon > PM_LIMIT_CONTRACTIONS) {
		pm_diag_unsupported(d, spec->stmts[PM_LIMIT_CONTRACTIONS].loc,
			"more than %d contractions in one kernel (their "
			"accumulators live in registers together)",
			PM_LIMIT_CONTRACTIONS);
		return -1;
	}
	/* without a contraction, kernel.c refuses the first statement: the
	 * rest is bounded all the same */
	if (!ncon)
		ncon = 1;
	if (spec->nstmts - ncon <= PM_LIMIT_EPILOGUE)
		return 0;
	pm_diag_unsupported(d, spec->stmts[ncon + PM_LIMIT_EPILOGUE].loc,
		"more than %d epilogue statements", PM_LIMIT_EPILOGUE);
	return -1;
}

/* What gen does not generate, before the isl work: max=! and min=!
 * contractions (epilogue reductions: variant/epired.c,
 * docs/decisions/0037-epilogue-reductions.md). */
static int check_gen_forms(const struct pm_spec *spec, struct pm_diags *d)
{
	for (int s = 0; s < spec->nstmts; ++s)
		if (!pm_stmt_is_epi_reduction(spec, s) &&
		    spec->stmts[s].kind == PM_S_REDUCE &&
		    spec->stmts[s].red != PM_RED_SUM) {
			pm_diag_unsupported(d, spec->stmts[s].loc, "a '%s' "
				"contraction (the tensor cores sum products; "
				"max=! and min=! reduce epilogue values only)",
				pm_red_op_name(spec->stmts[s].red));
			return -1;
		}
	return 0;
}

int pm_spec_check_gen_limits(const struct pm_spec *spec, struct pm_diags *d)
{
	if (check_gen_names(spec, d) < 0 ||
	    pm_spec_check_kernel_limits(spec, d) < 0)
		return -1;
	return check_gen_forms(spec, d);
}
