#!/usr/bin/env bash
# The device kernels of the bench specs, for a refactor's identity check.
#
#   scripts/kernels.sh POLYMMA OUTDIR [GEN ARGS...]
#
# Generates bench/specs/*.tc for sm_70, sm_80 and sm_90a (and on sm_90a with
# --persistent on, --cluster 2 and --mma-inflight on) with the polymma binary
# POLYMMA and writes, per file, only its __global__ functions to
# OUTDIR/SPEC.TARGET[.OPTION].kernels (host code excluded). Two builds
# generate the same device code when `diff -r DIR1 DIR2` is empty. GEN ARGS
# go to every generation (-D K=4096: a fixed k).
set -euo pipefail
bin=$1 out=$2
shift 2
extra=("$@")
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # NAME SPEC ARGS...
	local name=$1 spec=$2
	shift 2
	if "$bin" gen "$spec" -o "$tmp/k.cu" "$@" ${extra[@]+"${extra[@]}"} \
		2> "$tmp/err"; then
		awk '/^extern "C" __global__/ { on = 1 } on { print } on && /^}$/ { on = 0 }' \
			"$tmp/k.cu" > "$out/$name.kernels"
	else
		{ echo "generation failed: $*"; cat "$tmp/err"; } > "$out/$name.kernels"
	fi
}
for spec in bench/specs/*.tc; do
	s=$(basename "$spec" .tc)
	for t in sm_70 sm_80 sm_90a; do
		run "$s.$t" "$spec" --target "$t"
	done
	run "$s.sm_90a.persistent" "$spec" --target sm_90a --persistent on
	run "$s.sm_90a.cluster2" "$spec" --target sm_90a --cluster 2
	run "$s.sm_90a.inflight" "$spec" --target sm_90a --mma-inflight on
done
