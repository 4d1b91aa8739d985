/* Shared-memory bank simulation of the tile layouts of runtime/device/.
 *
 * Model: 32 banks x 4 bytes. A warp's 16-byte accesses (ldmatrix rows,
 * 16-byte copies) are served in 4 phases of 8 lanes; a phase is conflict-free
 * iff its 8 lanes touch 8 distinct 16-byte bank groups, i.e. distinct
 * (byte_address / 16) % 8 (lanes reading the same 16 bytes are a broadcast,
 * not a conflict). The conflicts of a phase are (the largest number of
 * distinct 16-byte units in one group) - 1, i.e. the extra wavefronts.
 *
 * Addresses come from pm_smem_off_h (host.h, the C twin of pm_smem_off in
 * common.cuh). The ldmatrix lane addresses below mirror pm_sm80_mma_tile
 * (sm80.cuh); test_ldsm_fragments checks, by simulating ldmatrix, that these
 * addresses deliver exactly the m16n8k16 A/B fragments, so the mirror cannot
 * silently drift into a different (conflict-free but wrong) pattern; the
 * i8 loads (1-byte elements, m16n8k32) the same way, test_ldsm_s8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/device/host.h"

/* ---------------------------------------------------------------------- */
/* bank model */

/* Conflicts (extra wavefronts) of one phase of n 16-byte accesses. */
static int phase_conflicts(const long *addr, int n)
{
	int cnt[8] = { 0 }, worst = 0;

	for (int i = 0; i < n; ++i) {
		int dup = 0;

		assert_int_equal(addr[i] % 16, 0);
		for (int j = 0; j < i; ++j)
			if (addr[j] / 16 == addr[i] / 16)
				dup = 1;
		if (!dup)
			cnt[(addr[i] / 16) % 8]++;
	}
	for (int g = 0; g < 8; ++g)
		if (cnt[g] > worst)
			worst = cnt[g];
	return worst ? worst - 1 : 0;
}

/* Conflicts of one warp-wide 16-byte access of `lanes` lanes (32: 4 phases,
 * 16: ldmatrix .x2, 2 phases). */
static int warp_conflicts(const long *addr, int lanes)
{
	int c = 0;

	for (int ph = 0; ph < lanes / 8; ++ph)
		c += phase_conflicts(addr + 8 * ph, 8);
	return c;
}

/* ---------------------------------------------------------------------- */
/* ldmatrix lane addresses of pm_sm80_mma_tile (mirror of sm80.cuh) */

enum { OP_A = 0, OP_B = 1 };

/* Logical (row, col) of the stored tile that lane `lane` addresses for the
 * ldmatrix of operand op with orientation kc (A_KC for A, B_NC for B):
 * A: fragment block im (blk), k-step kk, always .x4;
 * B: n8 tiles blk, blk+1 (.x4) or blk alone (.x2), k-step kk. */
static void ldsm_lane_rc(int op, int kc, int x2, int blk, int kk, int lane,
	int *row, int *col)
{
	int li = lane & 7, j0 = (lane >> 3) & 1, j1 = lane >> 4;

	if (op == OP_A) {
		int m = blk * 16 + 8 * j0 + (kc ? li : 0);
		int k = kk + 8 * j1 + (kc ? 0 : li);

		*row = kc ? m : k;
		*col = kc ? k : m;
	} else {
		int n = blk * 8 + (x2 ? 0 : 8 * j1) + (kc ? 0 : li);
		int k = kk + 8 * j0 + (kc ? li : 0);

		*row = kc ? k : n;
		*col = kc ? n : k;
	}
}

static long ldsm_lane_addr(int op, int kc, int x2, int blk, int kk, int lane,
	int p, int swz, int r0, int c0)
{
	int row, col;

	ldsm_lane_rc(op, kc, x2, blk, kk, lane, &row, &col);
	return 2L * pm_smem_off_h(p, swz, r0 + row, c0 + col);
}

/* Visit every ldmatrix of one pm_sm80_mma_tile<mm, mn, mk> call on one
 * operand; returns the total conflicts (and the number of phases). */
