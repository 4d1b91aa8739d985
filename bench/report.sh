#!/usr/bin/env bash
# report.sh: the benchmark's CSV -> markdown summary and SVG plots (CPU only).
#
#   bash bench/report.sh CSV [OUTDIR]
#
# Writes OUTDIR/summary.md and OUTDIR/speedup_<idiom>.svg (OUTDIR defaults
# to docs/bench) and copies CSV to OUTDIR/bench.csv unless it is already
# there; for a run of another element type than f16 (its CSV's "# dtype:"
# line, run.sh --dtype) the names end in _DT: summary_bf16.md,
# speedup_bf16_<idiom>.svg, bench_bf16.csv. Builds build/bench/report from
# bench/report.c and bench/stats.c with cc. Plots need gnuplot: when it is
# missing and we run as root, it installs gnuplot-nox with apt-get (set
# NO_INSTALL=1 to skip); otherwise the SVGs are skipped with a message and
# the summary is still written.
set -u -o pipefail
SELF=$(readlink -f "$0")
cd "$(dirname "$SELF")/.." || exit 1

[ $# -ge 1 ] && [ $# -le 2 ] || { sed -n '2,14p' "$SELF" | sed 's/^# \{0,1\}//' >&2; exit 2; }
CSV=$(readlink -f "$1")
OUTDIR=${2:-docs/bench}
W=build/bench
HOSTCC=${CC:-cc}
command -v "$HOSTCC" >/dev/null 2>&1 || HOSTCC=gcc
[ -r "$CSV" ] || { echo "report.sh: cannot read $1" >&2; exit 1; }
mkdir -p "$OUTDIR" "$W"
DT=$(sed -n 's/^# dtype: \([a-z0-9]*\).*/\1/p' "$CSV" | head -n 1)
DT=${DT:-f16}
if [ "$DT" = f16 ]; then SFX=; else SFX=_$DT; fi

if [ ! -x "$W/report" ] || [ bench/report.c -nt "$W/report" ] ||
   [ bench/stats.c -nt "$W/report" ] || [ bench/numbers.c -nt "$W/report" ] ||
   [ bench/stats.h -nt "$W/report" ]; then
	"$HOSTCC" -std=c11 -O2 -Wall -Wextra -Ibench bench/report.c bench/stats.c bench/numbers.c -lm \
		-o "$W/report" || exit 1
fi
if [ "$CSV" != "$(readlink -f "$OUTDIR")/bench$SFX.csv" ]; then
	install -m 644 "$CSV" "$OUTDIR/bench$SFX.csv" || exit 1
fi
DATA=$(mktemp -d "${TMPDIR:-/tmp}/polymma-report.XXXXXX") || exit 1
trap 'rm -rf "$DATA"' EXIT
"$W/report" "$OUTDIR/bench$SFX.csv" "$OUTDIR/summary$SFX.md" "$DATA" || exit 1
echo "wrote $OUTDIR/summary$SFX.md"

if ! command -v gnuplot >/dev/null 2>&1 && [ "${NO_INSTALL:-0}" != 1 ] &&
   [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "report.sh: installing gnuplot-nox" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y gnuplot-nox >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get install -y gnuplot-nox >/dev/null 2>&1; }
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "report.sh: gnuplot not found (apt-get install gnuplot-nox): no SVG plots" >&2
	exit 0
fi

info() { sed -n "s/^$2 //p" "$DATA/$1.info"; }
ext=svg
[ "${TERM_PLOT:-svg}" = png ] && ext=png	# TERM_PLOT=png: PNG previews
for id in gemm relu_gemm gemm_bias_relu add_gemm; do
	case $id in
	gemm) name=GEMM la=cublasGemmEx lb=cuBLASLt ;;
	relu_gemm) name='ReLU+GEMM (prologue)'
		la='ReLU kernel + cublasGemmEx' lb='ReLU kernel + cuBLASLt' ;;
	gemm_bias_relu) name='GEMM+bias+ReLU (epilogue)'
		la='cublasGemmEx + bias-ReLU kernel' lb='cuBLASLt with the fused ReLU+bias epilogue' ;;
	add_gemm) name='Add(GEMM, GEMM)'
		la='2 cublasGemmEx + add kernel' lb='2 cuBLASLt, the second with beta = 1' ;;
	esac
	case $DT in	# i8, f8: GEMM only, TN; cublasGemmEx has no fp8
	i8) la='cublasGemmEx (TN)' lb='cuBLASLt (TN)' ;;
	f8) la='' lb='cuBLASLt (TN)' ;;
	esac
	[ "$DT" = f16 ] || name="$name, $DT"
	[ -e "$DATA/$id.info" ] || continue
	[ "$(info $id sizes)" = 0 ] && continue
	dev=$(info $id device | tr -d "'\\\\")
	ga=$(info $id geomean_cublas); gb=$(info $id geomean_cublaslt)
	case $ga in nan | -nan | '') ga=0 ;; esac
	case $gb in nan | -nan | '') gb=0 ;; esac
	gnuplot -e "dat='$DATA/$id.dat'; out='$OUTDIR/speedup${SFX}_$id.$ext'; name='$name';
		device='$dev'; timed=$(info $id timed); sizes=$(info $id sizes);
		unsup=$(info $id unsupported); failed=$(info $id failed); ga=$ga; gb=$gb;
		ylo=$(info $id ylo); yhi=$(info $id yhi); la='$la'; lb='$lb'; term='${TERM_PLOT:-svg}'" \
		bench/plot.gp || { echo "report.sh: gnuplot failed for $id" >&2; exit 1; }
	echo "wrote $OUTDIR/speedup${SFX}_$id.$ext"
done
