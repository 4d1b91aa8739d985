/* The launch description as bytes, and its argument lists (runtime/jit.h).
 * The bytes: every field in declaration order, integers as 8 bytes
 * little-endian, strings as their fixed buffers' bytes. */
#include <stdio.h>
#include <string.h>

#include "runtime/jit.h"

struct pm_rt_io {
	unsigned char *buf;	/* pack: NULL counts only */
	const unsigned char *in;	/* unpack */
	size_t len, pos;
	int bad;
};

static void put(struct pm_rt_io *io, int64_t v)
{
	if (io->buf)
		for (int i = 0; i < 8; ++i)
			io->buf[io->pos + i] = (unsigned char)
				((uint64_t) v >> (8 * i));
	io->pos += 8;
}

static int64_t get(struct pm_rt_io *io, int64_t lo, int64_t hi)
{
	uint64_t v = 0;

	if (io->bad || io->len - io->pos < 8) {
		io->bad = 1;
		return lo;
	}
	for (int i = 0; i < 8; ++i)
		v |= (uint64_t) io->in[io->pos + i] << (8 * i);
	io->pos += 8;
	if ((int64_t) v < lo || (int64_t) v > hi) {
		io->bad = 1;
		return lo;
	}
	return (int64_t) v;
}

/* A fixed string buffer of n bytes (NUL-terminated on unpack). */
static void str(struct pm_rt_io *io, char *s, size_t n, int out)
{
	if (out) {
		if (io->buf)
			memcpy(io->buf + io->pos, s, n);
		io->pos += n;
		return;
	}
	if (io->bad || io->len - io->pos < n) {
		io->bad = 1;
		return;
	}
	memcpy(s, io->in + io->pos, n);
	s[n - 1] = 0;
	io->pos += n;
}

#define BIG ((int64_t) 1 << 62)
/* Field x, an integer in [lo, hi]. */
#define F(x, lo, hi) do { \
	if (out) \
		put(io, (int64_t) (x)); \
	else \
		(x) = get(io, lo, hi); \
} while (0)

static void dim(struct pm_rt_io *io, struct pm_rt_dim *d, int out)
{
	F(d->sym, -1, PM_RT_JIT_SYMS - 1);
	F(d->value, 0, BIG);
}

static void variant(struct pm_rt_io *io, struct pm_rt_variant *v, int out)
{
	F(v->role, 0, PM_RT_NROLES - 1);
	F(v->bm, 1, 1 << 16);
	F(v->bn, 1, 1 << 16);
	F(v->bk, 1, 1 << 16);
	F(v->threads, 1, 1 << 16);
	F(v->smem, 0, 1 << 30);
	F(v->flags, 0, 0xffff);
	F(v->cwarps, 0, 1 << 16);
	F(v->cl_warp_bytes, 0, 1 << 30);
	F(v->cl_room, 0, 1 << 30);
}

static void row(struct pm_rt_io *io, struct pm_rt_jit_row *r, int out)
{
	str(io, r->suffix, sizeof(r->suffix), out);
	F(r->bm, 1, 1 << 16);
	F(r->bn, 1, 1 << 16);
	F(r->threads, 1, 1 << 16);
	F(r->smem, 0, 1 << 30);
	F(r->twin, 0, 1);
	F(r->part[0], 0, PM_RT_MAX_PARTS - 1);
	F(r->part[1], 0, PM_RT_MAX_PARTS - 1);
	for (int s = 0; s < PM_RT_JIT_SYMS; ++s)
		F(r->twin_mult[s], 0, 1 << 16);
	F(r->nsplit, 0, PM_RT_MAX_K);
	F(r->tdp, 0, 1);
	F(r->cl, 0, 1);
	F(r->zsplit, 0, 1);
	F(r->persistent, 0, 1);
	F(r->mc, 0, 1);
	F(r->ntma, 0, PM_RT_JIT_TMA);
	for (int i = 0; i < r->ntma; ++i) {
		struct pm_rt_tma *m = &r->tma[i];

		F(m->buf, 0, 255);
		F(m->tensor, 0, PM_RT_JIT_TENSORS - 1);
		dim(io, &m->rows, out);
		dim(io, &m->cols, out);
		F(m->box_rows, 1, 256);
		F(m->box_cols, 1, 256);
		F(m->swizzle, 0, 1024);
		F(m->dtype, 0, 64);
		F(m->esize, 1, 16);
		F(m->batched, 0, 1);
		F(m->kc, 0, 1);
	}
}

