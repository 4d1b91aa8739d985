/* What the host entry points share (entries.h): their size and
 * alignment checks, forwarded arguments and workspace allocators; and the
 * entry points of a file whose every launch takes a workspace
 * (pm_emit_kc_entries): K-major copies of operands (emit/kcopy.h,
 * docs/decisions/0033-kmajor-copies.md) or an epilogue reduction's
 * partials (emit/epired.h, docs/decisions/0037): NAME, NAME_ws and
 * NAME_workspace_size, the copies or the partials after the split's part
 * (pm_rt_copy_offset). */
#include <stdio.h>
#include <string.h>

#include "emit/entries.h"
#include "emit/epired.h"
#include "emit/narrow.h"
#include "emit/pointwise.h"
#include "emit/table.h"

int pm_entry_nsizes(struct pm_kernel *k)
{
	int order[64];

	return pm_emit_size_order(k, order);
}

/* "A, B, C, M, N, K" the entry points' own arguments, for forwarding. */
void pm_entry_args(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	for (int i = 0, t; (t = pm_emit_arg_tensor(spec, i)) >= 0; ++i)
		pm_strbuf_printf(b, "%s%s", i ? ", " : "",
			spec->tensors[t].name);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, ", %s", spec->syms[order[i]].name);
}

/* Is tensor t an operand of one of k's contractions? */
static int operand_of(const struct pm_kernel *k, int t)
{
	for (int c = 0; c < k->ncon; ++c)
		if (t == k->con[c].a || t == k->con[c].b)
			return 1;
	return 0;
}

const char *pm_entry_ua(const struct pm_kernel *k)
{
	return k->var[PM_RT_UNALIGNED] ? ", pm_ua" : "";
}

/* The checks of a file with an _unaligned row ua: what neither k (the
 * main kernel) nor ua can run returns fail (or
 * cudaErrorMisalignedAddress: a pointer not aligned to its element);
 * what only ua can run sets pm_ua (docs/decisions/0046-narrow-copies.md). */
static void checks_ua(struct pm_kernel *k, struct pm_kernel *ua,
	struct pm_strbuf *b, int ptrs, const char *fail)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	pm_strbuf_add(b, "\tint pm_ua = 0;\n\n");
	for (int i = 0; i < n; ++i) {
		const char *s = spec->syms[order[i]].name;
		int m = pm_kernel_sym_align(k, order[i]);
		int mu = pm_kernel_sym_align(ua, order[i]);

		pm_strbuf_printf(b, "\tif (%s < 1 || %s > 0x7fffff00", s, s);
		if (mu > 1)
			pm_strbuf_printf(b, " || %s %% %d", s, mu);
		pm_strbuf_printf(b, ")\n\t\treturn %s;\n", fail);
		if (m > 1 && m != mu)
			pm_strbuf_printf(b, "\tif (%s %% %d)\n\t\tpm_ua = 1;\n",
				s, m);
	}
	if (!ptrs)
		return;
	for (int t = 0; t < spec->ntensors; ++t) {
		int a = t == k->con[0].out || operand_of(k, t) ? 16 :
			pm_epi_pairs_tensor(k, t) ? 2 * pm_narrow_elem_bytes(k, t) : 0;

		if (!a)
			continue;
		if (pm_narrow_elem_bytes(k, t) > 1)
			pm_strbuf_printf(b, "\tif ((uintptr_t) %s %% %d)\n\t\t"
				"return cudaErrorMisalignedAddress;\n",
				spec->tensors[t].name, pm_narrow_elem_bytes(k, t));
		pm_strbuf_printf(b, "\tif ((uintptr_t) %s %% %d)\n\t\t"
			"pm_ua = 1;\n", spec->tensors[t].name, a);
	}
}

/* Size and alignment checks (k's tiles: the small variant's divide them);
 * sizes only when ptrs is 0. */
