/* The JIT's on-disk cache (runtime/cache.h) and SHA-256 (FIPS 180-4). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cache.h"

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(struct pm_sha256 *s, const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; ++i)
		w[i] = (uint32_t) p[4 * i] << 24 | (uint32_t) p[4 * i + 1] << 16 |
			(uint32_t) p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; ++i) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
			(w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
			(w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, s->h, sizeof(v));
	for (int i = 0; i < 64; ++i) {
		uint32_t t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^
			ROR(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
			K[i] + w[i];
		uint32_t t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
			((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(*v));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; ++i)
		s->h[i] += v[i];
}

void pm_sha256_init(struct pm_sha256 *s)
{
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f,
		0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->n = 0;
}

void pm_sha256_add(struct pm_sha256 *s, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n) {
		size_t at = s->n % 64, k = 64 - at < n ? 64 - at : n;

		memcpy(s->buf + at, c, k);
		s->n += k;
		c += k;
		n -= k;
		if (s->n % 64 == 0)
			block(s, s->buf);
	}
}

void pm_sha256_end(struct pm_sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->n * 8;
	unsigned char pad = 0x80, len[8];

	pm_sha256_add(s, &pad, 1);
	pad = 0;
	while (s->n % 64 != 56)
		pm_sha256_add(s, &pad, 1);
	for (int i = 0; i < 8; ++i)
		len[i] = (unsigned char) (bits >> (56 - 8 * i));
	pm_sha256_add(s, len, 8);
	for (int i = 0; i < 32; ++i)
		out[i] = (unsigned char) (s->h[i / 4] >> (24 - 8 * (i % 4)));
}

void pm_sha256_part(struct pm_sha256 *s, const void *p, size_t n)
{
	unsigned char len[8];

	for (int i = 0; i < 8; ++i)
		len[i] = (unsigned char) ((uint64_t) n >> (8 * i));
	pm_sha256_add(s, len, 8);
	pm_sha256_add(s, p, n);
}

static const char magic[8] = { 'P', 'M', 'J', 'I', 'T', '0', '0', '1' };
#define HEAD (8 + 32 + 8 + 32)
#define EXT ".pmjit"

int pm_cache_dir(char *buf, size_t n)
{
	const char *d = getenv("POLYMMA_CACHE_DIR"), *x, *h;
	int w = -1;

	if (d && *d)
		w = snprintf(buf, n, "%s", d);
	else if ((x = getenv("XDG_CACHE_HOME")) && *x)
		w = snprintf(buf, n, "%s/polymma", x);
	else if ((h = getenv("HOME")) && *h)
		w = snprintf(buf, n, "%s/.cache/polymma", h);
	return w > 0 && (size_t) w < n ? 0 : -1;
}

uint64_t pm_cache_max_bytes(void)
{
	const char *s = getenv("POLYMMA_CACHE_MAX_MB");
	char *end;
	unsigned long long v = s ? strtoull(s, &end, 10) : 0;

	if (!s || !*s || *end || v > (1ull << 40))
		v = PM_CACHE_MAX_MB;
	return (uint64_t) v << 20;
}

/* dir/<key hex>EXT */
static int entry_path(char *buf, size_t n, const char *dir,
	const unsigned char key[32])
{
	char hex[65];
	int w;

	for (int i = 0; i < 32; ++i)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	w = snprintf(buf, n, "%s/%s" EXT, dir, hex);
	return w > 0 && (size_t) w < n ? 0 : -1;
}

static int read_all(const char *path, unsigned char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	unsigned char *b;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0,
	    SEEK_SET) || !(b = malloc((size_t) n + 1))) {
		fclose(f);
		return -1;
	}
	if (fread(b, 1, (size_t) n, f) != (size_t) n) {
		free(b);
		fclose(f);
		return -1;
	}
	fclose(f);
	*data = b;
	*len = (size_t) n;
	return 0;
}

