set -u
bash scripts/gpu-check.sh 2>&1 | tail -2
export CONFIGS="auto|--stages 3
novar|--stages 3 --small-variant off"
bash scripts/tile-sweep.sh 256x1536x3456 896x768x4096 640x256x2176 1024x512x2048 512x768x256 1536x1536x1024 2048x2048x2048 4096x4096x4096
RUN_JOBS=4 bash scripts/gpu-fused-check.sh --only '_(nt|tn)_sm80' 2>&1 | tail -2
