#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The pictures from a CPU calibration: plot calibration, map and plot accuracy
# write a PNG or an SVG of the asked size, keep their data and gnuplot script
# next to it (and the script draws the picture again), the data holds what the
# database holds; and every way to fail fails clearly: no calibration (2), an
# output name that is not .png/.svg (2), no gnuplot (3).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk16.mtx
P=$TMP/pics
mkdir -p "$P"

# png_size FILE W H: a PNG (signature, IHDR first) of W x H pixels.
png_size() {
  local msg
  if msg=$(python3 - "$1" "$2" "$3" 2>&1 <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read(24)
if d[:8] != b"\x89PNG\r\n\x1a\n" or d[12:16] != b"IHDR":
    print("not a PNG"); sys.exit(1)
w, h = struct.unpack(">II", d[16:24])
if (w, h) != (int(sys.argv[2]), int(sys.argv[3])):
    print(f"{w}x{h}"); sys.exit(1)
EOF
  ); then pass; else fail "$1: PNG of $2x$3 ($msg)"; fi
}
# svg_size FILE W H: XML whose root is <svg> with width W and height H.
svg_size() {
  local msg
  if msg=$(python3 - "$1" "$2" "$3" 2>&1 <<'EOF'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
if r.tag != "{http://www.w3.org/2000/svg}svg":
    print(f"root {r.tag}"); sys.exit(1)
w, h = r.get("width"), r.get("height")
if (w, h) != (sys.argv[2], sys.argv[3]):
    print(f"{w}x{h}"); sys.exit(1)
EOF
  ); then pass; else fail "$1: SVG of $2x$3 ($msg)"; fi
}
# data_lines FILE: the data lines (not comments, not blank) of a data file.
data_lines() { grep -cv '^\s*\(#\|$\)' "$1"; }

# ---- the output name and gnuplot are checked first
expect_fail 2 "must end in .png or .svg" "$CGM" plot calibration -o "$P/c.jpg"
expect_fail 2 "must end in .png or .svg" "$CGM" map -o "$P/m.pdf"
expect_fail 2 "must end in .png or .svg" "$CGM" plot accuracy -o "$P/a"
expect_fail 2 "-o FILE.png" "$CGM" plot calibration
expect_fail 3 "gnuplot" env PATH=/nonexistent "$CGM" plot calibration -o "$P/c.png"
last_stderr_contains "gnuplot-nox"
expect_fail 3 "gnuplot" env PATH=/nonexistent "$CGM" map -o "$P/m.png"
expect_fail 2 "'calibration' or 'accuracy'" "$CGM" plot pictures -o "$P/c.png"
expect_fail 2 "--size" "$CGM" plot calibration -o "$P/c.png" --size 10x10

if ! command -v gnuplot >/dev/null; then
  echo "test_plots: gnuplot is not installed (scripts/deps.sh): the pictures are not checked" >&2
  finish
fi

# ---- no calibration yet: exit 2, nothing created
expect_fail 2 "cgmodel calibrate" "$CGM" plot calibration -o "$P/c.png"
expect_fail 2 "cgmodel calibrate" "$CGM" map -o "$P/m.png"
expect_fail 2 "cgmodel calibrate" "$CGM" plot accuracy -o "$P/a.png"
assert_no_file "$CGMODEL_DB" "a plot must not create a database"
assert_no_file "$P/c.png" "no picture without a calibration"

# ---- calibrate the CPU
expect_exit 0 "$CGM" calibrate --devices cpu --quick --precision double --json
cp "$OUT" "$TMP/cal.json"
ID=$(json_get "$TMP/cal.json" calibrations.0.id)
expect_exit 0 "$CGM" db export "$ID" -o "$TMP/export.json"

