#!/usr/bin/env bash
# (Ran with the stream-K build: scripts/exp/run97-sk.diff applied to 35b0423.)
# run99 (session 11): is the split persistent kernel with the stream-K code
# slower on whole tiles than before it? clock_probe.cu, 1 s per variant,
# 2 rounds interleaved: HEAD before (old), now (new), now without the
# contributor's continue (nocont), whole tiles forced (PM_FORCE=-1,1), and
# now with its default plan (stream-K).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mk() { # mk NAME POLYMMA [SED]
	$2 gen examples/gemm_nn.tc --target sm_90a -o build/cp-$1.cu
	python3 scripts/exp/force_tdp.py build/cp-$1.cu build/cpf-$1.cu
	[ -n "${3:-}" ] && sed -i "$3" build/cpf-$1.cu
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
		-DKERNEL_FILE="\"$PWD/build/cpf-$1.cu\"" scripts/exp/clock_probe.cu -o build/cp-$1 &
}
mk old build-old/polymma
mk new build/polymma
mk nocont build/polymma 's/ continue; } if (pm_skr == 2)/ } if (pm_skr == 2)/'
wait
grep -c "continue; } if (pm_skr" build/cpf-nocont.cu build/cpf-new.cu
for r in 1 2; do
	for s in 2688x640x2560 768x2176x1280 1152x3072x1536; do
		for v in old new nocont; do echo -n "$v whole "; PM_FORCE=-1,1 build/cp-$v $s 1; done
		echo -n "new default "; build/cp-new $s 1
		echo -n "old default "; build/cp-old $s 1
	done
done
rm -f build/cp-* build/cpf-*
