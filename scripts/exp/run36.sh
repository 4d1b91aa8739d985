#!/usr/bin/env bash
# run36: the persistent variants chosen by wave fill (_persist 128x128 where
# one block per SM fills the waves better, _persist_wide 128x256 where it
# divides N and fills them to 85 %): gpu-check and fused checks of sm_90a
# (default, --tma off, --mma-inflight on, --persistent on), then (unless
# NOBENCH=1) the sm_90a benchmark.
ONLY=sm90a FUSED='_sm90a(_inflight|_cpasync|_persist)?$' DESC="sm_90a session 6: persistent variants by wave fill (run36)" exec bash "$(dirname "$0")/check-bench.sh"
