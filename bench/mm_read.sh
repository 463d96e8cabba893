#!/usr/bin/env bash
# Matrix Market reader throughput: cgmodel's reader against scipy.io.mmread.
#
#   bench/mm_read.sh [BUILD_DIR] [GRID] [REPS]
#
# BUILD_DIR (default build) holds bench/mm_read_bench. The script writes a
# 3D Poisson matrix on a GRID^3 grid (default 120: 1.73M rows, 12.0M entries,
# about 430 MB as `coordinate real general`, about 245 MB as `symmetric`)
# with values perturbed to 16-17 significant digits, reads each file REPS
# times (default 5; MB/s = file bytes / median seconds, MB = 1e6 bytes), and,
# when /usr/bin/python3 has scipy (Debian: apt-get install python3-scipy),
# times scipy.io.mmread(...).tocsr() on the same files (SCIPY_REPS, default
# 1). The files go to $MM_BENCH_DIR (default: a temporary directory, removed
# at the end unless KEEP=1).
set -euo pipefail

BUILD=${1:-build}
GRID=${2:-120}
REPS=${3:-5}
SCIPY_REPS=${SCIPY_REPS:-1}
PY=${PYTHON:-/usr/bin/python3}
BIN="$BUILD/bench/mm_read_bench"
[[ -x "$BIN" ]] || { echo "mm_read.sh: $BIN not found: build the mm_read_bench target first" >&2; exit 2; }

if [[ -n "${MM_BENCH_DIR:-}" ]]; then
  WORK=$MM_BENCH_DIR
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/mm_bench.XXXXXX")
fi
cleanup() { [[ "${KEEP:-0}" == 1 ]] || rm -f "$WORK"/poisson3d_*.mtx "$WORK"/write_out.mtx; [[ -n "${MM_BENCH_DIR:-}" || "${KEEP:-0}" == 1 ]] || rmdir "$WORK" 2>/dev/null || true; }
trap cleanup EXIT

# key=value lines -> value of key
val() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<<"$1"; }

have_scipy=0
if [[ -x "$PY" ]] && "$PY" -c 'import scipy' 2>/dev/null; then
  have_scipy=1
  scipy_version=$("$PY" -c 'import scipy; print(scipy.__version__)')
fi

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(uname -m), $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
echo "# grid $GRID^3, reads: cgmodel $REPS (median), scipy $SCIPY_REPS"
rows=()
for kind in general symmetric; do
  f="$WORK/poisson3d_${GRID}_$kind.mtx"
  flag=""
  [[ $kind == symmetric ]] && flag="--symmetric"
  made=$("$BIN" --make-poisson3d "$GRID" "$f" $flag)
  bytes=$(val "$made" bytes)
  echo "# wrote $f: $bytes bytes in $(val "$made" write_s) s ($(val "$made" write_mb_s) MB/s, cgm_mm_write_csr)"
  out=$("$BIN" "$f" "$REPS")
  ours_s=$(val "$out" median_s)
  ours_mb=$(val "$out" mb_s)
  echo "# $out"
  rows+=("cgm_mm_read_csr|$kind|$bytes|$ours_s|$ours_mb|1.00")
  if [[ $have_scipy == 1 ]]; then
    sc_s=$("$PY" - "$f" "$SCIPY_REPS" <<'EOF'
import sys, time, statistics
import scipy.io
path, reps = sys.argv[1], int(sys.argv[2])
ts = []
for _ in range(reps):
    t0 = time.perf_counter()
    A = scipy.io.mmread(path).tocsr()
    ts.append(time.perf_counter() - t0)
    del A
print("%.4f" % statistics.median(ts))
EOF
)
    sc_mb=$(awk -v b="$bytes" -v s="$sc_s" 'BEGIN { printf "%.1f", b / s / 1e6 }')
    ratio=$(awk -v a="$sc_s" -v b="$ours_s" 'BEGIN { printf "%.2f", a / b }')
    rows+=("scipy $scipy_version mmread().tocsr()|$kind|$bytes|$sc_s|$sc_mb|$ratio")
  fi
done
w=$("$BIN" --write "$WORK/poisson3d_${GRID}_general.mtx" "$WORK/write_out.mtx" 3)
echo "# writer: $w"
[[ $have_scipy == 1 ]] || echo "# scipy not available for $PY: only cgmodel's reader measured"

echo
printf '| %-34s | %-9s | %11s | %8s | %7s | %-21s |\n' reader file bytes seconds "MB/s" "slower than cgmodel"
printf '|%s|%s|%s|%s|%s|%s|\n' "------------------------------------" "-----------" "-------------" "----------" "---------" "-----------------------"
for r in "${rows[@]}"; do
  IFS='|' read -r name kind bytes s mb ratio <<<"$r"
  printf '| %-34s | %-9s | %11s | %8s | %7s | %-21s |\n' "$name" "$kind" "$bytes" "$s" "$mb" "${ratio}x"
done