void pm_entry_checks(struct pm_kernel *k, struct pm_strbuf *b, int ptrs,
	const char *fail)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	if (k->var[PM_RT_UNALIGNED]) {
		checks_ua(k, k->var[PM_RT_UNALIGNED], b, ptrs, fail);
		return;
	}
	for (int i = 0; i < n; ++i) {
		const char *s = spec->syms[order[i]].name;
		int m = pm_kernel_sym_align(k, order[i]);

		/* ragged sizes: the padded extents (file.c) fit in an int */
		if (m > 1)
			pm_strbuf_printf(b, "\tif (%s < 1 || %s > 0x7fffff00 || "
				"%s %% %d)\n\t\treturn %s;\n", s, s, s, m, fail);
		else
			pm_strbuf_printf(b, "\tif (%s < 1 || %s > 0x7fffff00)\n"
				"\t\treturn %s;\n", s, s, fail);
	}
	if (!ptrs)
		return;
	for (int t = 0; t < spec->ntensors; ++t)
		if (t == k->con[0].out || operand_of(k, t))
			pm_strbuf_printf(b, "\tif ((uintptr_t) %s %% 16)\n\t\t"
				"return cudaErrorMisalignedAddress;\n",
				spec->tensors[t].name);
		else if (k->cfg->target->emits_cuda && pm_epi_pairs_tensor(k, t))
			/* the epilogue loads it in pairs of elements */
			pm_strbuf_printf(b, "\tif ((uintptr_t) %s %% %d)\n\t\t"
				"return cudaErrorMisalignedAddress;\n",
				spec->tensors[t].name,
				spec->tensors[t].type == PM_F32 ? 8 : 4);
}

/* static cudaError_t pm_ws_alloc_NAME(void **p, size_t bytes, stream):
 * stream-ordered from a memory pool of the file's own per device, which
 * keeps its memory across synchronizations (the default pool returns it
 * to the system at each one: a new mapping per launch, measured at tens of
 * microseconds). */
void pm_entry_alloc_fn(struct pm_kernel *k, struct pm_strbuf *b)
{
	pm_strbuf_printf(b, "\n/* Workspace memory: stream-ordered, from a pool "
		"of this file's own per device that\n * keeps its memory (the "
		"default pool unmaps it at every synchronization). */\n"
		"static cudaError_t pm_ws_alloc_%s(void **p, size_t bytes, "
		"cudaStream_t stream)\n{\n"
		"\tstatic cudaMemPool_t pools[64];\n\tint dev;\n\n"
		"\tif (cudaGetDevice(&dev) != cudaSuccess)\n"
		"\t\treturn cudaGetLastError();\n"
		"\tif (dev < 0 || dev >= 64)\n"
		"\t\treturn cudaMallocAsync(p, bytes, stream);\n"
		"\tif (!pools[dev]) {\n\t\tcudaMemPoolProps props;\n"
		"\t\tcudaMemPool_t pool;\n"
		"\t\tuint64_t keep = ~(uint64_t) 0;\n\n"
		"\t\tmemset(&props, 0, sizeof(props));\n"
		"\t\tprops.allocType = cudaMemAllocationTypePinned;\n"
		"\t\tprops.location.type = cudaMemLocationTypeDevice;\n"
		"\t\tprops.location.id = dev;\n"
		"\t\tif (cudaMemPoolCreate(&pool, &props) != cudaSuccess)\n"
		"\t\t\treturn cudaGetLastError();\n"
		"\t\t(void) cudaMemPoolSetAttribute(pool, "
		"cudaMemPoolAttrReleaseThreshold, &keep);\n"
		"\t\t/* another thread may have been first */\n"
		"\t\tif (!__sync_bool_compare_and_swap(&pools[dev], "
		"(cudaMemPool_t) 0, pool))\n"
		"\t\t\t(void) cudaMemPoolDestroy(pool);\n\t}\n"
		"\treturn cudaMallocFromPoolAsync(p, bytes, pools[dev], stream);"
		"\n}\n", k->scop->spec->name);
}

