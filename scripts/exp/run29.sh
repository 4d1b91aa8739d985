#!/usr/bin/env bash
# run29: the medium variant (64x128 blocks): as run27.
ONLY=sm90a FUSED='_sm90a(_inflight|_cpasync)?$' exec bash "$(dirname "$0")/check-bench.sh"
