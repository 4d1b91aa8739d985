/* Internal to emit/: what the host entry points of a generated file
 * share (entries.c), and the entries of a file whose every launch takes
 * a workspace; launch.c prints the rest (emit/launch.h). */
#ifndef PM_EMIT_ENTRIES_H
#define PM_EMIT_ENTRIES_H

#include "emit/frame.h"

/* The number of runtime size arguments of k's entries. */
int pm_entry_nsizes(struct pm_kernel *k);
/* "tensors, sizes" as an entry passes them on. */
void pm_entry_args(struct pm_kernel *k, struct pm_strbuf *b);
/* Size and alignment checks returning fail (sizes only when ptrs is 0). */
void pm_entry_checks(struct pm_kernel *k, struct pm_strbuf *b, int ptrs,
	const char *fail);
/* ", pm_ua" where k's file has an _unaligned row (the checks set pm_ua,
 * the plan's last argument), else "". */
const char *pm_entry_ua(const struct pm_kernel *k);
/* "pm_plan_NAME(sizes, &c, NOWS, pm_ua)": the plan's call, nows 1 for
 * the plan without a workspace. */
void pm_entry_plan_call(struct pm_kernel *k, struct pm_strbuf *b, int nows);
/* "IND if ((e = pm_plan_NAME(...)) != cudaSuccess) IND return e;" */
void pm_entry_plan(struct pm_kernel *k, struct pm_strbuf *b, int nows,
	const char *ind);
/* pm_ws_alloc_NAME and pm_ws_get_NAME: a launch's workspace, the stream's
 * kept one. */
void pm_entry_alloc_fn(struct pm_kernel *k, struct pm_strbuf *b);
void pm_entry_get_fn(struct pm_kernel *k, struct pm_strbuf *b);
/* NAME, NAME_ws and NAME_workspace_size of a file whose every launch
 * takes a workspace (entries.c; planned: the plan's choice c of several
 * kernels, else the one kernel). */
void pm_emit_kc_entries(struct pm_kernel *k, struct pm_strbuf *b,
	int planned);

#endif
