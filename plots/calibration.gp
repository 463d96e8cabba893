# cgmodel plot calibration: measured throughput of every kernel against the
# elements it moves, and the fitted Eq. 3 curves (Verschoor & Jalba 2012,
# Figs. 5-7): B(m) = nu / (1 + exp(-(log2 m - mu) / sigma)), nu in GB/s.
#
# Variables set before this template (cgmodel writes them at the top of FILE.gp):
#   samples, curves         data files: one index block per series of samples
#                           (columns m, bytes, seconds, GB/s) and per fitted curve (m, GB/s)
#   plot_title, rows, cols  the picture's title and the panel grid
#   npanels, ptitle[p], e0[p], e1[p], head[p]
#                           panel p shows the elements e0[p]..e1[p], with head[p] (a fraction
#                           of the data's range) free above the data for the key
#   efile[k], eindex[k], ecol[k], etitle[k]
#                           element k: samples or curves, its index block, its GB/s column,
#                           its key entry;
#                           it is drawn with line style 100 + k (points for samples,
#                           solid avg / dashed max / dotted rel fits)
#   fs, @Fm2 @Fm1 @F0 @Fp1 @Fp2 @Fb   the font size and font macros (',8' .. ',12', bold)

set multiplot layout rows, cols title plot_title font @Fp2 noenhanced \
    margins 0.06, 0.98, 0.12, 0.92 spacing 0.07, 0.11
# The footer, drawn with the first panel.
set label 98 'points: measured samples (GB/s = bytes / seconds);  lines: Eq. 3, B(m) = ν / (1 + exp(-(log_2 m - μ) / σ)), μ and σ in log_2 elements, ν in GB/s' \
    at screen 0.5, screen 0.042 center font @Fm1
set label 99 'solid: average fit,  dashed: maximum (envelope) fit,  dotted: relative fit (the one predictions use; cgmodel plot calibration --fits avg,max,rel)' \
    at screen 0.5, screen 0.016 center font @Fm1
set logscale x 2
set format x '2^{%L}'
set xtics 4 font @Fm1
set ytics font @Fm1
set mxtics 4
set xlabel 'transactions m (elements, log2)' font @Fm1 offset 0, 0.4
set ylabel 'throughput (GB/s)' font @Fm1 offset 1.2, 0
set yrange [0:*]
set grid xtics ytics lc rgb '#dddddd' lw 1
set key top left Left reverse noautotitle samplen 2.5 spacing 0.95 font @Fm2 \
    opaque box lc rgb '#bbbbbb' width -1
set border lc rgb '#444444'
do for [p = 1:npanels] {
  set title ptitle[p] font @F0 noenhanced offset 0, -0.4
  set offsets graph 0.03, graph 0.03, graph head[p], 0  # headroom above the data for the key
  plot for [k = e0[p]:e1[p]] efile[k] index eindex[k] using 1:(column(ecol[k])) with linespoints ls (100 + k) \
       title etitle[k] noenhanced
  unset label 98
  unset label 99
}
unset multiplot
