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
#   keyrows                 the entries of the longest key (keys go below the panels, one a line)
#   efile[k], eindex[k], ecol[k], etitle[k]
#                           element k: samples or curves, its index block, its GB/s column,
#                           its key entry;
#                           it is drawn with line style 100 + k (points for samples,
#                           solid avg / dashed max / dotted rel fits)
#   fs, @Fm2 @Fm1 @F0 @Fp1 @Fp2 @Fb   the font size and font macros (',8' .. ',12', bold)

# The panels on a fixed grid (screen fractions), each key below its panel's
# x label, outside the data: the rows are spaced for the longest key.
top = 0.94; left = 0.06; right = 0.98; hs = 0.08
kline = (fs - 2) * 1.45 / height         # one key entry
xlab = 0.075 * 800.0 / height            # the x tics and label under a panel
kspace = xlab + keyrows * kline + 0.015
foot = 0.065 * 800.0 / height            # the two footer lines
vs = 0.06 * 800.0 / height             # between a key and the next row's title
ph = (top - foot - rows * kspace - (rows - 1) * vs) / rows
pw = (right - left - (cols - 1) * hs) / cols
set multiplot title plot_title font @Fp2 noenhanced
# The footer, drawn with the first panel.
set label 98 'points: measured samples (GB/s = bytes / seconds);  lines: Eq. 3, B(m) = ν / (1 + exp(-(log_2 m - μ) / σ)), μ and σ in log_2 elements, ν in GB/s' \
    at screen 0.5, screen 0.042 * 800.0 / height center font @Fm1
set label 99 'solid: average fit,  dashed: maximum (envelope) fit,  dotted: relative fit (the one predictions use; cgmodel plot calibration --fits avg,max,rel)' \
    at screen 0.5, screen 0.016 * 800.0 / height center font @Fm1
set logscale x 2
set format x '2^{%L}'
set xtics 4 font @Fm1
set ytics font @Fm1
set mxtics 4
set xlabel 'transactions m (elements, log2)' font @Fm1 offset 0, 0.4
set ylabel 'throughput (GB/s)' font @Fm1 offset 1.2, 0
set yrange [0:*]
set grid xtics ytics lc rgb '#dddddd' lw 1
set border lc rgb '#444444'
do for [p = 1:npanels] {
  r = (p - 1) / cols; c = (p - 1) % cols
  pl = left + c * (pw + hs); pt = top - r * (ph + kspace + vs); pb = pt - ph
  set lmargin at screen pl; set rmargin at screen pl + pw
  set tmargin at screen pt; set bmargin at screen pb
  set key at screen pl, screen pb - xlab left top Left reverse noautotitle samplen 2.5 \
      spacing 0.95 font @Fm2 opaque width -1 maxrows keyrows
  set title ptitle[p] font @F0 noenhanced offset 0, -0.4
  set offsets graph 0.03, graph 0.03, graph 0.05, 0
  plot for [k = e0[p]:e1[p]] efile[k] index eindex[k] using 1:(column(ecol[k])) with linespoints ls (100 + k) \
       title etitle[k] noenhanced
  unset label 98
  unset label 99
}
unset multiplot