int pm_cache_load(const char *dir, const unsigned char key[32],
	unsigned char **data, size_t *len)
{
	char path[4096];
	unsigned char *b = NULL, sum[32];
	size_t n = 0;
	uint64_t plen = 0;
	struct pm_sha256 s;

	*data = NULL;
	*len = 0;
	if (entry_path(path, sizeof(path), dir, key) < 0 ||
	    read_all(path, &b, &n) < 0)
		return -1;
	if (n >= HEAD)
		for (int i = 0; i < 8; ++i)
			plen |= (uint64_t) b[40 + i] << (8 * i);
	if (n >= HEAD && plen == n - HEAD) {
		pm_sha256_init(&s);
		pm_sha256_add(&s, b + HEAD, (size_t) plen);
		pm_sha256_end(&s, sum);
	}
	if (n < HEAD || memcmp(b, magic, 8) || memcmp(b + 8, key, 32) ||
	    plen != n - HEAD || memcmp(b + 48, sum, 32)) {
		/* corrupt: removed, rebuilt by the caller */
		free(b);
		unlink(path);
		return -1;
	}
	memmove(b, b + HEAD, (size_t) plen);
	*data = b;
	*len = (size_t) plen;
	/* a hit is recent: the bound removes the oldest first */
	utimensat(AT_FDCWD, path, NULL, 0);
	return 0;
}

static int mkdirs(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (n >= sizeof(p))
		return -1;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; ++i)
		if (p[i] == '/' || !p[i]) {
			char c = p[i];

			p[i] = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				return -1;
			p[i] = c;
		}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t) w;
	}
	return 0;
}

struct pm_cache_file {
	char name[300];
	off_t size;
	struct timespec mtime;
};

static int older(const void *a, const void *b)
{
	const struct pm_cache_file *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int is_entry(const char *name)
{
	size_t n = strlen(name), e = strlen(EXT);

	return n > e && !strcmp(name + n - e, EXT);
}

/* The entries of dir, oldest first (malloc'ed *out); -1. */
static int list(const char *dir, struct pm_cache_file **out, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct pm_cache_file *v = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	*count = 0;
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		char p[4400];
		struct stat st;

		if (!is_entry(e->d_name) || strlen(e->d_name) >= sizeof(v->name))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (stat(p, &st) < 0)
			continue;
		if (n == cap) {
			struct pm_cache_file *w = realloc(v, (size_t) (cap = cap *
				2 + 16) * sizeof(*v));

			if (!w)
				break;
			v = w;
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
		v[n].size = st.st_size;
		v[n].mtime = st.st_mtim;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t) n, sizeof(*v), older);
	*out = v;
	*count = n;
	return 0;
}

/* Removes the oldest entries of dir until it holds max bytes at most (the
 * newest one always stays). */
static void bound(const char *dir, uint64_t max)
{
	struct pm_cache_file *v;
	uint64_t total = 0;
	int n;

	if (list(dir, &v, &n) < 0)
		return;
	for (int i = 0; i < n; ++i)
		total += (uint64_t) v[i].size;
	for (int i = 0; i + 1 < n && total > max; ++i) {
		char p[4400];

		snprintf(p, sizeof(p), "%s/%s", dir, v[i].name);
		if (unlink(p) == 0)
			total -= (uint64_t) v[i].size;
	}
	free(v);
}

int pm_cache_store(const char *dir, const unsigned char key[32],
	const void *data, size_t len, uint64_t max)
{
	char path[4096], tmp[4200];
	unsigned char head[HEAD];
	struct pm_sha256 s;
	int fd, w;

	if (entry_path(path, sizeof(path), dir, key) < 0 || mkdirs(dir) < 0)
		return -1;
	w = snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir);
	if (w < 0 || (size_t) w >= sizeof(tmp) || (fd = mkstemp(tmp)) < 0)
		return -1;
	memcpy(head, magic, 8);
	memcpy(head + 8, key, 32);
	for (int i = 0; i < 8; ++i)
		head[40 + i] = (unsigned char) ((uint64_t) len >> (8 * i));
	pm_sha256_init(&s);
	pm_sha256_add(&s, data, len);
	pm_sha256_end(&s, head + 48);
	if (write_all(fd, head, HEAD) < 0 || write_all(fd, data, len) < 0 ||
	    fchmod(fd, 0644) < 0 || close(fd) < 0) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return -1;
	}
	bound(dir, max);
	return 0;
}

int pm_cache_clear(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		char p[4400];

		if (!is_entry(e->d_name) && strncmp(e->d_name, ".tmp-", 5))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		n += unlink(p) == 0;
	}
	closedir(d);
	return n;
}