/* static cudaError_t pm_ws_get_NAME(void **p, size_t bytes, stream): the
 * workspace kept for the current device and this stream (cudaStreamGetId:
 * an id no other stream gets), grown stream-ordered when too small, zero
 * when allocated; launches on one stream run one after the other, and each
 * leaves the counters 0. At most PM_WS_KEPT streams; then an error (the
 * caller takes a workspace for the launch alone), as in a CUDA graph
 * capture (decision 0060). */
#define PM_WS_KEPT 32
void pm_entry_get_fn(struct pm_kernel *k, struct pm_strbuf *b)
{
	pm_strbuf_printf(b, "\n/* The workspace kept for the current device and "
		"this stream (zero when allocated,\n * every launch leaves its "
		"counters 0; grown stream-ordered); an error when\n * %d "
		"streams have one. */\nstatic cudaError_t pm_ws_get_%s(void **p, "
		"size_t bytes, cudaStream_t stream)\n{\n"
		"\tstatic struct { int dev; unsigned long long id; void *p; "
		"size_t n; } kept[%d];\n\tstatic int lock;\n"
		"\tcudaStreamCaptureStatus cs;\n"
		"\tunsigned long long id;\n\tint dev, i, slot = -1;\n"
		"\tcudaError_t e = cudaSuccess;\n\tvoid *q = 0;\n\n"
		/* none in a CUDA graph capture: a graph replays anywhere,
		 * beside the stream's own launches, and cudaStreamGetId
		 * would invalidate the capture (decision 0060); the caller
		 * takes one for the launch alone (graph nodes) */
		"\tif (cudaStreamIsCapturing(stream, &cs) != cudaSuccess || cs "
		"!= cudaStreamCaptureStatusNone) {\n"
		"\t\t(void) cudaGetLastError();\n"
		"\t\treturn cudaErrorStreamCaptureUnsupported;\n\t}\n"
		"\tif (cudaGetDevice(&dev) != cudaSuccess || cudaStreamGetId("
		"stream, &id) != cudaSuccess)\n\t\treturn cudaGetLastError();\n"
		"\twhile (__sync_lock_test_and_set(&lock, 1))\n\t\t;\n"
		"\tfor (i = 0; i < %d; ++i) {\n"
		"\t\tif (kept[i].p && kept[i].dev == dev && kept[i].id == id) "
		"{\n\t\t\tslot = i;\n\t\t\tbreak;\n\t\t}\n"
		"\t\tif (!kept[i].p && slot < 0)\n\t\t\tslot = i;\n\t}\n"
		"\tif (slot >= 0 && kept[slot].p && kept[slot].n >= bytes) {\n"
		"\t\t*p = kept[slot].p;\n\t\t__sync_lock_release(&lock);\n"
		"\t\treturn cudaSuccess;\n\t}\n"
		"\tif (slot < 0)\n\t\te = cudaErrorMemoryAllocation;\n"
		"\tif (e == cudaSuccess)\n\t\te = pm_ws_alloc_%s(&q, bytes, "
		"stream);\n"
		"\tif (e == cudaSuccess && (e = cudaMemsetAsync(q, 0, bytes, "
		"stream)) != cudaSuccess)\n\t\t(void) cudaFreeAsync(q, stream);"
		"\n\tif (e == cudaSuccess) {\n\t\tif (kept[slot].p)\n"
		"\t\t\t(void) cudaFreeAsync(kept[slot].p, stream);\n"
		"\t\tkept[slot].dev = dev;\n\t\tkept[slot].id = id;\n"
		"\t\tkept[slot].p = *p = q;\n\t\tkept[slot].n = bytes;\n\t}\n"
		"\t__sync_lock_release(&lock);\n\treturn e;\n}\n", PM_WS_KEPT,
		k->scop->spec->name, PM_WS_KEPT, PM_WS_KEPT,
		k->scop->spec->name);
}

