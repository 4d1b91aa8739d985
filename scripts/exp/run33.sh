#!/usr/bin/env bash
# run33: the persistent warp-specialized kernel (--persistent, the _persist
# variant): gpu-check and fused checks of sm_90a (default, --tma off,
# --mma-inflight on, --persistent on), then the sm_90a benchmark.
ONLY=sm90a FUSED='_sm90a(_inflight|_cpasync|_persist)?$' DESC="sm_90a session 6: persistent warp-specialized variant" exec bash "$(dirname "$0")/check-bench.sh"
