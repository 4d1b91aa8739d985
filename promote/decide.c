/* The decisions emit/ prints but does not make, recorded on the kernel
 * once its promotion is done (pm_decide). */
#include "promote/promote.h"
#include "schedule_tree/tree.h"
#include "target/target.h"

int pm_kernel_threads(const struct pm_kernel *k)
{
	return pm_config_threads(k->cfg) + (!k->ws ? 0 : k->wg ? 128 :
		32);
}

int pm_wg_consumer_regs(int nt)
{
	int r = (65536 - 128 * PM_WG_PRODUCER_REGS) / (nt > 0 ? nt : 1) / 8 * 8;

	return r > 232 ? 232 : r;
}

/* Bytes of dynamic shared memory (all stages of the buffers of the
 * contraction that needs most: the contractions run one after the other,
 * and promote/ puts a barrier before a later one's first copies). */
static long smem_main(struct pm_kernel *k, int host, long *off)
{
	long bytes = 0, end[PM_MAX_CON] = { 0 };
	/* descriptor layouts: every tile's stages on 1024-byte boundaries */
	long align = !host && k->cfg->target->desc_smem ? 1024 : 128;
	long cst;

	for (int i = 0; i < k->nbufs; ++i) {
		long *e = &end[k->bufs[i].con];

		if (off)
			off[i] = *e;
		*e += k->cfg->stages * k->bufs[i].stage_elems * (host ? 4 :
			pm_buffer_eb(k, i));
		/* a converting copy's raw stages after its tile's
		 * (docs/decisions/0047) */
		if (k->bufs[i].raw_elems)
			*e = (*e + 15) / 16 * 16 + pm_buffer_raw_bytes(k, i, host);
		*e = (*e + align - 1) / align * align;
		bytes = *e > bytes ? *e : bytes;
	}
	/* the staged store's C tile reuses the operand buffers' memory;
	 * warp-specialized kernels: after them (the producer fills the
	 * stages with the next tile's k tiles meanwhile) */
	cst = !k->cst_pitch ? 0 :
		(long) k->cfg->bm * k->cst_pitch * (host ? 4 : 16 / k->cst_vec);
	if (off)
		off[k->nbufs] = k->ws ? bytes : 0;
	if (k->ws)
		bytes += cst;
	else
		bytes = cst > bytes ? cst : bytes;
	return bytes;
}

long pm_kernel_red_groups(const struct pm_kernel *k, int host, long *kext)
{
	const struct pm_config *c = k->cfg;
	/* the partials of the warps of a unit (sm_90a's warpgroup) each
	 * cover its rows of a macro tile; the host's warp the whole tile */
	long wpu = host ? 1 : pm_config_unit(c) / 32;
	long gm = (long) c->bm / c->mm * wpu, gn = c->bn / c->mn;

	switch (k->scop->spec->epired_kept) {
	case 0:
		*kext = c->bm;
		return gn;
	case 1:
		*kext = c->bn;
		return gm;
	default:
		*kext = 1;
		return gm * gn;
	}
}

long pm_kernel_red_at(struct pm_kernel *k, int host)
{
	return (smem_main(k, host, NULL) + 15) / 16 * 16;
}

/* The epilogue reduction's floats in shared memory: 4 (the block's
 * "last" flag, aligned), a partial per kept index and group, a float per
 * thread (the scalar's tree). */
static long red_floats(struct pm_kernel *k, int host)
{
	long kext, g = pm_kernel_red_groups(k, host, &kext);

	return 4 + g * kext + pm_kernel_threads(k);
}

long pm_kernel_smem_bytes(struct pm_kernel *k, int host, long *off)
{
	long bytes = smem_main(k, host, off);

	/* an epilogue reduction's partials: their own, the operand
	 * buffers may still be read by slower warps (emit/epired.c) */
	if (k->scop->spec->nepired)
		bytes = pm_kernel_red_at(k, host) + 4 * red_floats(k, host);
	/* TMA: the mbarriers after everything else (pm_kernel_nbars) */
	if (!host && pm_kernel_nbars(k))
		bytes = (bytes + 7) / 8 * 8 + 8 * pm_kernel_nbars(k);
	return bytes;
}

int pm_kernel_nbars(struct pm_kernel *k)
{
	for (int c = 0; c < k->ncon; ++c)
		if (k->tma[c])	/* warp-specialized: one ring for all; the
				 * split-K fixup through distributed shared
				 * memory: its "go" and "recv" after it */
			return 2 * k->cfg->stages * (k->ws ? 1 :
				pm_kernel_npipes(k)) +
				(k->dsm ? 2 : 0) + (k->last ? 1 : 0);
	return 0;
}

