# cgmodel map: the paper's Fig. 8. Predicted raw performance of CG,
# (2e + 15x) / T in GFLOPS (Eqs. 6-7), on one device and on G GPUs, and the
# speed-up S = T_1 / T_G, over the matrix dimension x and the number of stored
# elements e. Only the region between diagonal (e = x) and dense (e = x^2)
# matrices is meaningful; the rest is left blank. The thick line is S = 1:
# above it G GPUs are faster than one.
#
# Variables set before this template (cgmodel writes them at the top of FILE.gp):
#   grid        log10x log10e x e inside T_1 T_G GFLOPS_1 GFLOPS_G S fits_1 fits_G, a blank
#               line after every x (T, GFLOPS, S NaN where the configuration does not fit)
#   contour     segments of S = 1 (log10x log10e), blank-line separated
#   isolines, isolabels   iso-GFLOPS lines (log10x log10e GFLOPS; index 0: one device, 1: G GPUs)
#               and where their labels go
#   marks, nmarks   matrices to mark (log10x log10e x e "name")
#   plot_title, device ("GPU" or "CPU"), gpus, multi (1: draw the G-GPU and speed-up panels), exchange
#   lxlo lxhi lelo lehi   the axes' ranges in log10
#   gmin gmax   GFLOPS colour range; smin smax: speed-up colour range
#   gflops_tics speedup_tics   `set cbtics (...)` commands: at least 4 labelled tics each
#   nofit mem_gib   1 where some configurations do not fit in a GPU's mem_gib GiB (drawn grey)
#   have_s1 s1x s1y      whether S = 1 crosses the region, and where its label goes
#   fs, @Fm2 @Fm1 @F0 @Fp1 @Fp2 @Fb   the font size and font macros (',8' .. ',12', bold)

set view map
set pm3d corners2color mean
set xrange [lxlo:lxhi]
set yrange [lelo:lehi]
set xtics 1 format '10^{%.0f}' font @Fm1
set ytics 1 format '10^{%.0f}' font @Fm1
set xlabel 'matrix dimension x' font @Fm1
set ylabel 'stored elements e' font @Fm1
set cbtics font @Fm1
set logscale cb
set format cb '%g'
# Colour-bar tics: cgmodel chose them (gflops_tics, speedup_tics; eval after each cbrange).
set grid xtics ytics front lc rgb '#999999' lw 0.5 dt 3
set border front lc rgb '#444444'
unset key
set style textbox opaque noborder margins 1, 1

# The boundaries: diagonal e = x and dense e = x^2 (in log10: y = x, y = 2x).
dx0 = lxlo > lelo ? lxlo : lelo
dx1 = lxhi < lehi ? lxhi : lehi
px0 = lxlo > lelo / 2.0 ? lxlo : lelo / 2.0
px1 = lxhi < lehi / 2.0 ? lxhi : lehi / 2.0
# Outside the region: white (above the dense line, below the diagonal).
set object 1 polygon from lxlo, 2 * lxlo, 0 to lxlo, lehi, 0 to lehi / 2.0, lehi, 0 to lxlo, 2 * lxlo, 0 \
    front fillstyle solid 1.0 noborder fillcolor rgb 'white'
set object 2 polygon from lelo, lelo, 0 to lxhi, lxhi, 0 to lxhi, lelo, 0 to lelo, lelo, 0 \
    front fillstyle solid 1.0 noborder fillcolor rgb 'white'
set arrow 1 from dx0, dx0, 0 to dx1, dx1, 0 nohead front lw 2 lc rgb 'black'
set arrow 2 from px0, 2 * px0, 0 to px1, 2 * px1, 0 nohead front lw 2 lc rgb 'black'
set label 1 'dense, e = x²' at lxlo + 0.15, lehi - 0.45, 0 left front font @Fm1
set label 2 'diagonal, e = x' at lxhi - 0.15, lelo + 0.45, 0 right front font @Fm1

