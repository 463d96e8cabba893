# cgmodel plot calibration: measured throughput of every kernel against the
# elements it moves, and the fitted Eq. 3 curves (Verschoor & Jalba 2012,
# Figs. 5-7): B(m) = nu / (1 + exp(-(log2 m - mu) / sigma)), nu in GB/s.
#
# Variables set before this template (cgmodel writes them at the top of FILE.gp):
#   samples, curves         data files: one index block per series of samples
#                           (columns m, bytes, seconds, GB/s) and per fitted curve (m, GB/s)
#   plot_title, rows, cols  the picture's title and the panel grid
#   npanels, ptitle[p], e0[p], e1[p]
#                           panel p shows the elements e0[p]..e1[p]
#   efile[k], eindex[k], ecol[k], etitle[k]
#                           element k: samples or curves, its index block, its GB/s column,
#                           its key entry;
#                           it is drawn with line style 100 + k (points for samples,
#                           solid avg / dashed max / dotted rel fits)
#   fs, @Fm2 @Fm1 @F0 @Fp1 @Fp2 @Fb   the font size and font macros (',8' .. ',12', bold)

set multiplot layout rows, cols title plot_title font @Fp2 noenhanced \
    margins 0.06, 0.98, 0.08, 0.92 spacing 0.07, 0.11
set logscale x 2
set format x '2^{%L}'
set xtics 4 font @Fm1
set ytics font @Fm1
set mxtics 4
set xlabel 'transactions m (elements, log2)' font @Fm1 offset 0, 0.4
set ylabel 'throughput (GB/s)' font @Fm1 offset 1.2, 0
set yrange [0:*]
set offsets 0, 0, graph 0.30, 0  # headroom above the curves for the key
set grid xtics ytics lc rgb '#dddddd' lw 1
set key top left Left reverse noautotitle samplen 2.5 spacing 0.95 font @Fm2 \
    opaque box lc rgb '#bbbbbb' width 0.5
set border lc rgb '#444444'
do for [p = 1:npanels] {
  set title ptitle[p] font @F0 noenhanced offset 0, -0.4
  plot for [k = e0[p]:e1[p]] efile[k] index eindex[k] using 1:(column(ecol[k])) with linespoints ls (100 + k) \
       title etitle[k] noenhanced
}
unset multiplot
