/* The JIT's disk cache (runtime/cache.c; decision 0038), without a GPU:
 * SHA-256 against a known digest; the key changes with each input;
 * writers in several processes (fork) leave whole entries only; a corrupt
 * entry is removed and rebuilt; the bound removes the oldest; clear.
 * polymma_jit_compile through the cache: tests/test_jit.c. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/jit.h"
#include "runtime/cache.h"
#include "tests/tmpdir_util.h"

static void key_inputs(void **state)
{
	struct pm_nvrtc nv, nv2;
	unsigned char k[9][32];

	(void) state;
	memset(&nv, 0, sizeof(nv));
	nv.major = 13;
	strcpy(nv.include, "/usr/local/cuda/include");
	nv2 = nv;
	nv2.minor = 1;
	pm_jit_key("def f", "", "sm_80", "sm_80", "b0", &nv, k[0]);
	pm_jit_key("def g", "", "sm_80", "sm_80", "b0", &nv, k[1]);
	pm_jit_key("def f", "split-k=1\n", "sm_80", "sm_80", "b0", &nv, k[2]);
	pm_jit_key("def f", "", "sm_70", "sm_80", "b0", &nv, k[3]);
	pm_jit_key("def f", "", "sm_80", "sm_86", "b0", &nv, k[4]);
	pm_jit_key("def f", "", "sm_80", "sm_80", "b0", &nv2, k[5]);
	/* parts cannot run into each other */
	pm_jit_key("def f", "", "sm_8", "0sm_80", "b0", &nv, k[6]);
	/* another generator under the same version */
	pm_jit_key("def f", "", "sm_80", "sm_80", "b1", &nv, k[7]);
	pm_jit_key("def f", "", "sm_80", "sm_80", "b0", &nv, k[8]);
	for (int a = 0; a < 8; ++a)
		for (int b = a + 1; b < 8; ++b)
			assert_memory_not_equal(k[a], k[b], 32);
	assert_memory_equal(k[0], k[8], 32);
}

/* SHA-256 of "abc" (FIPS 180-4's example). */
static void sha256(void **state)
{
	static const unsigned char want[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
		0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
		0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	unsigned char got[32];
	struct pm_sha256 s;

	(void) state;
	pm_sha256_init(&s);
	pm_sha256_add(&s, "ab", 2);
	pm_sha256_add(&s, "c", 1);
	pm_sha256_end(&s, got);
	assert_memory_equal(got, want, 32);
}

static void entry_path(char *buf, size_t n, const char *dir,
	const unsigned char key[32])
{
	size_t o = (size_t) snprintf(buf, n, "%s/", dir);

	for (int i = 0; i < 32; ++i)
		o += (size_t) snprintf(buf + o, n - o, "%02x", key[i]);
	snprintf(buf + o, n - o, ".pmjit");
}

/* Round trip, a corrupt entry (a payload byte, the length, a cut) is a
 * miss and gone, clear. */
static void cache_corrupt(void **state)
{
	char *dir = pm_test_tmpdir(), path[512];
	unsigned char key[32] = { 1, 2, 3 }, *data;
	size_t n;
	const char payload[] = "the payload of an entry";

	(void) state;
	for (int how = 0; how < 3; ++how) {
		FILE *f;

		assert_int_equal(pm_cache_store(dir, key, payload,
			sizeof(payload), 1 << 20), 0);
		assert_int_equal(pm_cache_load(dir, key, &data, &n), 0);
		assert_int_equal(n, sizeof(payload));
		assert_memory_equal(data, payload, n);
		free(data);
		entry_path(path, sizeof(path), dir, key);
		if (how < 2) {
			f = fopen(path, "r+b");
			assert_non_null(f);
			fseek(f, how == 0 ? 80 + 5 : 40, SEEK_SET);
			fputc('#', f);
			fclose(f);
		} else {
			assert_int_equal(truncate(path, 90), 0);
		}
		assert_int_equal(pm_cache_load(dir, key, &data, &n), -1);
		assert_null(data);
		assert_int_equal(access(path, F_OK), -1);
	}
	assert_int_equal(pm_cache_store(dir, key, payload, 4, 1 << 20), 0);
	assert_int_equal(pm_cache_clear(dir), 1);
	assert_int_equal(pm_test_count_files(dir, ""), 0);
	pm_test_rmdir_all(dir);
	free(dir);
}

/* 8 processes store the same 4 keys with their own bytes, 20 times each,
 * while loading: every load is whole; no temporary file is left. */
static void cache_fork(void **state)
{
	char *dir = pm_test_tmpdir();
	pid_t pid[8];

	(void) state;
	for (int p = 0; p < 8; ++p) {
		pid[p] = fork();
		assert_true(pid[p] >= 0);
		if (pid[p] == 0) {
			unsigned char key[32] = { 0 }, *data, buf[50000];
			size_t n;
			int bad = 0;

			for (int it = 0; it < 20; ++it) {
				key[0] = (unsigned char) (it % 4);
				memset(buf, p, sizeof(buf));
				buf[0] = key[0];
				if (pm_cache_store(dir, key, buf, sizeof(buf) -
				    (size_t) p, 1 << 30))
					bad = 1;
				if (pm_cache_load(dir, key, &data, &n) == 0) {
					/* one writer's bytes, whole */
					for (size_t i = 1; i < n; ++i)
						bad |= data[i] != data[1];
					bad |= data[0] != key[0] ||
						n != sizeof(buf) - data[1];
					free(data);
				}
			}
			_exit(bad);
		}
	}
	for (int p = 0; p < 8; ++p) {
		int st;

		assert_int_equal(waitpid(pid[p], &st, 0), pid[p]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	assert_int_equal(pm_test_count_files(dir, ".tmp-"), 0);
	assert_int_equal(pm_test_count_files(dir, ""), 4);
	pm_test_rmdir_all(dir);
	free(dir);
}

/* The bound: the oldest go first, a hit makes an entry recent. */
static void cache_bound(void **state)
{
	char *dir = pm_test_tmpdir();
	unsigned char key[32] = { 0 }, *data, buf[1000] = { 0 };
	size_t n;

	(void) state;
	for (int i = 0; i < 3; ++i) {
		key[0] = (unsigned char) i;
		assert_int_equal(pm_cache_store(dir, key, buf, sizeof(buf),
			1 << 20), 0);
		usleep(20000);
	}
	key[0] = 0;	/* touched: now the newest but one */
	assert_int_equal(pm_cache_load(dir, key, &data, &n), 0);
	free(data);
	usleep(20000);
	key[0] = 3;	/* room for two entries of 1080 bytes */
	assert_int_equal(pm_cache_store(dir, key, buf, sizeof(buf), 2200), 0);
	assert_int_equal(pm_test_count_files(dir, ""), 2);
	for (int i = 0; i < 4; ++i) {
		key[0] = (unsigned char) i;
		assert_int_equal(pm_cache_load(dir, key, &data, &n),
			i == 0 || i == 3 ? 0 : -1);
		free(data);
	}
	pm_test_rmdir_all(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sha256),
		cmocka_unit_test(key_inputs),
		cmocka_unit_test(cache_corrupt),
		cmocka_unit_test(cache_fork),
		cmocka_unit_test(cache_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