/* "OFF + pm_kc_bytes_NAME(sizes)": the workspace a launch of choice c
 * (planned) needs with the K-major copies (emit/kcopy.h): the split's
 * part, then theirs. */
static void kc_need(struct pm_kernel *k, struct pm_strbuf *b, int planned)
{
	if (planned && k->scop->nsplit)
		pm_strbuf_add(b, "pm_rt_copy_offset(&c) + ");
	pm_strbuf_printf(b, "pm_%s_bytes_%s(", pm_emit_has_red(k) ? "red" :
		"kc", k->scop->spec->name);
	pm_emit_size_list(k, b, 0);
	pm_strbuf_add(b, ")");
}

/* "pm_launch_NAME(c, tensors, sizes, WS, N, stream)" */
static void kc_launch_call(struct pm_kernel *k, struct pm_strbuf *b,
	int planned, const char *ws, const char *n)
{
	pm_strbuf_printf(b, "pm_launch_%s(%s, ", k->scop->spec->name,
		planned ? "&c" : "0");
	pm_entry_args(k, b);
	pm_strbuf_printf(b, ", %s, %s, stream)", ws, n);
}

void pm_entry_plan_call(struct pm_kernel *k, struct pm_strbuf *b, int nows)
{
	pm_strbuf_printf(b, "pm_plan_%s(", k->scop->spec->name);
	pm_emit_size_list(k, b, 0);
	pm_strbuf_printf(b, "%s&c, %d%s)", pm_entry_nsizes(k) ? ", " : "",
		nows, pm_entry_ua(k));
}

void pm_entry_plan(struct pm_kernel *k, struct pm_strbuf *b, int nows,
	const char *ind)
{
	pm_strbuf_printf(b, "%sif ((e = ", ind);
	pm_entry_plan_call(k, b, nows);
	pm_strbuf_printf(b, ") != cudaSuccess)\n%s\treturn e;\n", ind);
}

/* NAME_workspace_size of a file with K-major copies: the split's part
 * and the copies. */
static void kc_ws_size(struct pm_kernel *k, struct pm_strbuf *b, int planned)
{
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_WS_SIZE);
	pm_strbuf_printf(b, "\n{\n%s", planned ? "\tstruct pm_rt_choice c;\n"
		"\n" : "");
	pm_entry_checks(k, b, 0, "0");
	if (planned) {
		pm_strbuf_add(b, "\tif (");
		pm_entry_plan_call(k, b, 0);
		pm_strbuf_add(b, " != cudaSuccess) {\n\t\t(void) "
			"cudaGetLastError();\n\t\treturn 0;\n\t}\n");
	}
	pm_strbuf_add(b, "\treturn ");
	kc_need(k, b, planned);
	pm_strbuf_add(b, ";\n}\n");
}

/* NAME_ws of a file with K-major copies: the split where the workspace
 * has room for it; no room for the copies: an error. */
static void kc_ws(struct pm_kernel *k, struct pm_strbuf *b, int planned)
{
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_WS);
	pm_strbuf_printf(b, "\n{\n%s", planned ? "\tstruct pm_rt_choice c;\n"
		"\tcudaError_t e;\n\n" : "");
	pm_entry_checks(k, b, 1, "cudaErrorInvalidValue");
	if (planned)
		pm_entry_plan(k, b, 0, "\t");
	if (planned && k->scop->nsplit) {
		pm_strbuf_add(b, "\t/* no room for the split: the plan without "
			"it */\n\tif (c.ws_bytes && (!workspace || workspace_bytes < ");
		kc_need(k, b, planned);
		pm_strbuf_add(b, ")) {\n");
		pm_entry_plan(k, b, 1, "\t\t");
		pm_strbuf_add(b, "\t}\n");
	}
	pm_strbuf_add(b, "\t/* the copies' room */\n\tif (!workspace || "
		"workspace_bytes < ");
	kc_need(k, b, planned);
	pm_strbuf_add(b, ")\n\t\treturn cudaErrorInvalidValue;\n"
		"\tif ((uintptr_t) workspace % 16)\n\t\treturn "
		"cudaErrorMisalignedAddress;\n\treturn ");
	kc_launch_call(k, b, planned, "workspace", "workspace_bytes");
	pm_strbuf_add(b, ";\n}\n");
}

