# SPDX-License-Identifier: GPL-3.0-or-later
# Shared helpers of the e2e tests. Every tests/e2e/test_*.sh starts with
#
#   source "$(dirname "$0")/lib.sh" "$@"     # $1 = cgmodel binary, $2 = repository
#   ...checks...
#   finish
#
# and CTest runs it as `bash test_X.sh /path/to/cgmodel /path/to/repo`. A check
# that fails prints FAIL with what it ran and what came back and the script
# goes on; `finish` prints the tally and exits 1 if anything failed.
# No jq: JSON is read with python3 (present wherever the tests run, CI too).
# shellcheck shell=bash disable=SC2034 # variables here are used by the scripts that source it

set -u

if [ $# -lt 2 ]; then
  echo "usage: bash $0 /path/to/cgmodel /path/to/repo" >&2
  exit 2
fi
CGM=$1
REPO=$2
DATA=$REPO/data/matrices
MMFIX=$REPO/tests/data/mm
E2E=$REPO/tests/e2e
MMTOOL="python3 $E2E/mmtool.py"
[ -x "$CGM" ] || { echo "not executable: $CGM" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed by the e2e tests" >&2; exit 2; }

# CTest runs several scripts at once on few cores: OpenMP threads that spin
# while they wait then fight over the cores (measured: the e2e suite takes
# 34 s instead of 12 s with ctest -j2 on 2 cores). Sleeping waits instead.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgm-e2e.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Every solve records itself in the database: keep the tests' records (and
# calibrations) out of the user's default database.
export CGMODEL_DB=$TMP/cgmodel.db
# ...and the matrix cache out of the user's (~/.cache/cgmodel).
export XDG_CACHE_HOME=$TMP/xdg-cache
OUT=$TMP/last.out # stdout of the last run_cmd
ERR=$TMP/last.err # stderr of the last run_cmd
RC=0              # exit status of the last run_cmd
FAILS=0
CHECKS=0

# The matrices of data/matrices marked SPD in MANIFEST.tsv (one name a line).
spd_matrices() { awk -F'\t' 'NR > 1 && $7 == "yes" { print $1 }' "$DATA/MANIFEST.tsv"; }
# A column of MANIFEST.tsv for one matrix: manifest NAME COLUMN_NAME
manifest() {
  awk -F'\t' -v n="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                                   $1 == n { print $col[c] }' "$DATA/MANIFEST.tsv"
}

pass() { CHECKS=$((CHECKS + 1)); }
fail() {
  CHECKS=$((CHECKS + 1))
  FAILS=$((FAILS + 1))
  echo "FAIL: $*" >&2
}
# Shows what the last command printed (after a failed check on it).
show_last() {
  echo "  command: $LAST_CMD (exit $RC)" >&2
  [ -s "$OUT" ] && sed -n '1,15s/^/  stdout| /p' "$OUT" >&2
  [ -s "$ERR" ] && sed -n '1,15s/^/  stderr| /p' "$ERR" >&2
  return 0
}

# run_cmd CMD...: runs it, keeping stdout in $OUT, stderr in $ERR, status in $RC.
run_cmd() {
  LAST_CMD="$*"
  "$@" >"$OUT" 2>"$ERR"
  RC=$?
  return 0
}

# expect_exit CODE CMD...
expect_exit() {
  local code=$1
  shift
  run_cmd "$@"
  if [ "$RC" -eq "$code" ]; then pass; else
    fail "expected exit $code, got $RC"
    show_last
  fi
}

# expect_stderr_contains TEXT CMD...: runs CMD; its stderr must hold TEXT (fixed string).
expect_stderr_contains() {
  local text=$1
  shift
  run_cmd "$@"
  last_stderr_contains "$text"
}

# expect_fail CODE TEXT CMD...: exit status CODE and TEXT on stderr, nothing
# that looks like a result on stdout when CODE is 2 or 3.
expect_fail() {
  local code=$1 text=$2
  shift 2
  expect_exit "$code" "$@"
  last_stderr_contains "$text"
  if [ "$code" -ge 2 ] && [ -s "$OUT" ]; then
    fail "exit $code but something was printed on stdout"
    show_last
  else pass; fi
}

# last_stderr_contains TEXT / last_stdout_contains TEXT: about the last run_cmd.
last_stderr_contains() {
  if grep -qF -- "$1" "$ERR"; then pass; else
    fail "stderr does not contain '$1'"
    show_last
  fi
}
last_stdout_contains() {
  if grep -qF -- "$1" "$OUT"; then pass; else
    fail "stdout does not contain '$1'"
    show_last
  fi
}
# last_stderr_matches REGEX (extended regular expression).
last_stderr_matches() {
  if grep -qE -- "$1" "$ERR"; then pass; else
    fail "stderr does not match /$1/"
    show_last
  fi
}

# json_get FILE KEY: prints the value at KEY, a dotted path ("blocks.2.d_N");
# booleans print as true/false, strings bare, objects as JSON. Status 1 when
# the file is not JSON or the key is absent.
json_get() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    for k in sys.argv[2].split("."):
        v = v[int(k)] if isinstance(v, list) else v[k]
except (ValueError, KeyError, IndexError, TypeError) as e:
    sys.exit(1)
if isinstance(v, bool):
    print("true" if v else "false")
elif isinstance(v, (dict, list)):
    print(json.dumps(v))
else:
    print(v)
EOF
}

# json_check FILE PYEXPR [WHAT]: PYEXPR (Python, with the parsed object as j
# and math imported) must be true. Counts one check.
json_check() {
  local file=$1 expr=$2 what=${3:-$2}
  local msg
  if msg=$(python3 - "$file" "$expr" 2>&1 <<'EOF'
import json, math, sys
try:
    j = json.load(open(sys.argv[1]))
except ValueError as e:
    print(f"not JSON: {e}")
    sys.exit(1)
try:
    ok = eval(sys.argv[2], {"j": j, "math": math})
except Exception as e:
    print(f"{type(e).__name__}: {e}")
    sys.exit(1)
sys.exit(0 if ok else 1)
EOF
  ); then pass; else
    fail "$what${msg:+ ($msg)}"
    sed -n '1,12s/^/  json| /p' "$file" >&2
  fi
}

# assert_eq GOT WANT WHAT
assert_eq() {
  if [ "$1" = "$2" ]; then pass; else fail "$3: got '$1', want '$2'"; fi
}
# assert_py PYEXPR WHAT: a Python expression over literals must be true
# (numbers compared as Python floats).
assert_py() {
  if python3 -c "import math, sys; sys.exit(0 if ($1) else 1)" 2>/dev/null; then pass; else
    fail "$2: ($1) is false"
  fi
}
# assert_file_exists FILE WHAT / assert_no_file FILE WHAT
assert_file_exists() { if [ -s "$1" ]; then pass; else fail "$2: $1 missing or empty"; fi; }
assert_no_file() { if [ -e "$1" ]; then fail "$2: $1 exists"; else pass; fi; }

# finish: the tally; the script's exit status.
# same_x X1 X2 WHAT: two solution files agree to 1e-6 relative.
same_x() {
  if python3 - "$1" "$2" <<'PY'; then pass; else fail "$3: the solutions differ"; fi
import sys
def read(p):
    v = [l.split() for l in open(p) if not l.startswith('%')]
    return [float(t[0]) for t in v[1:]]
a, b = read(sys.argv[1]), read(sys.argv[2])
n = max(abs(x) for x in a) or 1.0
sys.exit(0 if len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b)) <= 1e-6 * n else 1)
PY
}

finish() {
  local name
  name=$(basename "$0" .sh)
  if [ "$FAILS" -eq 0 ]; then
    echo "$name: all $CHECKS checks passed"
    exit 0
  fi
  echo "$name: $FAILS of $CHECKS checks FAILED" >&2
  exit 1
}