static int ldsm_call_conflicts(int op, int kc, int mm, int mn, int mk, int p,
	int swz, int r0, int c0, int *phases)
{
	long addr[32];
	int c = 0;

	for (int kk = 0; kk < mk; kk += 16) {
		if (op == OP_A) {
			for (int im = 0; im < mm / 16; ++im) {
				for (int l = 0; l < 32; ++l)
					addr[l] = ldsm_lane_addr(op, kc, 0, im, kk,
						l, p, swz, r0, c0);
				c += warp_conflicts(addr, 32);
				*phases += 4;
			}
		} else {
			int in_n = mn / 8, in;

			for (in = 0; in + 1 < in_n; in += 2) {
				for (int l = 0; l < 32; ++l)
					addr[l] = ldsm_lane_addr(op, kc, 0, in, kk,
						l, p, swz, r0, c0);
				c += warp_conflicts(addr, 32);
				*phases += 4;
			}
			if (in_n % 2) {
				for (int l = 0; l < 16; ++l)
					addr[l] = ldsm_lane_addr(op, kc, 1, in_n - 1,
						kk, l, p, swz, r0, c0);
				c += warp_conflicts(addr, 16);
				*phases += 2;
			}
		}
	}
	return c;
}

static const int shapes[][3] = {
	{ 16, 8, 16 }, { 16, 16, 16 }, { 32, 32, 16 }, { 64, 32, 16 },
	{ 48, 24, 32 }, { 64, 64, 32 }, { 32, 64, 16 }, { 128, 128, 16 },
};
#define NSHAPES ((int)(sizeof(shapes) / sizeof(shapes[0])))
static const int pitches[] = { 32, 64, 128 };

/* Stored width (columns) of an operand tile of one k-step. */
static int stored_cols(int op, int kc, int mm, int mn, int mk)
{
	if (op == OP_A)
		return kc ? mk : mm;
	return kc ? mn : mk;
}

/* Total ldmatrix conflicts over every shape, operand, orientation and
 * origin (rows 0..31 -- multiples of 8/16 and the rest --, columns every
 * multiple of 8 that fits) for logical width w, pitch p, swizzle swz. */
static long ldsm_all_conflicts(int w, int p, int swz, long *phases_out)
{
	long total = 0;
	int phases = 0;

	for (int s = 0; s < NSHAPES; ++s)
		for (int op = 0; op < 2; ++op)
			for (int kc = 0; kc < 2; ++kc) {
				int mm = shapes[s][0], mn = shapes[s][1];
				int mk = shapes[s][2];
				int cols = stored_cols(op, kc, mm, mn, mk);

				for (int r0 = 0; r0 < 32; ++r0)
					for (int c0 = 0; c0 + cols <= w; c0 += 8)
						total += ldsm_call_conflicts(op, kc,
							mm, mn, mk, p, swz, r0, c0,
							&phases);
			}
	if (phases_out)
		*phases_out = phases;
	return total;
}

/* ---------------------------------------------------------------------- */
/* global -> shared copy pattern: thread t of an nt-thread block writes
 * 16-byte unit (l0, v), l0 = t / (w/8) + pass * rows_per_pass, v = t % (w/8),
 * for a rows x w tile stored with pitch p. */
static long copy_conflicts(int w, int p, int swz, int nt, int rows)
{
	int upr = w / 8, rpp = nt / upr;
	long total = 0;

	for (int pass = 0; pass * rpp < rows; ++pass)
		for (int warp = 0; warp < nt / 32; ++warp) {
			long addr[32];

			for (int l = 0; l < 32; ++l) {
				int t = warp * 32 + l;
				int l0 = t / upr + pass * rpp, v = t % upr;

				addr[l] = 2L * pm_smem_off_h(p, swz, l0, 8 * v);
			}
			total += warp_conflicts(addr, 32);
		}
	return total;
}

/* ---------------------------------------------------------------------- */
/* tests */

/* pm_smem_off_h permutes each row's elements and keeps 8-element chunks
 * contiguous and 16-byte aligned. */