/* NAME of a file with K-major copies: the stream's kept workspace, or
 * one for this launch (without the split's part where that does not
 * fit). */
static void kc_plain(struct pm_kernel *k, struct pm_strbuf *b, int planned)
{
	const int split = planned && k->scop->nsplit;

	pm_entry_alloc_fn(k, b);
	pm_entry_get_fn(k, b);
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_PLAIN);
	pm_strbuf_printf(b, "\n{\n%s\tvoid *ws = 0;\n\tsize_t pm_n;\n"
		"\tcudaError_t e, e2;\n\n", planned ?
		"\tstruct pm_rt_choice c;\n" : "");
	pm_entry_checks(k, b, 1, "cudaErrorInvalidValue");
	if (planned)
		pm_entry_plan(k, b, 0, "\t");
	pm_strbuf_add(b, "\tpm_n = ");
	kc_need(k, b, planned);
	pm_strbuf_printf(b, ";\n\t/* the stream's kept workspace */\n"
		"\tif (pm_ws_get_%s(&ws, pm_n, stream) == cudaSuccess)\n"
		"\t\treturn ", k->scop->spec->name);
	kc_launch_call(k, b, planned, "ws", "pm_n");
	pm_strbuf_printf(b, ";\n\t(void) cudaGetLastError();\n"
		"\t/* one for this launch alone%s */\n\tif (pm_ws_alloc_%s(&ws, "
		"pm_n, stream) != cudaSuccess) {\n\t\t(void) cudaGetLastError();\n",
		split ? " (without the split's part if that does not fit)" : "",
		k->scop->spec->name);
	if (split) {
		pm_strbuf_add(b, "\t\tif (!c.ws_bytes)\n\t\t\treturn "
			"cudaErrorMemoryAllocation;\n");
		pm_entry_plan(k, b, 1, "\t\t");
		pm_strbuf_add(b, "\t\tpm_n = ");
		kc_need(k, b, planned);
		pm_strbuf_printf(b, ";\n\t\tif ((e = pm_ws_alloc_%s(&ws, pm_n, "
			"stream)) != cudaSuccess)\n\t\t\treturn e;\n\t}\n"
			"\te = cudaMemsetAsync(ws, 0, c.cnt_bytes, stream);\n"
			"\tif (e == cudaSuccess)\n\t\te = ", k->scop->spec->name);
	} else if (pm_emit_has_red(k)) {
		/* the reduction's counters at 0 */
		pm_strbuf_add(b, "\t\treturn cudaErrorMemoryAllocation;\n\t}\n"
			"\te = cudaMemsetAsync(ws, 0, pm_n, stream);\n"
			"\tif (e == cudaSuccess)\n\t\te = ");
	} else {
		pm_strbuf_add(b, "\t\treturn cudaErrorMemoryAllocation;\n\t}\n"
			"\te = ");
	}
	kc_launch_call(k, b, planned, "ws", "pm_n");
	pm_strbuf_add(b, ";\n\te2 = cudaFreeAsync(ws, stream);\n"
		"\treturn e != cudaSuccess ? e : e2;\n}\n");
}

/* The entries of a file with K-major copies (planned: of several
 * kernels, the plan's choice c; else one): every launch takes a
 * workspace, the copies after the split's part (pm_rt_copy_offset). */
void pm_emit_kc_entries(struct pm_kernel *k, struct pm_strbuf *b, int planned)
{
	kc_ws_size(k, b, planned);
	kc_ws(k, b, planned);
	kc_plain(k, b, planned);
}
