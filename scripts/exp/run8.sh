set -u
export CONFIGS="def|--stages 3 --small-variant off
b128x256s3|--block 128x256x32 --stages 3
b128x256s4|--block 128x256x32 --stages 4
b256x128s3|--block 256x128x32 --stages 3
b256x128s4|--block 256x128x32 --stages 4
b128x128x64s3|--block 128x128x64 --stages 3"
bash scripts/tile-sweep.sh 2048x2048x2048 4096x4096x4096 8192x8192x8192 3072x3072x2048 4096x2048x4096
