#!/usr/bin/env bash
# run115 (session 12): run112 for the 66 paper grids of 132 tiles or more:
# the plan's choice against every persistent variant forced (force_var.py:
# big, pfew, wide, tall, the tail split in 2..8 chunks), check_gemm --time,
# each result checked first.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/fv0.cu
python3 scripts/exp/force_var.py build/var/fv0.cu build/var/fv.cu
bash scripts/exp/build-check.sh build/var/fv.cu || exit 1
S="${SIZES:-1920x3840x1664 2944x3840x2944 3712x1664x2560 3072x3072x640 3968x768x2048 2560x3840x3968 3968x2176x512 1664x2816x2432 3456x1920x3072 3072x1152x1280 1792x3072x1024 4096x2816x2560 3072x3712x640 3968x1152x1408 3840x3712x3072 1152x3072x2304 3712x3456x1664 1152x2304x3968 3584x3072x640 896x2944x640 2816x3328x1280 3200x768x2304 4096x1280x3456 2560x3072x1536 1920x3200x1792 1536x2304x3456 3584x3840x1920 640x3712x1152 2816x1920x1792 2304x3200x2176 1664x3328x3200 2816x2304x1024 3456x2816x3840 2048x1536x2432 2816x4096x2560 1792x3072x1664 1792x1664x3584 2048x3328x1664 1024x3968x4096 3584x2048x3712 1536x2560x1792 1536x3712x3584 3072x896x2560 1152x3072x1536 2816x1536x2560 4096x3712x3328 3840x3072x3072 3840x1920x640 2304x1536x3072 3456x1280x768 2688x1536x3072 1408x3968x2048 2688x2432x4096 1152x2688x1536 1536x3328x128 3584x1152x768 2304x1408x896 896x3456x2048 2816x1536x2176 1920x3840x768 3584x1920x2688 2816x1280x2560 2944x3584x2304 2432x1280x1664 2048x1664x3200 1664x4096x2176}"
for v in ${VARS:-none big pfew wide tall tail2 tail3 tail4 tail6 tail8}; do
	PM_VAR=$v timeout 300 build/var/fv --time --tag "$v" $S 2>&1 | grep -E "^(TIME|FAIL)|passed"
done > $O/var-session12-run115${TAG:-}.txt
grep -c TIME $O/var-session12-run115${TAG:-}.txt; grep -E "FAIL|passed" $O/var-session12-run115${TAG:-}.txt | sort | uniq -c