# What does not fit in a GPU's memory is left out of the maps (NaN): grey shows through.
if (nofit) {
  set object 3 rectangle from graph 0, 0 to graph 1, 1 behind fillstyle solid 1.0 noborder fillcolor rgb '#c8c8c8'
}
gflops_palette = "set palette defined (0 '#30123b', 0.15 '#4145ab', 0.3 '#2fb2e9', 0.45 '#2ee9a5', 0.6 '#a4fc3b', 0.75 '#f6c33a', 0.9 '#f0651e', 1 '#7a0403')"
speedup_palette = "set palette defined (0 '#67001f', 0.25 '#d6604d', 0.5 '#f7f7f7', 0.75 '#4393c3', 1 '#053061')"

# Iso-GFLOPS lines of index block i, labelled.
iso(i) = sprintf(", isolines index %d using 1:2:(0) with lines lw 1 dt 2 lc rgb '#202020', isolabels index %d using 1:2:(0):(sprintf('%%g', $3)) with labels center boxed font %s", i, i, Fm2)
# One panel: column col of the grid, colour range lo..hi; marks on top.
# Columns drawn: GFLOPS_1, GFLOPS_G and S recomputed from T_1, T_G everywhere (the file's
# GFLOPS and S columns are NaN outside the region), then the outside is painted over.
gf1 = "(($4 * 2 + 15 * $3) / $6 * 1e-9)"
gfg = "(($4 * 2 + 15 * $3) / $7 * 1e-9)"
spd = "($6 / $7)"
marks_cmd = nmarks > 0 ? ", marks using 1:2:(0) with points pt 7 ps 1.3 lc rgb 'black', marks using 1:2:(0):5 with labels left offset 0.7, 0.5 noenhanced font ".Fm1." boxed" : ""
# One panel: the colour map of column col, then `extra` (lines), then the marks on top.
draw(col, extra) = sprintf("splot grid using 1:2:%s with pm3d", col) . extra . marks_cmd
# Panel position in screen coordinates (left, right, bottom, top of the plot area).
place(l, r, b, t) = sprintf("set lmargin at screen %g; set rmargin at screen %g; set bmargin at screen %g; set tmargin at screen %g", l, r, b, t)

if (nofit) { plot_title = plot_title . sprintf(' (grey: does not fit in the %.1f GiB of a GPU)', mem_gib) }
set multiplot title plot_title font @Fp2 noenhanced
if (multi) {
  # left column: GFLOPS on one GPU (top) and on G (bottom); right: the speed-up
  eval gflops_palette
  set cbrange [gmin:gmax]
  eval gflops_tics
  set cblabel 'GFLOPS (raw)' font @Fm1 offset -0.5, 0
  set title sprintf('raw GFLOPS, 1 %s (dashed: iso-GFLOPS)', device) font @F0
  eval place(0.07, 0.33, 0.56, 0.89)
  eval draw(gf1, iso(0))
  set title sprintf('raw GFLOPS, %d GPUs (%s exchange)', gpus, exchange) font @F0
  eval place(0.07, 0.33, 0.08, 0.41)
  eval draw(gfg, iso(1))
  eval speedup_palette
  set cbrange [smin:smax]
  eval speedup_tics
  set cblabel 'speed-up S = T_1 / T_G' font @Fm1 offset 0, 0
  set title sprintf('speed-up of %d GPUs over 1 (thick line: S = 1)', gpus) font @F0
  eval place(0.47, 0.88, 0.08, 0.89)
  if (have_s1) {
    set label 3 'S = 1' at s1x, s1y, 0 center front boxed font @Fb
    eval draw(spd, ", contour using 1:2:(0) with lines lw 4 lc rgb 'black'")
  } else {
    set label 3 'S < 1 or S > 1 everywhere: no S = 1 line' at graph 0.5, graph 0.04 center front boxed
    eval draw(spd, "")
  }
} else {
  eval gflops_palette
  set cbrange [gmin:gmax]
  eval gflops_tics
  set cblabel 'GFLOPS (raw, Eqs. 6-7)' font @Fm1
  set title sprintf('raw GFLOPS, 1 %s (dashed: iso-GFLOPS lines)', device) font @F0
  eval place(0.08, 0.86, 0.09, 0.88)
  eval draw(gf1, iso(0))
}
unset multiplot