static void all(struct pm_rt_io *io, struct pm_rt_jit *j, int out)
{
	str(io, j->name, sizeof(j->name), out);
	F(j->nsyms, 0, PM_RT_JIT_SYMS);
	for (int s = 0; s < j->nsyms; ++s) {
		str(io, j->sym_name[s], sizeof(j->sym_name[s]), out);
		F(j->fixed[s], 0, BIG);
	}
	F(j->nsizes, 0, PM_RT_JIT_SYMS);
	for (int i = 0; i < j->nsizes; ++i) {
		F(j->order[i], 0, PM_RT_JIT_SYMS - 1);
		F(j->align[i], 1, 1 << 16);
	}
	F(j->ntensors, 1, PM_RT_JIT_TENSORS);
	for (int t = 0; t < j->ntensors; ++t) {
		str(io, j->tname[t], sizeof(j->tname[t]), out);
		F(j->talign[t], 1, 256);
	}
	F(j->has_ua, 0, 1);
	for (int i = 0; i < j->nsizes; ++i)
		F(j->ua_align[i], 1, 1 << 16);
	for (int t = 0; t < j->ntensors; ++t)
		F(j->ua_talign[t], 1, 256);
	dim(io, &j->m, out);
	dim(io, &j->n, out);
	F(j->nbatch, 0, PM_RT_JIT_BATCH);
	for (int b = 0; b < j->nbatch; ++b)
		dim(io, &j->bdims[b], out);
	F(j->grouped, 0, 1);
	for (int r = 0; r < PM_RT_MAX_K; ++r)
		dim(io, &j->k[r], out);
	for (int o = 0; o < 2; ++o) {
		dim(io, &j->pitch[o], out);
		F(j->pitch_bytes[o], 0, 16);
		F(j->pitch_kc[o], 0, 1);
	}
	F(j->nkc, 0, PM_RT_JIT_KC);
	F(j->kc_split, 0, 1);
	for (int i = 0; i < j->nkc; ++i) {
		F(j->kc[i].tensor, 0, PM_RT_JIT_TENSORS - 1);
		dim(io, &j->kc[i].r, out);
		dim(io, &j->kc[i].c, out);
	}
	F(j->ninputs, 0, PM_RT_JIT_TENSORS);
	F(j->npre, 0, PM_RT_JIT_KC);
	for (int i = 0; i < j->npre; ++i) {
		F(j->pre[i].tensor, 0, PM_RT_JIT_TENSORS - 1);
		F(j->pre[i].esize, 1, 16);
		F(j->pre[i].batched, 0, 1);
		F(j->pre[i].per_group, 0, 1);
		dim(io, &j->pre[i].r, out);
		dim(io, &j->pre[i].c, out);
		dim(io, &j->pre[i].reuse, out);
	}
	F(j->planned, 0, 1);
	F(j->pdl, 0, 1);
	F(j->red, 0, 3);
	F(j->red_bm, 0, 1 << 16);
	F(j->red_bn, 0, 1 << 16);
	F(j->spec.nk, 1, PM_RT_MAX_K);
	F(j->spec.ncon, 1, PM_RT_MAX_K);
	F(j->spec.nacc, 1, PM_RT_MAX_K);
	F(j->spec.split_k, 0, 1 << 16);
	F(j->spec.ra.partial, 0, 1 << 20);
	F(j->spec.ra.medium, 0, 1 << 20);
	F(j->spec.ra.wide, 0, 1 << 20);
	F(j->spec.ra.tall, 0, 1 << 20);
	F(j->spec.ra.mid, 0, 1 << 20);
	F(j->spec.sq.gain, 0, 1 << 20);
	F(j->spec.sq.mid, 0, 1 << 20);
	F(j->spec.sq.wide, 0, 1 << 20);
	F(j->spec.sq.tall, 0, 1 << 20);
	F(j->spec.sq.sq, 0, 1 << 20);
	F(j->nrows, 1, PM_RT_MAX_VARIANTS);
	for (int i = 0; i < j->nrows; ++i) {
		variant(io, &j->rows[i], out);
		row(io, &j->kern[i], out);
	}
}

void pm_rt_jit_fix(struct pm_rt_jit *j)
{
	for (int i = 0; i < j->nrows && i < PM_RT_MAX_VARIANTS; ++i)
		j->rows[i].suffix = j->kern[i].suffix;
}

void pm_rt_jit_pack(const struct pm_rt_jit *j, unsigned char *buf,
	size_t *len)
{
	struct pm_rt_io io = { buf, NULL, 0, 0, 0 };
	struct pm_rt_jit c = *j;	/* all() takes a writable one */

	all(&io, &c, 1);
	*len = io.pos;
}

int pm_rt_jit_unpack(const unsigned char *buf, size_t len,
	struct pm_rt_jit *j)
{
	struct pm_rt_io io = { NULL, buf, len, 0, 0 };

	memset(j, 0, sizeof(*j));
	all(&io, j, 0);
	if (io.bad || io.pos != len)
		return -1;
	for (int i = 0; i < j->nrows; ++i)
		for (int t = 0; t < j->kern[i].ntma; ++t)
			if (j->kern[i].tma[t].tensor >= j->ntensors)
				return -1;
	pm_rt_jit_fix(j);
	return 0;
}

int64_t pm_rt_dim_value(const struct pm_rt_dim *d, const int64_t *sizes)
{
	return d->sym >= 0 ? sizes[d->sym] : d->value;
}

