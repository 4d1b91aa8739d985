#!/usr/bin/env bash
# run27: the small variant's TMA twin: gpu-check and fused checks of sm_90a (TMA, --tma off, --mma-inflight on), then the sm_90a benchmark.
ONLY=sm90a FUSED='_sm90a(_inflight|_cpasync)?$' exec bash "$(dirname "$0")/check-bench.sh"
