#!/usr/bin/env bash
# run112 (session 12): every existing kernel and split at the 34 paper
# grids under 132 tiles: the GEMM file with force_var.py's plan override
# (PM_VAR), check_gemm --time per variant (each result checked against
# the reference first). Which variant the plan should pick, per size.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/fv0.cu
python3 scripts/exp/force_var.py build/var/fv0.cu build/var/fv.cu
bash scripts/exp/build-check.sh build/var/fv.cu || exit 1
S="640x2048x3584 384x3584x2944 640x2176x2304 2048x768x2816 768x2176x1280 2688x640x2560 896x2176x2944 512x3968x1664 640x3200x2944 2304x896x3200 1664x1280x3712 3072x256x3584 3200x256x3712 512x1920x896 1920x384x512 1792x256x1536 128x3840x2816 896x768x3200 384x2688x2432 256x1536x3456 1024x768x1920 640x256x2176 640x1792x256 1408x896x1664 1408x768x3712 896x768x4096 2944x384x3200 1664x640x3840 2048x128x2432 512x2304x1792 1920x512x3584 3456x128x3456 3968x128x1408 512x1536x384"
for v in ${VARS:-none big small medium pfew ws2 ws3 ws4 ws5 ws6 ws8 cl2 cl3 cl4 cl5 cl6 cl8 bs2 bs3 bs4}; do
	PM_VAR=$v timeout 300 build/var/fv --time --tag "$v" $S 2>&1 | grep -E "^(TIME|FAIL)|passed"
done > $O/var-session12-run112.txt
grep -c TIME $O/var-session12-run112.txt; grep -E "FAIL|passed" $O/var-session12-run112.txt | sort | uniq -c
