/* Internal to emit/: the TMA pipeline's ops (tma.c). */
#ifndef PM_EMIT_TMA_H
#define PM_EMIT_TMA_H

#include "emit/frame.h"

/* A TMA buffer's COPY (thread 0 issues the tile's boxes; the
 * contraction's first buffer also waits for the stage's release and arms
 * its full barrier); copies only where pred (when not NULL) holds. */
void pm_print_tma_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred);
/* The WAIT of a TMA contraction: tile kt's boxes have landed. */
void pm_print_tma_wait(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* RELEASE: each warp done with tile kt's stage arrives on its "empty"
 * barrier. */
void pm_print_release(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* DRAIN of a warp-specialized kernel with one k tile of MMAs in flight
 * (--mma-inflight on): all but tile kt's group, all after the last. */
void pm_print_ws_drain(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a);

#endif
