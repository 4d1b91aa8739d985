/* Internal to emit/: the host entry points of a generated file
 * (launch.c). */
#ifndef PM_EMIT_LAUNCH_H
#define PM_EMIT_LAUNCH_H

#include "emit/frame.h"

struct pm_variant_set;
/* The host entry points of the variant set's kernels (and their launch
 * plan, table.c). */
void pm_emit_launcher(const struct pm_variant_set *vs, struct pm_strbuf *b);

#endif