# ---- plot calibration: PNG at the default size, its data and script
expect_exit 0 "$CGM" plot calibration -o "$P/cal.png"
png_size "$P/cal.png" 1200 800
last_stdout_contains "$P/cal.gp"
for f in cal.gp cal-samples.dat cal-curves.dat cal-fits.dat; do assert_file_exists "$P/$f" "plot calibration keeps $f"; done
# Every sample of the calibration's kernels, once, under its kernel (its
# setup samples time a solve's setup, no kernel's throughput: not drawn).
if msg=$(python3 - "$TMP/export.json" "$P/cal-samples.dat" 2>&1 <<'EOF'
import collections, json, re, sys
j = json.load(open(sys.argv[1]))
want = collections.Counter(s["kernel"] for s in j["samples"]
                           if s["precision"] == "double" and s["kernel"] != "setup")
got, kernel = collections.Counter(), None
for line in open(sys.argv[2]):
    m = re.match(r"# series \d+: kernel (\S+) ", line)
    if m: kernel = m.group(1)
    elif line.strip() and not line.startswith("#"):
        got[kernel] += 1
        m_, b, s, gbps = map(float, line.split()[:4])
        assert abs(gbps - b / s * 1e-9) <= 1e-6 * gbps, line
if got != want:
    print(f"samples per kernel: plotted {dict(got)}, database {dict(want)}"); sys.exit(1)
EOF
); then pass; else fail "cal-samples.dat holds the calibration's samples ($msg)"; fi
# Every fit of the calibration is listed; a curve for every converged avg and max fit drawn.
assert_py "$(data_lines "$P/cal-fits.dat") == $(python3 -c "import json; print(len(json.load(open('$TMP/export.json'))['fits']))")" \
  "cal-fits.dat: one line per fit"
