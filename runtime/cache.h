/* runtime/cache.h — the JIT's on-disk cache (docs/decisions/0038-jit.md).
 *
 * Directory: $POLYMMA_CACHE_DIR, else $XDG_CACHE_HOME/polymma, else
 * $HOME/.cache/polymma. One file per entry, <key hex>.pmjit:
 *   "PMJIT001", the 32-byte key, the payload's length (8 bytes, little
 *   endian), the payload's SHA-256, the payload.
 * An entry is written to a temporary file of its own in the directory and
 * renamed into place (atomic: readers see a whole entry or none; writers
 * of one key race harmlessly, the last rename wins with equal bytes). A
 * file that is short, of another key or whose checksum fails is removed
 * and reported as a miss (its caller rebuilds it). After a store the
 * oldest entries (modification time; a hit touches its file) are removed
 * until the directory holds at most the bound: $POLYMMA_CACHE_MAX_MB
 * megabytes (default PM_CACHE_MAX_MB).
 */
#ifndef PM_RT_CACHE_H
#define PM_RT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define PM_CACHE_MAX_MB 512

struct pm_sha256 {
	uint32_t h[8];
	uint64_t n;
	unsigned char buf[64];
};

void pm_sha256_init(struct pm_sha256 *s);
void pm_sha256_add(struct pm_sha256 *s, const void *p, size_t n);
void pm_sha256_end(struct pm_sha256 *s, unsigned char out[32]);
/* A part of a key: its length (8 bytes), then its bytes (so that parts
 * cannot run into each other). */
void pm_sha256_part(struct pm_sha256 *s, const void *p, size_t n);

/* The cache's directory into buf; -1 when none can be named. */
int pm_cache_dir(char *buf, size_t n);
/* The bound in bytes. */
uint64_t pm_cache_max_bytes(void);
/* Entry key of dir into *data (malloc'ed) and *len: 0; -1 a miss (none,
 * or corrupt: removed). */
int pm_cache_load(const char *dir, const unsigned char key[32],
	unsigned char **data, size_t *len);
/* Writes the entry (creating dir), then bounds dir to max bytes. 0, or
 * -1 (nothing half-written is left). */
int pm_cache_store(const char *dir, const unsigned char key[32],
	const void *data, size_t len, uint64_t max);
/* Removes every entry (and stray temporary files) of dir; the number
 * removed, or -1 where dir cannot be read (a missing dir: 0). */
int pm_cache_clear(const char *dir);

#endif
