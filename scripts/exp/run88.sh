#!/usr/bin/env bash
# run88 (session 10): correctness of the workspace fixup with the CUTLASS-
# style barrier and the strips' sums gathered by every warp (build-exp):
# gpu-check's sm_90a configurations (the default, --cluster 1, --persistent
# on) and the fused checkers (sm_90a) with tail and workspace split sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=build-exp/polymma ONLY='^sm90a$|sm90a_nocl|sm90a_persist' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -2 $O/gc.txt; grep FAIL $O/gc.txt | head
POLYMMA=build-exp/polymma OUT=$O/fc SIZES_SM90A="3200x1408x1408 896x768x4096 2304x2304x1024 2816x1920x1792 1024x768x2048" bash scripts/gpu-fused-check.sh --only '_sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -2 $O/fc.txt; grep FAIL $O/fc.txt | head
rm -rf $O/gc $O/fc
