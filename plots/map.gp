# cgmodel map: the paper's Fig. 8. Predicted raw performance of CG,
# (2e + 15x) / T in GFLOPS (Eqs. 6-7), on one device and on G GPUs, and the
# speed-up S = T_1 / T_G, over the matrix dimension x and the number of stored
# elements e. Only the region between diagonal (e = x) and dense (e = x^2)
# matrices is meaningful; the rest is left blank. The thick line is S = 1:
# above it G GPUs are faster than one.
#
# Variables set before this template (cgmodel writes them at the top of FILE.gp):
#   grid        log10x log10e x e inside T_1 T_G GFLOPS_1 GFLOPS_G S, a blank line after every x
#   contour     segments of S = 1 (log10x log10e), blank-line separated
#   marks, nmarks   matrices to mark (log10x log10e x e "name")
#   plot_title, device ("GPU" or "CPU"), gpus, multi (1: draw the G-GPU and speed-up panels), exchange
#   lxlo lxhi lelo lehi   the axes' ranges in log10
#   gmin gmax   GFLOPS colour range; smin smax: speed-up colour range
#   have_s1 s1x s1y      whether S = 1 crosses the region, and where its label goes
#   fs          the font size

set view map
set pm3d at b corners2color mean
unset surface
set xrange [lxlo:lxhi]
set yrange [lelo:lehi]
set xtics 1 format '10^{%.0f}' font sprintf(',%d', fs - 1)
set ytics 1 format '10^{%.0f}' font sprintf(',%d', fs - 1)
set xlabel 'matrix dimension x' font sprintf(',%d', fs - 1)
set ylabel 'stored elements e' font sprintf(',%d', fs - 1)
set cbtics font sprintf(',%d', fs - 1)
set logscale cb
set format cb '%g'
set grid xtics ytics front lc rgb '#999999' lw 0.5 dt 3
set border front lc rgb '#444444'
unset key
set style textbox opaque noborder margins 1, 1

# The boundaries: diagonal e = x and dense e = x^2 (in log10: y = x, y = 2x).
dx0 = lxlo > lelo ? lxlo : lelo
dx1 = lxhi < lehi ? lxhi : lehi
px0 = lxlo > lelo / 2.0 ? lxlo : lelo / 2.0
px1 = lxhi < lehi / 2.0 ? lxhi : lehi / 2.0
set arrow 1 from dx0, dx0, 0 to dx1, dx1, 0 nohead front lw 2 lc rgb 'black'
set arrow 2 from px0, 2 * px0, 0 to px1, 2 * px1, 0 nohead front lw 2 lc rgb 'black'
set label 1 'dense, e = x²' at lxlo + 0.15, lehi - 0.45, 0 left front font sprintf(',%d', fs - 1)
set label 2 'diagonal, e = x' at lxhi - 0.15, lelo + 0.45, 0 right front font sprintf(',%d', fs - 1)

gflops_palette = "set palette defined (0 '#30123b', 0.15 '#4145ab', 0.3 '#2fb2e9', 0.45 '#2ee9a5', 0.6 '#a4fc3b', 0.75 '#f6c33a', 0.9 '#f0651e', 1 '#7a0403')"
speedup_palette = "set palette defined (0 '#67001f', 0.25 '#d6604d', 0.5 '#f7f7f7', 0.75 '#4393c3', 1 '#053061')"

# One panel: column col of the grid, colour range lo..hi; marks on top.
draw(col) = sprintf("splot grid using 1:2:%d with pm3d%s", col, \
    nmarks > 0 ? ", marks using 1:2:(0) with points pt 7 ps 1.3 lc rgb 'black', marks using 1:2:(0):5 with labels left offset 0.7, 0.5 noenhanced font sprintf(',%d', fs - 1) boxed" : "")

set multiplot title plot_title font sprintf(',%d', fs + 2) noenhanced
if (multi) {
  # left column: GFLOPS on one GPU (top) and on G (bottom); right: the speed-up
  set size 0.40, 0.47
  set origin 0.0, 0.47
  eval gflops_palette
  set cbrange [gmin:gmax]
  set title sprintf('raw GFLOPS, 1 %s', device) font sprintf(',%d', fs)
  eval draw(8)
  set origin 0.0, 0.0
  set title sprintf('raw GFLOPS, %d GPUs (%s exchange)', gpus, exchange) font sprintf(',%d', fs)
  eval draw(9)
  set size 0.60, 0.94
  set origin 0.40, 0.0
  eval speedup_palette
  set cbrange [smin:smax]
  set cblabel 'speed-up S = T_1 / T_G' font sprintf(',%d', fs - 1)
  set title sprintf('speed-up of %d GPUs over 1 (S = 1: thick line)', gpus) font sprintf(',%d', fs)
  if (have_s1) {
    set label 3 'S = 1' at s1x, s1y, 0 center front boxed font sprintf(',%d:Bold', fs)
    eval draw(10) . ", contour using 1:2:(0) with lines lw 4 lc rgb 'black'"
  } else {
    set label 3 'S < 1 or S > 1 everywhere: no S = 1 line' at graph 0.5, graph 0.04 center front boxed
    eval draw(10)
  }
} else {
  set size 1.0, 0.94
  set origin 0.0, 0.0
  set size ratio -1
  eval gflops_palette
  set cbrange [gmin:gmax]
  set cblabel 'GFLOPS (raw, Eqs. 6-7)' font sprintf(',%d', fs - 1)
  set title sprintf('raw GFLOPS, 1 %s', device) font sprintf(',%d', fs)
  eval draw(8)
}
unset multiplot
