#!/usr/bin/env bash
# polymma-ra.sh: build/polymma (or $POLYMMA_REAL), then ra_pipe.py on the
# file written with -o (unchanged where it has no register-prologue loop
# in a persistent kernel): a POLYMMA for bench/run.sh and the GPU checks
# (experiments only, session 11).
here=$(cd "$(dirname "$0")/../.." && pwd)
"${POLYMMA_REAL:-$here/build/polymma}" "$@" || exit $?
out=
while [ $# -gt 0 ]; do
	case $1 in -o) out=$2; shift ;; -o*) out=${1#-o} ;; esac
	shift
done
[ -n "$out" ] && [ "$out" != - ] || exit 0
python3 "$here/scripts/exp/ra_pipe.py" "$out" "$out.ra" 2>/dev/null && mv "$out.ra" "$out"
rm -f "$out.ra"
exit 0