static void test_swizzle_bijection(void **state)
{
	static const int ps[] = { 8, 16, 32, 64, 128, 192, 256 };

	(void)state;
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); ++i) {
		int p = ps[i];
		char *seen = calloc((size_t)p, 1);

		assert_non_null(seen);
		for (int r = 0; r < 64; ++r) {
			memset(seen, 0, (size_t)p);
			for (int c = 0; c < p; ++c) {
				int o = pm_smem_off_h(p, 1, r, c) - r * p;

				assert_true(o >= 0 && o < p);
				assert_false(seen[o]);
				seen[o] = 1;
				if (c % 8)
					assert_int_equal(o,
						pm_smem_off_h(p, 1, r, c - 1) -
						r * p + 1);
				else
					assert_int_equal(o % 8, 0);
				assert_int_equal(pm_smem_off_h(p, 0, r, c),
					r * p + c);
			}
		}
		free(seen);
	}
	/* spot values of the documented formula */
	assert_int_equal(pm_smem_off_h(32, 1, 3, 5), 3 * 32 + 1 * 8 + 5);
	assert_int_equal(pm_smem_off_h(64, 1, 5, 17), 5 * 64 + (2 ^ 5) * 8 + 1);
	assert_int_equal(pm_smem_off_h(128, 1, 11, 70),
		11 * 128 + (8 ^ 3) * 8 + 6);
}

/* Simulated ldmatrix with the mirrored lane addresses yields the m16n8k16
 * fragments (PTX fragment tables, see sm80.cuh). Shared memory holds the
 * logical coordinates of each element. */
static void test_ldsm_fragments(void **state)
{
	enum { R = 96, P = 128 };
	static int mem_row[R * P], mem_col[R * P];

	(void)state;
	for (int pi = 0; pi < 3; ++pi)
		for (int swz = 0; swz < 2; ++swz)
			for (int op = 0; op < 2; ++op)
				for (int kc = 0; kc < 2; ++kc)
					for (int x2 = 0; x2 < 1 + (op == OP_B); ++x2) {
		int p = pitches[pi], r0 = 5, c0 = 8;
		int rowaddr[32], blk = 1, kk = 16;

		for (int r = 0; r < R; ++r)
			for (int c = 0; c < p; ++c) {
				mem_row[pm_smem_off_h(p, swz, r, c)] = r;
				mem_col[pm_smem_off_h(p, swz, r, c)] = c;
			}
		if (c0 + 16 * 2 + 16 > p)
			c0 = 0;
		for (int l = 0; l < 32; ++l)
			rowaddr[l] = (int)(ldsm_lane_addr(op, kc, x2, blk, kk, l,
				p, swz, r0, c0) / 2);
		/* trans iff the stored rows are k (A_KC=0, B_NC=1) */
		int trans = op == OP_A ? !kc : kc;
		for (int l = 0; l < 32; ++l) {
			int g = l >> 2, t = l & 3;

			for (int d = 0; d < (x2 ? 2 : 4); ++d)
				for (int h = 0; h < 2; ++h) {
					int e;	/* element index in shared memory */
					int sr, sc;	/* its stored (row, col) */
					int m_or_n, k;	/* expected logical */

					if (!trans)
						e = rowaddr[8 * d + g] + 2 * t + h;
					else
						e = rowaddr[8 * d + 2 * t + h] + g;
					sr = mem_row[e] - r0;
					sc = mem_col[e] - c0;
					if (op == OP_A) {
						/* a[2d + h]: row g + 8(d&1),
						 * col 2t + h + 8(d>>1) */
						m_or_n = blk * 16 + g + 8 * (d & 1);
						k = kk + 2 * t + h + 8 * (d >> 1);
						assert_int_equal(kc ? sr : sc, m_or_n);
						assert_int_equal(kc ? sc : sr, k);
					} else {
						/* reg d: n-tile blk + d/2,
						 * b[2(d&1) + h]: k 2t + h + 8(d&1),
						 * n g */
						m_or_n = (blk + d / 2) * 8 + g;
						k = kk + 2 * t + h + 8 * (d & 1);
						assert_int_equal(kc ? sc : sr, m_or_n);
						assert_int_equal(kc ? sr : sc, k);
					}
				}
		}
	}
}

