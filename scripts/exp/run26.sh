#!/usr/bin/env bash
# run26: final all-configuration checks of session 5: every gpu-check configuration, fused sm_90a (TMA, --tma off, --mma-inflight on), sm_80 nn/tt and its prologues, then the sm_90a benchmark.
FUSED='_sm90a(_inflight|_cpasync)?$|_(nn|tt)_sm80$|^pro_.*_sm80$' exec bash "$(dirname "$0")/check-bench.sh"
