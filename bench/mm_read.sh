#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Matrix Market reader throughput: cgmodel's reader against scipy.io.mmread
# and fast_matrix_market, on the same files in the same run.
#
#   bench/mm_read.sh BUILD_DIR FILE.mtx [FILE.mtx ...]
#
# BUILD_DIR holds bench/mm_read_bench. Make the files with the project's
# generator, e.g. `cgmodel gen poisson3d --n 96 -o p96.mtx`. Each reader
# reads each file REPS times (default 3) and the median counts; MB/s = bytes
# of text / median seconds (MB = 1e6 bytes; the files are in the page cache).
#
#   - cgmodel, 1 thread and THREADS threads (default: nproc): the time of
#     cgm_mm_read_csr_opts, which gives a CSR (rows sorted, duplicates summed),
#     and the path it took (sorted: a general file row by row, parsed straight
#     into the CSR; general: parsed into buckets, then sorted); on a sorted
#     file also the general path on THREADS threads (--general);
#   - scipy.io.mmread(FILE) (COO; scipy >= 1.12 reads with fast_matrix_market
#     on all cores) and scipy.io.mmread(FILE).tocsr(), the same result as ours;
#   - fast_matrix_market.read_coo(FILE) (the COO arrays, on all cores), when
#     python has it (pip install fast_matrix_market);
#   - with GZ=1 (default), the file compressed by `gzip -6` into a temporary
#     directory: `gzip -dc FILE.gz > /dev/null` alone, cgmodel reading the .gz
#     on THREADS threads, and scipy.io.mmread of the .gz. MB/s counts the
#     bytes of the text, not of the .gz.
#
# The ratio column is the median time of that reader over cgmodel's on
# THREADS threads: above 1, cgmodel is faster.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: bench/mm_read.sh BUILD_DIR FILE.mtx [FILE.mtx ...]" >&2
  exit 2
fi
BUILD=$1
shift
REPS=${REPS:-3}
THREADS=${THREADS:-$(nproc)}
GZ=${GZ:-1}
PY=${PYTHON:-python3}
BIN="$BUILD/bench/mm_read_bench"
[[ -x "$BIN" ]] || { echo "mm_read.sh: $BIN not found: build the mm_read_bench target first" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mm_bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# key=value lines -> value of key
val() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<<"$1"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / s / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# The Python readers: "NAME SECONDS" lines, the median of REPS reads each.
py_readers() {
  "$PY" - "$1" "$REPS" "$2" <<'EOF'
import statistics, sys, time
path, reps, which = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
readers = []
try:
    import scipy, scipy.io
    if "coo" in which:
        readers.append(("scipy %s mmread (COO)" % scipy.__version__, lambda: scipy.io.mmread(path)))
    if "csr" in which:
        readers.append(("scipy %s mmread().tocsr()" % scipy.__version__,
                        lambda: scipy.io.mmread(path).tocsr()))
except ImportError:
    pass
try:
    import fast_matrix_market as fmm
    if "fmm" in which:
        readers.append(("fast_matrix_market %s read_coo" % fmm.__version__,
                        lambda: fmm.read_coo(path)))
except ImportError:
    pass
for name, read in readers:
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        m = read()
        ts.append(time.perf_counter() - t0)
        del m
    print("%s\t%.4f" % (name, statistics.median(ts)))
EOF
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(uname -m), $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
echo "# $REPS reads each (median); cgmodel on 1 and $THREADS threads; python: $("$PY" --version 2>&1)"
echo "# load average at the start (other work on the machine slows every reader): $(cut -d' ' -f1-3 /proc/loadavg)"
"$PY" -c 'import scipy; print("# scipy", scipy.__version__)' 2>/dev/null || echo "# scipy not importable by $PY: not measured"
"$PY" -c 'import fast_matrix_market as f; print("# fast_matrix_market", f.__version__)' 2>/dev/null ||
  echo "# fast_matrix_market not importable by $PY: not measured"

rows=()
row() { rows+=("$1|$2|$3|$4|$5|$6"); }
for f in "$@"; do
  name=$(basename "$f")
  bytes=$(stat -c %s "$f")
  cat "$f" >/dev/null # into the page cache
  out1=$("$BIN" --threads 1 "$f" "$REPS")
  outn=$("$BIN" --threads "$THREADS" "$f" "$REPS")
  echo "# $out1"
  echo "# $outn"
  s1=$(val "$out1" median_s)
  sn=$(val "$outn" median_s)
  row "cgmodel, 1 thread ($(val "$out1" path))" "$name" "$bytes" "$s1" "$(mbs "$bytes" "$s1")" "$(ratio "$s1" "$sn")"
  row "cgmodel, $THREADS threads ($(val "$outn" path))" "$name" "$bytes" "$sn" "$(mbs "$bytes" "$sn")" "1.00"
  if [[ $(val "$outn" path) == sorted ]]; then # the general path beside it
    outgp=$("$BIN" --general --threads "$THREADS" "$f" "$REPS")
    echo "# $outgp"
    sgp=$(val "$outgp" median_s)
    row "cgmodel, $THREADS threads (general)" "$name" "$bytes" "$sgp" "$(mbs "$bytes" "$sgp")" "$(ratio "$sgp" "$sn")"
  fi
  while IFS=$'\t' read -r who s; do
    row "$who" "$name" "$bytes" "$s" "$(mbs "$bytes" "$s")" "$(ratio "$s" "$sn")"
  done < <(py_readers "$f" coo,csr,fmm)

  if [[ $GZ == 1 ]] && command -v gzip >/dev/null; then
    g="$WORK/$name.gz"
    gzip -c -6 "$f" >"$g"
    gbytes=$(stat -c %s "$g")
    echo "# gzip -6 $name: $gbytes bytes"
    ts=()
    for ((r = 0; r < REPS; r++)); do
      t0=$EPOCHREALTIME
      gzip -dc "$g" >/dev/null
      ts+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }')")
    done
    sg=$(printf '%s\n' "${ts[@]}" | median)
    outg=$("$BIN" --threads "$THREADS" "$g" "$REPS")
    echo "# $outg"
    sz=$(val "$outg" median_s)
    row "gzip -dc > /dev/null" "$name.gz" "$bytes" "$sg" "$(mbs "$bytes" "$sg")" "$(ratio "$sg" "$sz")"
    row "cgmodel .gz, $THREADS threads" "$name.gz" "$bytes" "$sz" "$(mbs "$bytes" "$sz")" "1.00"
    while IFS=$'\t' read -r who s; do
      row "$who" "$name.gz" "$bytes" "$s" "$(mbs "$bytes" "$s")" "$(ratio "$s" "$sz")"
    done < <(py_readers "$g" coo)
    rm -f "$g"
  fi
done

echo
echo "ratio: the reader's median time over cgmodel's on $THREADS threads on the same file (for a .gz, cgmodel's on the .gz)"
echo
printf '| %-40s | %-16s | %11s | %8s | %7s | %6s |\n' reader file "text bytes" seconds "MB/s" ratio
printf '|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------" "------------------" "------------:" "---------:" "--------:" "-------:"
for r in "${rows[@]}"; do
  IFS='|' read -r who name bytes s mb rt <<<"$r"
  printf '| %-40s | %-16s | %11s | %8s | %7s | %6s |\n' "$who" "$name" "$bytes" "$s" "$mb" "$rt"
done