int64_t pm_rt_jit_batch(const struct pm_rt_jit *j, const int64_t *sizes)
{
	int64_t nb = 1;

	/* saturated past 2^40: more than any launch runs */
	for (int b = 0; b < j->nbatch; ++b) {
		int64_t v = pm_rt_dim_value(&j->bdims[b], sizes);

		nb = v < 1 ? 0 : nb > ((int64_t) 1 << 40) / v ?
			(int64_t) 1 << 40 : nb * v;
	}
	return nb;
}

int pm_rt_jit_mis(const struct pm_rt_jit *j, const int64_t *sizes)
{
	int mis = 0;

	for (int o = 0; o < 2; ++o) {
		int64_t p = pm_rt_dim_value(&j->pitch[o], sizes);

		mis |= pm_rt_pitch_mis(j->pitch_kc[o] ? pm_rt_kc_pitch(p) : p,
			j->pitch_bytes[o]) << o;
	}
	return mis;
}

int64_t pm_rt_kc_pitch(int64_t r)
{
	return (r + 15) / 16 * 16;
}

size_t pm_rt_jit_kc_bytes(const struct pm_rt_jit *j, const int64_t *sizes,
	size_t *off)
{
	size_t n = 0;

	for (int i = 0; i < j->nkc; ++i) {
		const int64_t r = pm_rt_dim_value(&j->kc[i].r, sizes);
		const int64_t c = pm_rt_dim_value(&j->kc[i].c, sizes);

		if (off)
			off[i] = n;
		n += ((size_t) c * (size_t) pm_rt_kc_pitch(r) + 255) / 256 *
			256;
	}
	return n;
}

size_t pm_rt_jit_pre_bytes(const struct pm_rt_jit *j, const int64_t *sizes,
	size_t *off)
{
	size_t n = 0;

	for (int i = 0; i < j->npre; ++i) {
		const int64_t r = pm_rt_dim_value(&j->pre[i].r, sizes);
		const int64_t c = pm_rt_dim_value(&j->pre[i].c, sizes);

		if (off)
			off[i] = n;
		n += ((size_t) r * (size_t) c * (size_t) j->pre[i].esize *
			(size_t) (j->pre[i].batched ? pm_rt_jit_batch(j, sizes) :
			1) + 255) / 256 * 256;
	}
	return n;
}

int pm_rt_jit_args(const struct pm_rt_jit *j, int r, char *buf, size_t n)
{
	const struct pm_rt_jit_row *k = &j->kern[r];
	size_t off = 0;

#define ADD(...) do { \
	int w_ = snprintf(buf + (off < n ? off : n), off < n ? n - off : 0, \
		__VA_ARGS__); \
	off += w_ > 0 ? (size_t) w_ : 0; \
} while (0)
	for (int t = 0; t < j->ntensors; ++t)
		ADD("%s%s", t ? ", " : "", j->tname[t]);
	for (int i = 0; i < j->nsizes; ++i)
		ADD(", (int) %s", j->sym_name[j->order[i]]);
	if (k->nsplit) {
		ADD(", c->s > 1 && workspace ? (float *) ((char *) workspace + "
			"c->cnt_bytes) : (float *) 0, (unsigned *) workspace");
		for (int i = 0; i < k->nsplit; ++i)
			ADD(", (int) c->kc[%d]", i);
		if (k->tdp)
			ADD(", (unsigned) c->tdp");
		if (k->cl)
			ADD(", (int) c->cl");
	}
	if (j->red) {
		ADD(", (float *) ((char *) workspace + pm_red_cnt_%s(", j->name);
		for (int i = 0; i < j->nsizes; ++i)
			ADD("%s%s", i ? ", " : "", j->sym_name[j->order[i]]);
		ADD(")), (unsigned *) workspace");
	}
	for (int i = 0; i < k->ntma; ++i)
		ADD(", pm_tm%d", k->tma[i].buf);
#undef ADD
	return (int) off;
}

size_t pm_rt_jit_red_bytes(const struct pm_rt_jit *j, const int64_t *sizes,
	size_t *cnt)
{
	const int64_t m = pm_rt_dim_value(&j->m, sizes);
	const int64_t n = pm_rt_dim_value(&j->n, sizes);
	const int64_t tm = j->red_bm > 0 ? (m + j->red_bm - 1) / j->red_bm : 0;
	const int64_t tn = j->red_bn > 0 ? (n + j->red_bn - 1) / j->red_bn : 0;
	const int64_t kept = j->red == 1 ? m : j->red == 2 ? n : 16;

	*cnt = 0;
	if (!j->red || m < 1 || n < 1)
		return 0;
	*cnt = ((size_t) (kept + 15) / 16 * 4 + 255) / 256 * 256;
	if (j->red == 1)
		return *cnt + (size_t) m * (size_t) tn * 4;
	if (j->red == 2)
		return *cnt + (size_t) n * (size_t) tm * 4;
	return *cnt + (size_t) tm * (size_t) tn * 4;
}
