/* Shared-memory layouts of the promoted tiles (promote/internal.h): pitch,
 * swizzle and stage size per buffer, and the MN-block alignment that the
 * tensor cores' descriptors need. */
#include "target/target.h"
#include "promote/internal.h"

/* The canonical swizzled layouts the tensor cores read through descriptors
 * (sm_90a): rows of 16, 32 or 64 elements swizzled in place (SWZ 1), wider
 * tiles as blocks of 64 columns (SWZ 2), else of 32 (SWZ 3, the 64-byte
 * swizzle: 96 columns), else of 16 (SWZ 4, 32 bytes: 80); stages on
 * 1024-byte boundaries. */
static int layout_desc(struct pm_kernel *k, struct pm_buffer *buf,
	struct pm_diags *d)
{
	long w = buf->size[1];
	/* 8-bit elements (docs/decisions/0029): rows of 32, 64 or 128
	 * bytes, the same swizzles, twice the elements; K-major only, so
	 * rows of one swizzle span (no column blocks) */
	int e = k->eb == 1 ? 2 : 1;

	/* widened in the MMA's registers (conv_regs): one TMA box of the
	 * stored elements, its rows (32, 64 or 128 bytes) swizzled in place,
	 * stages of whole 1024 bytes */
	if (buf->conv_regs) {
		int eb = pm_buffer_eb(k, (int) (buf - k->bufs));

		buf->swz = 1;
		buf->pitch = w;
		buf->stage_elems = (buf->size[0] * w * eb + 1023) / 1024 * 1024 /
			eb;
		return 0;
	}
	if (k->cfg->smem != 2) {
		pm_diag_plain(d, "--target %s reads shared memory through wgmma "
			"descriptors: it needs --smem swizzle",
			k->cfg->target->name);
		return -1;
	}
	if (buf->vec != pm_kernel_vec(k) || buf->size[0] % 8 ||
	    (w != 16 * e && w != 32 * e && w != 64 * e &&
	     (e > 1 || w < 64 || w % 16))) {
		pm_diag_plain(d, "--target %s needs shared tiles of whole 8-row "
			"groups with rows of %s; '%s' is %ldx%ld",
			k->cfg->target->name, e > 1 ? "32, 64 or 128 8-bit "
			"elements" : "16, 32, 64 or more than 64 elements in "
			"multiples of 16", k->scop->spec->tensors[
			buf->tensor].name, buf->size[0], w);
		return -1;
	}
	/* wider: blocks of 64 columns (SWZ 2), else of 32 (SWZ 3: a B tile
	 * of 96 columns), else of 16 (SWZ 4: 80) */
	buf->swz = w <= 64 * e ? 1 : !(w % 64) ? 2 : !(w % 32) ? 3 : 4;
	buf->pitch = w;
	/* stages of whole 1024 bytes */
	buf->stage_elems = (buf->size[0] * buf->pitch + 512 * e - 1) /
		(512 * e) * (512 * e);
	return 0;
}

/* Is variable v (0 i, 1 j, 2 k) of read r the buffer's last (contiguous)
 * dimension? */
static int reads_last(const struct pm_buffer *buf, const struct pm_expr *r,
	int v)
{
	for (int i = 0; i < r->nidx; ++i)
		if (r->idx[i] == v)
			return i == buf->rank - 1;
	return 0;
}

/* Descriptors of an MN-major operand start on its swizzled column blocks
 * (the canonical layouts: an MN start inside a block breaks the pattern;
 * measured wrong results): in a tile of several blocks (SWZ 2-4), the
 * macro-MMAs' and the units' MN offsets must be multiples of the block
 * (64x192 warps of two 64x96 macro-MMAs are not). */
int pm_pr_check_mn_blocks(struct pm_kernel *k, int c, struct pm_diags *d)
{
	const struct pm_config *cfg = k->cfg;
	const struct pm_contraction *con = &k->con[c];

	for (int o = 0; o < 2 && cfg->target->desc_smem; ++o) {
		const struct pm_buffer *buf = &k->bufs[o ? con->buf_b :
			con->buf_a];
		/* A M-major: k not its last dimension; B N-major: j its last */
		int mn = o ? reads_last(buf, con->rb, 1) :
			!reads_last(buf, con->ra, 2);
		int w = buf->swz == 2 ? 64 : buf->swz == 3 ? 32 :
			buf->swz == 4 ? 16 : 0;
		int m = o ? cfg->mn : cfg->mm, u = o ? cfg->wn : cfg->wm;
		int b = o ? cfg->bn : cfg->bm;

		if (!mn || !w || ((u <= m || !(m % w)) && (b <= u || !(u % w))))
			continue;
		pm_diag_plain(d, "--target %s reads '%s' %s-major in swizzled "
			"blocks of %d columns: the macro-MMA's %s (%d) and the warp "
			"tile's (%d) must be multiples of %d where the tile has "
			"several (choose --mma or --warp accordingly)",
			cfg->target->name, k->scop->spec->tensors[buf->tensor].name,
			o ? "N" : "M", w, o ? "n" : "m", m, u, w);
		return -1;
	}
	return 0;
}

/* Pitch and swizzle of each buffer from --smem. */
int pm_pr_layout_buffers(struct pm_kernel *k, int first,
	struct pm_diags *d)
{
	/* the elements of a 16-byte chunk: 8, or 16 of 8-bit operands
	 * (sm_80's i8: the 16-bit rules in bytes,
	 * docs/decisions/0032-sm80-i8.md) */
	int e = pm_kernel_vec(k);

	for (int b = first; b < k->nbufs; ++b) {
		struct pm_buffer *buf = &k->bufs[b];
		long ch = buf->size[1] / e;

		if (k->cfg->target->desc_smem) {
			if (layout_desc(k, buf, d) < 0)
				return -1;
			continue;
		}
		buf->pitch = buf->size[1];
		buf->swz = 0;
		if (k->cfg->smem == 2) {
			if (buf->vec != e || ch < 4 || (ch & (ch - 1))) {
				pm_diag_plain(d, "--smem swizzle needs tile rows of "
					"%d, %d, %d or %d elements; '%s' has %ld "
					"(use --smem pad)", 4 * e, 8 * e, 16 * e,
					32 * e, k->scop->spec->tensors[
					buf->tensor].name, buf->size[1]);
				return -1;
			}
			buf->swz = 1;
		} else if (k->cfg->smem == 1) {
			buf->pitch += e;	/* one 16-byte chunk */
		}
		buf->stage_elems = buf->size[0] * buf->pitch;
	}
	return 0;
}
