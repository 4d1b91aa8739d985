set -u
bash scripts/gpu-check.sh 2>&1 | tail -3
export CONFIGS="st_on|--block 128x128x32 --warp 64x64 --stages 3
st_off|--block 128x128x32 --warp 64x64 --stages 3 --staged-store off
st_on_b64|--block 128x128x64 --warp 64x64 --stages 3
st_on_s4|--block 128x128x32 --warp 64x64 --stages 4"
bash scripts/tile-sweep.sh 2048x2048x2048 4096x4096x4096 8192x8192x8192 1024x512x2048 512x768x256
RUN_JOBS=4 bash scripts/gpu-fused-check.sh --only '_(nn|tt)_sm80' 2>&1 | tail -3