NCURVES=$(grep -c '^# curve' "$P/cal-curves.dat")
WANT=$(python3 -c "
import json; j = json.load(open('$TMP/export.json'))
# the SpMV panel draws the mesh curve where the calibration has one, else "all"
mesh = {(f['block'], f['precision']) for f in j['fits'] if f['kernel'] == 'spmv' and f['variant'] == 'mesh'}
spmv = lambda f: f['variant'] == ('mesh' if (f['block'], f['precision']) in mesh else 'all')
print(sum(1 for f in j['fits'] if f['converged'] and f['kind'] in ('avg', 'rel', 'rel-hi')
          and (f['kernel'] in ('cg4', 'cg5', 'red', 'cusparse') or (f['kernel'] == 'spmv' and spmv(f)) or f['kernel'] == 'iter')))")
assert_eq "$NCURVES" "$WANT" "by default one curve per converged avg and rel fit (the model's) of a plotted kernel"
assert_eq "$(grep -c '^# curve.* max fit' "$P/cal-curves.dat")" 0 "no max fit by default"
# The keys lie below the panels, outside the data: each panel's key sits at
# screen coordinates under its bottom margin.
if grep -q 'set key at screen pl, screen pb - xlab' "$P/cal.gp" && grep -q '^keyrows = [1-9]' "$P/cal.gp"; then
  pass; else fail "cal.gp: keys below the panels"; fi
# the script draws it again, from the picture's directory
rm -f "$P/cal.png"
run_cmd bash -c "cd '$P' && gnuplot cal.gp"
assert_eq "$RC" 0 "gnuplot cal.gp runs on its own"
png_size "$P/cal.png" 1200 800

# SVG of an asked size; every fit kind
expect_exit 0 "$CGM" plot calibration -o "$P/cal.svg" --size 900x700 --fits avg,max,rel --calibration "$ID"
svg_size "$P/cal.svg" 900 700
NREL=$(grep -c 'rel fit' "$P/cal-curves.dat")
WANT=$(python3 -c "
import json; j = json.load(open('$TMP/export.json'))
# the SpMV panel draws the mesh curve where the calibration has one, else "all"
mesh = {(f['block'], f['precision']) for f in j['fits'] if f['kernel'] == 'spmv' and f['variant'] == 'mesh'}
spmv = lambda f: f['variant'] == ('mesh' if (f['block'], f['precision']) in mesh else 'all')
print(sum(1 for f in j['fits'] if f['converged'] and f['kind'] == 'rel'
          and (f['kernel'] in ('cg4', 'cg5', 'red', 'cusparse') or (f['kernel'] == 'spmv' and spmv(f)) or f['kernel'] == 'iter')))")
assert_eq "$NREL" "$WANT" "--fits rel: one curve per converged relative fit"
expect_exit 0 "$CGM" plot calibration -o "$P/cal2.png" --device cpu
expect_fail 2 "no complete calibration of device cuda" "$CGM" plot calibration -o "$P/x.png" --device cuda
expect_fail 2 "no calibration with id 999" "$CGM" plot calibration -o "$P/x.png" --calibration 999
expect_fail 2 "no single-precision samples" "$CGM" plot calibration -o "$P/x.png" --precision single
expect_fail 2 "does not exist" "$CGM" plot calibration -o "$TMP/nowhere/x.png"

# ---- every file of a picture is written beside its name and renamed over
# it: a symbolic link, a hard link or a FIFO at the picture's, the script's
# or a data file's name is replaced, never written through (the file it led
# to is byte-identical), and no temporary file stays
L=$TMP/links
mkdir -p "$L"
echo "not a picture's" >"$L/bystander"
cp "$L/bystander" "$L/bystander.orig"
ln -s bystander "$L/lk.png"
ln -s "$L/bystander" "$L/lk.gp"
ln "$L/bystander" "$L/lk-samples.dat" 2>/dev/null || ln -s bystander "$L/lk-samples.dat"
mkfifo "$L/lk-curves.dat"
expect_exit 0 timeout 120 "$CGM" plot calibration -o "$L/lk.png"
png_size "$L/lk.png" 1200 800
if cmp -s "$L/bystander" "$L/bystander.orig"; then pass; else fail "a link's file was written through"; fi
for f in lk.png lk.gp lk-samples.dat lk-curves.dat lk-fits.dat; do
  if [ -f "$L/$f" ] && [ ! -L "$L/$f" ]; then pass; else fail "$f: not replaced by a regular file"; fi
done
assert_eq "$(stat -c %h "$L/bystander")" 1 "the hard link replaced, not written"
assert_eq "$(find "$L" -name '.*' | wc -l)" 0 "no temporary file after a picture"
# the templates are inputs too: a picture beside them must not replace one
TPL=$TMP/templates
mkdir -p "$TPL"
cp "$REPO"/plots/*.gp "$TPL/"
cp "$TPL/calibration.gp" "$TPL/calibration.orig"
expect_fail 2 "would overwrite the gnuplot template" env CGMODEL_PLOTS_DIR="$TPL" \
  "$CGM" plot calibration -o "$TPL/calibration.svg"
if cmp -s "$TPL/calibration.gp" "$TPL/calibration.orig"; then pass; else fail "the template was replaced"; fi
# gnuplot failing: exit 3, the old picture gone (it would not match the new
# data), its temporary file gone
echo "this is not gnuplot" >>"$TPL/calibration.gp"
expect_fail 3 "gnuplot failed" env CGMODEL_PLOTS_DIR="$TPL" "$CGM" plot calibration -o "$L/lk.png"
assert_no_file "$L/lk.png" "a failed picture leaves no older one"
assert_eq "$(find "$L" -name '.*' | wc -l)" 0 "no temporary file after a failed picture"

# ---- map: a CPU draws the one-device panel only, and says so. The map needs
# converged curves (any kind: the loader falls back rel -> avg -> max) of CG4,
# CG5 and the SpMV of its block size; a noisy (or sanitized) calibration may
# have none, and then the map must refuse clearly.
MAPN=$(python3 -c "
import json; j = json.load(open('$TMP/export.json'))
ok = lambda k, v, b: any(f['converged'] and f['kernel'] == k and f['variant'] == v and f['block'] == b
                         and f['precision'] == 'double' for f in j['fits'])
ns = [n for n in (4, 8, 2, 1) if ok('spmv', 'all', n)] if ok('cg4', '', 0) and ok('cg5', '', 0) else []
print(ns[0] if ns else '')")
if [ -z "$MAPN" ]; then
  expect_fail 2 "no converged" "$CGM" map -o "$P/map.png"
  echo "test_plots: calibration $ID has no converged curves to map (noisy or sanitized build): the map's picture is not checked" >&2
else
expect_exit 0 "$CGM" map -o "$P/map.png" --mark "$A" --block "$MAPN"
png_size "$P/map.png" 1200 800
# the extension in any case (docs/cli.md): written under the name given
expect_exit 0 "$CGM" map -o "$P/upper.PNG" --block "$MAPN"
png_size "$P/upper.PNG" 1200 800
last_stderr_contains "speed-up panel is not meaningful"
for f in map.gp map-grid.dat map-contour.dat map-isolines.dat map-isolabels.dat map-marks.dat; do
  assert_file_exists "$P/$f" "map keeps $f"
done
# The grid: x 10^2..10^8 and e 10^3..10^10, 10 points a decade (61 x 71); inside
# exactly between e = x and e = x^2; GFLOPS = (2e + 15x) / T; NaN outside.
if msg=$(python3 - "$P/map-grid.dat" 2>&1 <<'EOF'
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
assert len(rows) == 61 * 71, f"{len(rows)} points"
xs = sorted({float(r[2]) for r in rows}); es = sorted({float(r[3]) for r in rows})
assert len(xs) == 61 and len(es) == 71, f"{len(xs)} x, {len(es)} e"
assert abs(xs[0] / 1e2 - 1) < 1e-4 and abs(xs[-1] / 1e8 - 1) < 1e-4, (xs[0], xs[-1])
assert abs(es[0] / 1e3 - 1) < 1e-4 and abs(es[-1] / 1e10 - 1) < 1e-4, (es[0], es[-1])
finite = 0
for r in rows:
    x, e, inside, t1, g1 = float(r[2]), float(r[3]), int(r[4]), float(r[5]), float(r[7])
    assert inside == (x * (1 - 1e-4) <= e <= x * x * (1 + 1e-4)), r
    if not inside:
        assert math.isnan(g1), r
    elif not math.isnan(g1):
        finite += 1
        assert abs(g1 - (2 * e + 15 * x) / t1 * 1e-9) <= 1e-4 * g1, r
    assert math.isnan(float(r[6])) and math.isnan(float(r[9])), "no G-GPU values on a CPU"
assert finite > 1000, f"only {finite} finite points inside"
EOF
); then pass; else fail "map-grid.dat: the documented grid ($msg)"; fi
run_cmd "$CGM" info "$A" --json
BI=$(python3 -c "print({1: 0, 2: 1, 4: 2, 8: 3}[$MAPN])")
EN=$(json_get "$OUT" "blocks.$BI.e_N")
assert_eq "$(data_lines "$P/map-marks.dat")" 1 "one marked matrix"
assert_eq "$(grep -v '^#' "$P/map-marks.dat" | awk '{ print $3, $4, $5 }')" "4884 $EN \"bcsstk16\"" "the mark is (x, e_N) of bcsstk16"
expect_exit 0 "$CGM" map -o "$P/map.svg" --size 1000x640 --block "$MAPN" --gpus 2
svg_size "$P/map.svg" 1000 640
last_stderr_contains "CPU calibration"
# Colour-bar tics: at least 4, inside the colour range.
cbtics_check() {
  local msg
  if msg=$(python3 - "$1" 2>&1 <<'EOF'
import re, sys
gp = open(sys.argv[1]).read()
v = dict(re.findall(r"^(gmin|gmax|smin|smax) = (\S+)", gp.replace("; ", "\n"), re.M))
for var, lo, hi in (("gflops_tics", "gmin", "gmax"), ("speedup_tics", "smin", "smax")):
    m = re.search(r'^%s = "set cbtics \((.*)\)"$' % var, gp, re.M)
    assert m, var + " missing"
    tics = [float(t.split()[-1]) for t in m.group(1).split(",")]
    assert len(tics) >= 4, (var, tics)
    assert all(float(v[lo]) * (1 - 1e-6) <= t <= float(v[hi]) * (1 + 1e-6) for t in tics), (var, tics, v)
    if var == "speedup_tics":  # a gain labelled as well as a loss
        assert min(tics) < 1 < max(tics), (var, tics)
EOF
  ); then pass; else fail "$1: colour-bar tics ($msg)"; fi
}
cbtics_check "$P/map.gp"

# ---- map of several GPUs from a synthetic GPU calibration: the CPU's
# curves copied under a 4-GPU device of 1 GiB, with exchange curves for p2p
# and halo (the CG5 curve's shape). --exchange halo maps the band matrix's
# halo: never more than p2p's whole vector, nothing on the diagonal; what
# does not fit in 1 GiB is masked (NaN, fits = 0), for p2p more than halo.
SYN=$TMP/synthetic-gpu.db
cp "$CGMODEL_DB" "$SYN"
python3 - "$SYN" "$ID" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); cal = int(sys.argv[2])
c.execute("INSERT INTO devices (name, model, kind, mem_total, host) VALUES ('cuda:0', 'Synthetic GPU', 'cuda', ?, 'test')", (1 << 30,))
dev = c.execute("SELECT last_insert_rowid()").fetchone()[0]
c.execute("INSERT INTO calibrations (device_id, created, tool_version, options, seconds, complete) "
          "VALUES (?, '2100-01-01T00:00:00Z', 'test', '{\"gpus\": 4}', 1, 1)", (dev,))
new = c.execute("SELECT last_insert_rowid()").fetchone()[0]
cols = "kernel, variant, precision, block, kind, mu, sigma, nu, se_mu, se_sigma, se_nu, r2, rms, n, converged, message"
c.execute(f"INSERT INTO fits (calibration_id, {cols}) SELECT ?, {cols} FROM fits WHERE calibration_id = ?", (new, cal))
for ex in ("p2p", "halo"):
    for g in (2, 3, 4):
        c.execute(f"INSERT INTO fits (calibration_id, {cols}) SELECT ?, 'xfer', ?, precision, ?, kind, mu, sigma, nu, "
                  "se_mu, se_sigma, se_nu, r2, rms, n, converged, message FROM fits WHERE calibration_id = ? AND kernel = 'cg5'",
                  (new, ex, g, cal))
c.commit()
EOF
for ex in p2p halo; do
  expect_exit 0 "$CGM" map --db "$SYN" --device cuda --gpus 4 --exchange "$ex" --block "$MAPN" -o "$P/map-$ex.png"
  png_size "$P/map-$ex.png" 1200 800
  last_stderr_contains "does not fit in the 1.0 GiB of a GPU"
  cbtics_check "$P/map-$ex.gp"
  if grep -q "^exchange = '$ex'" "$P/map-$ex.gp"; then pass; else fail "map-$ex.gp: exchange $ex"; fi
done
if msg=$(python3 - "$P/map-p2p-grid.dat" "$P/map-halo-grid.dat" 2>&1 <<'EOF'
import math, sys
rows = lambda f: [l.split() for l in open(f) if l.strip() and not l.startswith("#")]
p2p, halo = rows(sys.argv[1]), rows(sys.argv[2])
assert len(p2p) == len(halo) == 61 * 71
less = masked = diag = 0
for a, b in zip(p2p, halo):
    x, e, inside = float(a[2]), float(a[3]), int(a[4])
    # one GPU fits alike; the halo's gathered vector is smaller: it fits where p2p does
    assert len(a) == 12 and a[10] == b[10] and b[11] >= a[11], (a, b)
    tp, th = float(a[6]), float(b[6])
    for r, t in ((a, tp), (b, th)):
        assert r[11] == "1" or math.isnan(t), r                 # masked: no time
        assert r[10] == "1" or math.isnan(float(r[5])), r
    if a[11] == "0":
        masked += inside
        continue
    if not inside or math.isnan(tp):
        continue
    assert th <= tp * 1.01, (x, e, tp, th)                      # never more than the whole vector
    less += th < tp * 0.999
    if abs(e / x - 1) < 1e-3 and th < tp * 0.999:              # nothing to exchange on the diagonal:
        diag += 1                                               # faster once p2p's vector costs time
assert masked > 0, "1 GiB masks nothing"
assert less > 100 and diag > 3, (less, diag)
EOF
); then pass; else fail "map --exchange halo against p2p ($msg)"; fi
fi
# --max needs converged maximum fits: a picture, or a clear refusal
run_cmd "$CGM" map -o "$P/mapmax.png" --max
if [ "$RC" -eq 0 ]; then png_size "$P/mapmax.png" 1200 800
elif [ "$RC" -eq 2 ] && grep -q "no converged max fits" "$ERR"; then pass
else fail "map --max: exit $RC"; show_last; fi
expect_fail 2 "--block" "$CGM" map -o "$P/x.png" --block 3
expect_fail 2 "--exchange: 'ring' is not halo, p2p, host or nccl" "$CGM" map -o "$P/x.png" --exchange ring
expect_fail 2 "nonexistent.mtx" "$CGM" map -o "$P/x.png" --mark "$TMP/nonexistent.mtx"

# ---- plot accuracy: no solve yet, then every solve with a prediction
expect_fail 2 "no solve" "$CGM" plot accuracy -o "$P/acc.png"
expect_exit 0 "$CGM" solve "$A" --backend cpu --block 1
expect_exit 0 "$CGM" solve "$A" --backend cpu --block 4
expect_exit 0 "$CGM" solve "$DATA/gr_30_30.mtx" --backend cpu --block 2
expect_exit 0 "$CGM" db solves --json
NPRED=$(python3 -c "import json; print(sum('predicted_time_per_iter_s' in s for s in json.load(open('$OUT'))['solves']))")
if [ "$NPRED" -gt 0 ]; then
  expect_exit 0 "$CGM" plot accuracy -o "$P/acc.png"
  png_size "$P/acc.png" 1200 800
  assert_eq "$(data_lines "$P/acc-solves.dat")" "$NPRED" "acc-solves.dat: one line per solve with a prediction"
  expect_exit 0 "$CGM" plot accuracy -o "$P/acc.svg" --size 640x480
  svg_size "$P/acc.svg" 640 480
  # One colour per block size, one marker per backend and precision: the key
  # has one entry of each with its count; every data line names its matrix.
  if msg=$(python3 - "$P/acc.gp" "$P/acc-solves.dat" "$NPRED" 2>&1 <<'EOF'
import re, sys
gp = open(sys.argv[1]).read(); n = int(sys.argv[3])
kt = re.findall(r'^ktitle\[\d+\] = "([^"]*)"', gp, re.M)
nb = int(re.search(r"nblockkeys = (\d+)", gp).group(1))
blocks = [t for t in kt[:nb]]; markers = kt[nb:]
assert [b.split(":")[0] for b in blocks] == sorted({b.split(":")[0] for b in blocks}, key=lambda s: int(s.split("×")[0])), blocks
rows = [l for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert {b.split(":")[0] for b in blocks} == {"%s×%s" % (l.split()[3], l.split()[3]) for l in rows}, blocks
assert markers == [m for m in markers if m.startswith("CPU, double:")], markers
count = lambda ts: sum(int(re.search(r": (\d+) solve", t).group(1)) for t in ts)
assert count(blocks) == n and count(markers) == n, (blocks, markers, n)
assert all(re.search(r'"(bcsstk16|gr_30_30)\.mtx"$', l.strip()) for l in rows), rows[:3]
EOF
  ); then pass; else fail "plot accuracy: key and matrix names ($msg)"; fi
  # --label-worst K: the K points farthest from y = x, named; --calibration ID:
  # that calibration's solves only (this one has them all; another none).
  expect_exit 0 "$CGM" plot accuracy -o "$P/worst.png" --label-worst 2 --calibration "$ID"
  png_size "$P/worst.png" 1200 800
  if msg=$(python3 - "$P/worst-worst.dat" "$P/acc-solves.dat" 2>&1 <<'EOF'
import math, sys
rows = lambda f: [l.split() for l in open(f) if l.strip() and not l.startswith("#")]
w, s = rows(sys.argv[1]), rows(sys.argv[2])
off = lambda r: abs(math.log(float(r[1]) / float(r[0])))  # from y = x, log-log
errs = sorted((off(r) for r in s), reverse=True)
want = 2 if len(s) >= 2 else len(s)
assert len(w) == want, (len(w), want)
assert all(abs(off(r) - e) <= 1e-6 * e for r, e in zip(w, errs)), ([off(r) for r in w], errs)
assert all(r[4].startswith('"') and ".mtx (" in " ".join(r[4:]) for r in w), w
EOF
  ); then pass; else fail "plot accuracy --label-worst 2 ($msg)"; fi
  expect_fail 2 "no solve in" "$CGM" plot accuracy -o "$P/x.png" --calibration 999
  last_stderr_contains "from calibration 999"
  expect_fail 2 "--label-worst is for plot accuracy" "$CGM" plot calibration -o "$P/x.png" --label-worst 2
  expect_fail 2 "plot accuracy takes only" "$CGM" plot accuracy -o "$P/x.png" --fits avg
else # a noisy calibration whose fits did not converge predicts nothing
  expect_fail 2 "no solve" "$CGM" plot accuracy -o "$P/acc.png"
fi

# ---- plot accuracy's labels and tics, on solves put in a copy of the
# database: the same matrix twice at one point (the two worst) gets two
# labels a line apart, and over 3.5 decades the axes carry the decades
# alone, never tics that run together
ACC=$TMP/labels.db
cp "$CGMODEL_DB" "$ACC"
python3 - "$ACC" "$ID" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); cal = int(sys.argv[2])
c.execute("INSERT INTO matrices (name, file_bytes, x, nnz) VALUES ('twin.mtx', 1, 10, 10)")
m = c.execute("SELECT last_insert_rowid()").fetchone()[0]
rows = [(2e-2, 2e-5), (2e-2, 2e-5), (5e-5, 6e-5), (1e-3, 1.1e-3), (1e-2, 0.9e-2), (1e-1, 1.2e-1)]
for meas, pred in rows:
    c.execute("INSERT INTO solves (matrix_id, calibration_id, created, backend, precision, block, "
              "converged, time_per_iter_s, predicted_time_per_iter_s) "
              "VALUES (?, ?, '2100-01-01', 'cpu', 'double', 1, 1, ?, ?)", (m, cal, meas, pred))
c.commit()
EOF
expect_exit 0 "$CGM" plot accuracy --db "$ACC" --calibration "$ID" --label-worst 2 -o "$P/labels.png"
png_size "$P/labels.png" 1200 800
if msg=$(python3 - "$P/labels-worst.dat" 2>&1 <<'EOF'
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
assert len(rows) == 2 and all('"twin.mtx' in " ".join(r) for r in rows), rows
(m0, p0, y0), (m1, p1, y1) = [(float(r[0]), float(r[1]), float(r[-1])) for r in rows]
assert (m0, p0) == (m1, p1), rows
assert y0 == p0, f"the first label not beside its point: {y0} vs {p0}"
assert abs(math.log10(y1 / y0)) > 0.03, f"the labels overlap: {y0} {y1}"
EOF
); then pass; else fail "plot accuracy: labels of one point apart ($msg)"; fi
run_cmd env -C "$P" gnuplot -e 'out = "/dev/null"' labels.gp -e 'show xtics'
if msg=$(python3 - "$P/labels.gp" "$ERR" 2>&1 <<'EOF'
import math, re, sys
gp = open(sys.argv[1]).read()
lo, hi = (float(v) * 1e6 for v in re.search(r"^lo = (\S+); hi = (\S+)$", gp, re.M).groups())
tics = [(t, float(v)) for t, v in re.findall(r'"([^"]*)" ([0-9.e+-]+)', open(sys.argv[2]).read())]
shown = [(t, v) for t, v in tics if lo <= v <= hi]
assert 2 <= len(shown) <= 6, shown
assert all(abs(math.log10(v) - round(math.log10(v))) < 1e-9 for t, v in shown), shown
assert all(len(t) <= 6 for t, v in shown), shown
EOF
); then pass; else fail "plot accuracy: the tics ($msg)"; fi
finish