static void test_ldsm_swizzled(void **state)
{
	(void)state;
	for (int pi = 0; pi < 3; ++pi) {
		int p = pitches[pi];
		long phases = 0, c = ldsm_all_conflicts(p, p, 1, &phases);

		printf("ldmatrix  P=%3d swz=1           : %ld conflicts in %ld "
			"phases\n", p, c, phases);
		assert_true(phases > 0);
		assert_int_equal(c, 0);
	}
}

static void test_ldsm_padded(void **state)
{
	(void)state;
	for (int pi = 0; pi < 3; ++pi) {
		int p = pitches[pi];
		long phases = 0, c = ldsm_all_conflicts(p, p + 8, 0, &phases);

		printf("ldmatrix  P=%3d swz=0 pitch=%3d : %ld conflicts in %ld "
			"phases\n", p, p + 8, c, phases);
		assert_true(phases > 0);
		assert_int_equal(c, 0);
	}
}

static void test_ldsm_plain_conflicts(void **state)
{
	(void)state;
	for (int pi = 0; pi < 3; ++pi) {
		int p = pitches[pi];
		long phases = 0, c = ldsm_all_conflicts(p, p, 0, &phases);

		printf("ldmatrix  P=%3d swz=0 pitch=%3d : %ld conflicts in %ld "
			"phases (plain layout, expected > 0)\n", p, p, c,
			phases);
		assert_true(c > 0);
	}
}

static void test_copy_pattern(void **state)
{
	static const int nts[] = { 64, 128, 256 };

	(void)state;
	for (int pi = 0; pi < 3; ++pi)
		for (size_t ni = 0; ni < sizeof(nts) / sizeof(nts[0]); ++ni) {
			int p = pitches[pi], nt = nts[ni], rows = 128;
			long sw = copy_conflicts(p, p, 1, nt, rows);
			long pad = copy_conflicts(p, p + 8, 0, nt, rows);
			long plain = copy_conflicts(p, p, 0, nt, rows);

			printf("g2s copy  P=%3d threads=%3d: swz=1 %ld, padded "
				"%ld, plain %ld conflicts\n", p, nt, sw, pad,
				plain);
			assert_int_equal(sw, 0);
		}
}

/* ---------------------------------------------------------------------- */
/* i8 on sm_80 (docs/decisions/0032-sm80-i8.md): 1-byte elements, 16 to a
 * chunk (pm_smem_off<P, SWZ, 0, 16>), K-major tiles only (A [m][k], B
 * [n][k]), 32 bytes of k a step: pm_sm80_ldf with E = 16 */

/* pm_smem_off<P, SWZ, 0, 16>: the byte offset of (r, c) */
static int off_s8(int p, int swz, int r, int c)
{
	int ch = p / 16, x;

	if (!swz)
		return r * p + c;
	x = ch >= 8 ? (r & 7) :
		(int)(((unsigned)r / (unsigned)(8 / ch)) & (unsigned)(ch - 1));
	return r * p + (((c >> 4) ^ x) << 4) + (c & 15);
}

/* The byte address lane `lane` gives the ldmatrix of op (mirror of
 * pm_sm80_ldf with A_KC = 1, B_NC = 0, E = 16). */
static long ldsm8_lane_addr(int op, int x2, int blk, int kk, int lane, int p,
	int swz, int r0, int c0)
{
	int li = lane & 7, j0 = (lane >> 3) & 1, j1 = lane >> 4;

	if (op == OP_A)
		return off_s8(p, swz, r0 + blk * 16 + 8 * j0 + li,
			c0 + kk + 16 * j1);
	return off_s8(p, swz, r0 + blk * 8 + (x2 ? 0 : 8 * j1) + li,
		c0 + kk + 16 * j0);
}

/* Simulated ldmatrix (each lane: 4 bytes, word t of row g of matrix d)
 * with those addresses yields the m16n8k32 .s8 fragments of the PTX ISA:
 * A reg d byte h = a[4d + h], row g + 8(d & 1), col 4t + h + 16(d >> 1);
 * B reg d (n-tile blk + d/2) byte h = b[4(d & 1) + h], k 4t + h +
 * 16(d & 1), column g; and every phase is free of bank conflicts on the
 * rows sm_80 makes (swizzled rows of 64, 128 or 256 bytes, padded by one
 * chunk). */
