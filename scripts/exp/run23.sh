#!/usr/bin/env bash
# run23: TMA + raster order (no last-wave split): every gpu-check configuration, fused sm_90a, --tma off and sm_80 nn, then the sm_90a benchmark.
FUSED='_sm90a(_cpasync)?$|_nn_sm80$' exec bash "$(dirname "$0")/check-bench.sh"
