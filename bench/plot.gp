# plot.gp: one idiom's speedup plot (SVG) from report's data files.
# Called by bench/report.sh: gnuplot -e "dat='...'; out='...'; name='...';
#   device='...'; timed=N; sizes=N; unsup=N; failed=N; ga=X; gb=X;
#   ylo=X; yhi=X; la='baseline (a)'; lb='baseline (b)' [; term='png']" plot.gp
# In the paper's style: polymma's speedup over each library baseline against
# the problem size, one point per size, a dashed line at 1.0x.
if (!exists("term")) term = "svg"
if (term eq "png") { set terminal pngcairo size 820,500 enhanced font "Helvetica,11" } else { set terminal svg size 820,500 dynamic enhanced font "Helvetica,13" background rgb "white" }
set output out
set title sprintf("%s on %s: speedup of polymma's kernel", name, device)
set xlabel 'problem size (GFLOP, log scale)'
set ylabel 'speedup = baseline time / polymma time'
set logscale x 10
set logscale y 2
set grid xtics ytics mxtics lc rgb '#dddddd'
set key bottom right box opaque font ',11'
set format y '%gx'
if (timed > 0) {
	set yrange [ylo / 1.6 : yhi * 1.6]	# report: min and max, 1.0 included
	set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb 'black'
	set label 2 sprintf('%d of %d sizes timed; %d unsupported, %d failed', timed, sizes, unsup, failed) \
		at graph 0.01, graph 0.96 left font ',11'
	if (ga > 0) {
		plot dat using 1:2 with points pt 6 ps 1.1 lw 1.3 lc rgb '#1f77b4' \
			title sprintf('vs %s (paper), geomean %.2fx', la, ga), \
		     dat using 1:3 with points pt 7 ps 0.45 lc rgb '#d62728' \
			title sprintf('vs %s (today), geomean %.2fx', lb, gb)
	} else {	# no first baseline (f8: cublasGemmEx takes no fp8)
		plot dat using 1:3 with points pt 7 ps 0.45 lc rgb '#d62728' \
			title sprintf('vs %s (today), geomean %.2fx', lb, gb)
	}
} else {
	set xrange [0.01:2000]
	set yrange [0.125:8]
	set label 1 sprintf("no polymma kernel timed for this idiom yet:\n%d of %d sizes unsupported, %d failed", \
		unsup, sizes, failed) at graph 0.5, graph 0.75 center font ',14'
	plot 1 with lines dt 2 lw 1.5 lc rgb 'black' title '1.0x'
}
