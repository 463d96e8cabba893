# cgmodel plot accuracy: the model's predicted time per iteration against the
# measured one for every solve in the database (the idea of Verschoor & Jalba
# 2012, Fig. 10 and Table 6). Points on the line y = x are exact; the dashed
# lines are +-20%. Colour: block size; marker: backend, precision and GPU
# count. The key gives each one's count and average relative error
# |pred - meas| / meas; the worst points can carry their matrix's name.
#
# Variables set before this template (cgmodel writes them at the top of FILE.gp):
#   solves      one index block per group: measured_s predicted_s rel_error block gpus solve_id
#               matrix_id "matrix"
#   worst, nworst   the labelled points (measured_s predicted_s rel_error solve_id "label"
#               label_y_s: where the label goes, below a label it would cover)
#   plot_title  with the overall average relative error
#   lo, hi      the range of both axes (seconds; the axes show microseconds)
#   ngroups, gcolor[g], gpt[g]   each group's colour (block size) and point type (marker)
#   nkeys, nblockkeys, ktitle[k], kcolor[k], kpt[k]   the key: the block sizes (first
#               nblockkeys entries, drawn as swatches of their colour), then the markers
#   fs, @Fm2 @Fm1 @F0 @Fp1 @Fp2 @Fb   the font size and font macros (',8' .. ',12', bold)

set title plot_title font @Fp1 noenhanced
set logscale xy
us = 1e6  # the axes are in microseconds
set xrange [lo * us:hi * us]
set yrange [lo * us:hi * us]
set size ratio -1
# Tics (those inside the range show) at 1, 2, 5 x 10^k over less than two
# decades, else at the decades alone (every second one over more than six),
# from 10^4 on written as powers of ten: labels that never run together.
set xtics () font @Fm1
set ytics () font @Fm1
decades = log10(hi / lo)
steps = decades < 2 ? "1 2 5" : "1"
every = decades > 6 ? 2 : 1
do for [k = -3:9] {
  do for [f in steps] {
    v = real(f) * 10.0**k
    t = v < 1e4 ? sprintf('%g', v) : sprintf('%s10^{%d}', f eq "1" ? "" : f . "·", k)
    if (k % every == 0) { set xtics add (t v); set ytics add (t v) }
  }
}
set mxtics 10
set mytics 10
set xlabel 'measured time per iteration (µs)'
set ylabel 'predicted time per iteration (µs)'
set grid xtics ytics mxtics mytics lc rgb '#e4e4e4' lw 1, lc rgb '#f2f2f2' lw 1
set border lc rgb '#444444'
set key outside right top Left reverse samplen 1.5 spacing 1.1 font @Fm1 noenhanced \
    title 'solves, average relative error' left
set samples 200
wfile = nworst > 0 ? worst : solves # a plot of no iterations still opens its file
plot x with lines lw 1.5 lc rgb '#333333' title 'y = x (exact)', \
     1.2 * x with lines dt 2 lc rgb '#999999' title '±20%', \
     x / 1.2 with lines dt 2 lc rgb '#999999' notitle, \
     for [g = 1:ngroups] solves index (g - 1) using ($1 * us):($2 * us) with points pt gpt[g] ps 1.3 \
         lc rgb gcolor[g] notitle, \
     for [k = 1:nblockkeys] keyentry with lines lw 8 lc rgb kcolor[k] title ktitle[k], \
     for [k = nblockkeys + 1:nkeys] keyentry with points pt kpt[k] ps 1.3 lc rgb kcolor[k] title ktitle[k], \
     for [w = 1:(nworst > 0 ? 1 : 0)] wfile using ($1 * us):($2 * us):(0):(($6 - $2) * us) \
         with vectors nohead lw 0.5 lc rgb '#999999' notitle, \
     for [w = 1:(nworst > 0 ? 1 : 0)] wfile using ($1 * us):($6 * us):5 with labels left offset 0.8, 0 \
         font @Fm2 noenhanced tc rgb '#222222' notitle