long pm_buffer_raw_off(const struct pm_kernel *k, int b, int host)
{
	return (k->cfg->stages * k->bufs[b].stage_elems * (host ? 4 : k->eb) +
		15) / 16 * 16;
}

long pm_buffer_raw_bytes(const struct pm_kernel *k, int b, int host)
{
	const struct pm_elem *e = pm_elem_storage(
		k->scop->spec->tensors[k->bufs[b].tensor].type);

	return k->cfg->stages * k->bufs[b].raw_elems * (host || !e ? 4 :
		e->bytes);
}

long pm_buffer_box_cols(const struct pm_buffer *b)
{
	return b->swz == 2 ? 64 : b->swz == 3 ? 32 : b->swz == 4 ? 16 :
		b->size[1];
}

long pm_buffer_boxes(const struct pm_buffer *b)
{
	long w = pm_buffer_box_cols(b);

	return (b->size[1] + w - 1) / w;
}

/* A producer warpgroup that gives its registers to the consumers
 * (setmaxnreg): a prologue through the MMA's registers (128 accumulators
 * and the A fragments do not fit in 224 registers beside a producer
 * warp), or two accumulators (they spilled beside a producer warp with a
 * residual; not split in clusters, which did not:
 * docs/decisions/0028-accumulator-registers.md); after decide_dsm. */
static int decide_wg(const struct pm_kernel *k)
{
	return k->ws && (pm_kernel_pro_regs(k) ||
		(k->ncon >= 2 && !k->acc_shared && !k->dsm));
}

/* Clusters of two blocks on vertically adjacent output tiles, each copying
 * half of every contraction's B tile into both by multicast (--cluster 2):
 * persistent, not split, a staged store, every tile by TMA, each B tile of
 * whole boxes in pairs or of one box of 16 k rows or more (its halves by
 * rows; docs/decisions/0017-multicast-off-by-default.md). */
static int decide_mc(const struct pm_kernel *k)
{
	/* grouped: two tile rows of a cluster may be two groups', whose B
	 * differ (docs/decisions/0051-grouped-persistent-units.md) */
	if (!k->ws || k->cfg->cluster != 2 || k->scop->nsplit ||
	    !k->cst_pitch || !k->cfg->target->emits_cuda || k->wg ||
	    k->scop->spec->grouped)
		return 0;
	for (int i = 0; i < k->nbufs; ++i)
		if (!k->bufs[i].tma)
			return 0;
	for (int c = 0; c < k->ncon; ++c) {
		const struct pm_buffer *b = &k->bufs[k->con[c].buf_b];
		long n = pm_buffer_boxes(b);

		if (n % 2 && (n != 1 || b->size[0] % 16))
			return 0;
	}
	return 1;
}

int pm_buffer_is_b(const struct pm_kernel *k, int i)
{
	for (int c = 0; c < k->ncon; ++c)
		if (k->con[c].buf_b == i)
			return 1;
	return 0;
}

/* The split persistent kernel that can run in clusters, a tile's chunks
 * reduced through distributed shared memory (not --cluster 1;
 * docs/decisions/0015-cluster-dsm-split-vs-workspace.md). */
static int decide_dsm(const struct pm_kernel *k)
{
	return k->ws && k->scop->nsplit && k->cfg->target->emits_cuda &&
		k->cfg->cluster != 1;
}

/* The split persistent kernel whose last chunk of a tile to arrive sums
 * the tile (a row's cfg->last_arrive; not in clusters: those reduce
 * through distributed shared memory;
 * docs/decisions/0058-last-arriver-split.md). */
static int decide_last(const struct pm_kernel *k)
{
	return k->cfg->last_arrive && k->ws && k->scop->nsplit && !k->dsm &&
		!k->mc && k->cfg->target->emits_cuda;
}

void pm_decide(struct pm_kernel *k)
{
	k->dsm = decide_dsm(k);
	k->wg = decide_wg(k);
	k->mc = decide_mc(k);
	k->last = decide_last(k);
	for (int i = 0; i < k->nbufs; ++i)
		k->bufs[i].mc_rows = k->mc && pm_buffer_is_b(k, i) &&
			pm_buffer_boxes(&k->bufs[i]) == 1;
}
