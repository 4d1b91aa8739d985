/* The outputs beside the generated source (emit/file.c's pm_emit_file):
 * the C header of the launcher (its entry points' signatures) and the
 * configuration as JSON (--meta; python/ reads its "symbols" and
 * "tensors"). Both malloc'ed, NULL when out of memory. */
#ifndef PM_EMIT_OUTPUTS_H
#define PM_EMIT_OUTPUTS_H

#include "schedule_tree/tree.h"

char *pm_emit_header(struct pm_kernel *k);
char *pm_emit_meta(struct pm_kernel *k);
/* "1", "\"auto\"" or the fixed number of chunks in buf (16 bytes; JSON) */
const char *pm_emit_split_str(struct pm_kernel *k, char *buf);
/* --smem's name: "plain", "pad" or "swizzle" */
const char *pm_emit_smem_name(int smem);

#endif