static void test_ldsm_s8(void **state)
{
	enum { R = 96, PMAX = 272 };
	static const int cfg[][2] = { { 64, 1 }, { 128, 1 }, { 256, 1 },
		{ 80, 0 }, { 144, 0 } };
	static int mem_row[R * PMAX], mem_col[R * PMAX];

	(void)state;
	for (size_t ci = 0; ci < sizeof(cfg) / sizeof(cfg[0]); ++ci)
		for (int op = 0; op < 2; ++op)
			for (int x2 = 0; x2 < 1 + (op == OP_B); ++x2)
				for (int kk = 0; kk < 64; kk += 32) {
		int p = cfg[ci][0], swz = cfg[ci][1], w = swz ? p : p - 16;
		int r0 = 5, c0 = w > 64 ? 64 : 0, blk = 1;
		long addr[32];

		for (int r = 0; r < R; ++r)
			for (int c = 0; c < w; ++c) {
				mem_row[off_s8(p, swz, r, c)] = r;
				mem_col[off_s8(p, swz, r, c)] = c;
			}
		for (int l = 0; l < 32; ++l) {
			addr[l] = ldsm8_lane_addr(op, x2, blk, kk, l, p, swz,
				r0, c0);
			assert_int_equal(addr[l] % 16, 0);
		}
		assert_int_equal(warp_conflicts(addr, x2 ? 16 : 32), 0);
		for (int l = 0; l < 32; ++l) {
			int g = l >> 2, t = l & 3;

			for (int d = 0; d < (x2 ? 2 : 4); ++d)
				for (int h = 0; h < 4; ++h) {
					long e = addr[8 * d + g] + 4 * t + h;
					int sr = mem_row[e] - r0;
					int sc = mem_col[e] - c0;

					if (op == OP_A) {
						assert_int_equal(sr,
							blk * 16 + g + 8 * (d & 1));
						assert_int_equal(sc, kk + 4 * t + h +
							16 * (d >> 1));
					} else {
						assert_int_equal(sr,
							(blk + d / 2) * 8 + g);
						assert_int_equal(sc, kk + 4 * t + h +
							16 * (d & 1));
					}
				}
		}
	}
}

/* pm_host_mma_tile against pm_host_mma on the logical operands. */
static void test_host_mma_tile(void **state)
{
	enum { MM = 16, MN = 8, MK = 16, R = 64 };
	static const int cfg[][2] = { { 32, 1 }, { 64, 1 }, { 128, 1 },
		{ 40, 0 }, { 64, 0 } };
	static float As[R * 128], Bs[R * 128];
	float a[MM * MK], b[MK * MN], want[MM * MN], got[MM * MN];
	unsigned seed = 12345;

	(void)state;
	for (size_t ci = 0; ci < sizeof(cfg) / sizeof(cfg[0]); ++ci)
		for (int a_kc = 0; a_kc < 2; ++a_kc)
			for (int b_nc = 0; b_nc < 2; ++b_nc) {
		int pa = cfg[ci][0], swza = cfg[ci][1];
		int pb = cfg[(ci + 1) % 5][0], swzb = cfg[(ci + 1) % 5][1];
		int a_r0 = 3, a_c0 = 8, b_r0 = 9, b_c0 = 8;

		for (int i = 0; i < R * 128; ++i)
			As[i] = Bs[i] = 1000;
		for (int i = 0; i < MM * MK; ++i) {
			seed = seed * 1103515245u + 12345u;
			a[i] = (float)((seed >> 16) % 17) - 8;
		}
		for (int i = 0; i < MK * MN; ++i) {
			seed = seed * 1103515245u + 12345u;
			b[i] = (float)((seed >> 16) % 17) - 8;
		}
		for (int m = 0; m < MM; ++m)
			for (int k = 0; k < MK; ++k)
				As[a_kc ? pm_smem_off_h(pa, swza, a_r0 + m, a_c0 + k) :
					pm_smem_off_h(pa, swza, a_r0 + k, a_c0 + m)] =
					a[m * MK + k];
		for (int k = 0; k < MK; ++k)
			for (int n = 0; n < MN; ++n)
				Bs[b_nc ? pm_smem_off_h(pb, swzb, b_r0 + k, b_c0 + n) :
					pm_smem_off_h(pb, swzb, b_r0 + n, b_c0 + k)] =
					b[k * MN + n];
		pm_host_fill(want, MM * MN);
		pm_host_fill(got, MM * MN);
		pm_host_mma(MM, MN, MK, want, a, MK, 1, b, MN, 1);
		pm_host_mma_tile(MM, MN, MK, got, a_kc, pa, swza, As, a_r0,
			a_c0, b_nc, pb, swzb, Bs, b_r0, b_c0);
		for (int i = 0; i < MM * MN; ++i)
			assert_true(got[i] == want[i]);
	}
}

