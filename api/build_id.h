/* api/build_id — the generator's identity: the first 16 hex digits of a
 * SHA-256 over every library source and header (Makefile, $(GEN)/build_id.c).
 * Two libraries with one POLYMMA_VERSION but other code have other ids;
 * the JIT's cache key covers it (api/jit.c pm_jit_key). */
#ifndef PM_API_BUILD_ID_H
#define PM_API_BUILD_ID_H

extern const char pm_build_id[];

#endif
