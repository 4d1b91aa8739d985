#!/usr/bin/env bash
# run21: TMA + raster order + last-wave split (dropped since): every gpu-check configuration, fused sm_90a, --tma off and sm_80 nn; no benchmark.
NOBENCH=1 FUSED='_sm90a(_cpasync)?$|_nn_sm80$' exec bash "$(dirname "$0")/check-bench.sh"