/* The TMA stores' staged tile (sm90.cuh pm_sm90_store_swz, mirrored):
 * every element (row, col) of a BM x BN tile of 16-bit elements lands
 * where TMA's 128-byte swizzle reads it for its 64-column box (chunk c of
 * row r of a box at chunk c ^ (r % 8), per the PTX ISA's swizzle modes),
 * each byte once, and each warp's pair stores (4 bytes per lane) hit 32
 * distinct banks. Macro tiles 64 x MN at (row0, col0) as the kernels'. */
static unsigned swz_mirror(int bm, int row0, int col0, int t, int r)
{
	const int g = (t & 31) >> 2, q = t & 3, j = r >> 2, h = (r >> 1) & 1;
	unsigned base = (unsigned) (col0 / 64 * bm + row0 + 16 * (t >> 5) + g)
		* 128u + 4u * (unsigned) q;

	return base + (unsigned) (j / 8 * bm + 8 * h) * 128u +
		((unsigned) ((j & 7) ^ g) << 4);
}

static void test_tma_store_swizzle(void **state)
{
	static const int shapes[][3] = {	/* bm, bn, mn */
		{ 128, 256, 256 }, { 128, 128, 128 }, { 192, 192, 192 },
		{ 64, 192, 192 }, { 256, 128, 128 }, { 128, 256, 128 },
	};
	static unsigned char seen[256 * 256 * 2];

	(void) state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(*shapes); ++i) {
		const int bm = shapes[i][0], bn = shapes[i][1], mn = shapes[i][2];

		memset(seen, 0, sizeof(seen));
		for (int row0 = 0; row0 < bm; row0 += 64)
			for (int col0 = 0; col0 < bn; col0 += mn)
				for (int t = 0; t < 128; ++t)
					for (int r = 0; r < mn / 2; r += 2) {
			const int m = row0 + 16 * (t >> 5) + ((t & 31) >> 2) +
				8 * ((r >> 1) & 1);
			const int n = col0 + 8 * (r >> 2) + 2 * (t & 3);
			const unsigned box = (unsigned) (n / 64) * bm * 128u;
			const unsigned tma = box + (unsigned) m * 128u +
				((((unsigned) (n % 64) * 2 / 16) ^ (m % 8)) << 4) +
				(unsigned) (n % 8) * 2;
			const unsigned got = swz_mirror(bm, row0, col0, t, r);

			assert_int_equal(got, tma);
			assert_true(got + 4 <= (unsigned) (bm * bn * 2));
			for (int b = 0; b < 4; ++b)
				assert_int_equal(seen[got + b]++, 0);
		}
		/* one warp's store of one pair: 32 lanes, distinct banks */
		for (int r = 0; r < mn / 2; r += 2) {
			int bank[32] = { 0 };

			for (int l = 0; l < 32; ++l)
				assert_int_equal(bank[swz_mirror(bm, 0, 0, l, r)
					/ 4 % 32]++, 0);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swizzle_bijection),
		cmocka_unit_test(test_ldsm_fragments),
		cmocka_unit_test(test_ldsm_swizzled),
		cmocka_unit_test(test_ldsm_padded),
		cmocka_unit_test(test_ldsm_plain_conflicts),
		cmocka_unit_test(test_ldsm_s8),
		cmocka_unit_test(test_copy_pattern),
		cmocka_unit_test(test_host_mma_tile),
		cmocka_unit_test(test_tma_store_swizzle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
