#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The option tables (`cgmodel __options`) against the commands: every
# command's --help (and `help COMMAND`, the same text) lists each option of
# its table, and the command accepts each one (given with a value and
# followed by an unknown option, so the parse fails and nothing runs: the
# error must be about the value or the unknown option, never "unknown
# option" for the listed one). The request keys of solve, predict and
# calibrate are the library's: an --options file with every key of the
# table, each with a value of its kind, is accepted by the library's parser
# (pipeline/request.c), so the table and the parser cannot drift apart.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

if msg=$(python3 - "$CGM" "$TMP" 2>&1 <<'PY'
import json, os, subprocess, sys
cgm, tmp = sys.argv[1], sys.argv[2]
run = lambda *a: subprocess.run([cgm, *a], capture_output=True, text=True, timeout=60)
tables = json.loads(run("__options").stdout)["commands"]
problems, total = [], 0
for c in tables:
    name, opts = c["name"], c["options"]
    total += len(opts)
    h = run(name, "--help")
    if h.returncode != 0 or not h.stdout.startswith("usage: cgmodel " + name):
        problems.append("%s --help: exit %d, %r" % (name, h.returncode, h.stdout[:60]))
        continue
    h2 = run("help", name)
    if (h2.returncode, h2.stdout) != (0, h.stdout):
        problems.append("help %s differs from %s --help" % (name, name))
    for o in opts:
        if "\n  " + o["flag"] + " " not in h.stdout and "\n  " + o["flag"] + "\n" not in h.stdout:
            problems.append("%s --help does not list %s" % (name, o["flag"]))
        r = run(name, o["flag"] + "=1", "--zz-not-an-option")
        if r.returncode != 2 or ("unknown option '%s" % o["flag"]) in r.stderr:
            problems.append("%s %s: exit %d, %s" % (name, o["flag"], r.returncode, r.stderr[:120]))
    # every request key, with a value of its kind, in an --options file
    if not any(o["key"] == "options" for o in opts):
        continue
    sample = {"true": False, "false": True, "int": 1, "optint": 1, "real": 0.5, "path": "x"}
    req = {}
    for o in opts:
        if o["request"]:
            v = o.get("values", ["x"])[0]
            req[o["key"]] = sample.get(o["kind"], int(v) if v.isdigit() else v)
    path = os.path.join(tmp, name + ".json")
    json.dump(req, open(path, "w"))
    # no matrix (calibrate: an argument too many): refused after the request is read
    r = run(name, "--options", path, *(["extra"] if name == "calibrate" else []))
    if r.returncode != 2 or not ("expected one matrix file" in r.stderr or "unexpected argument" in r.stderr):
        problems.append("%s --options %s: %s" % (name, json.dumps(req), r.stderr.strip()[:200]))
if total < 80:
    problems.append("only %d options in the tables" % total)
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
); then pass; else fail "the tables, --help and the options accepted differ:"; echo "$msg" | sed 's/^/  /' >&2; fi

# A command unknown to help, or none: usage on stderr, exit 2.
expect_fail 2 "unknown command" "$CGM" help frobnicate
expect_fail 2 "expected one command" "$CGM" help solve predict
# A library error names the flag: the key it begins with and key=value advice.
expect_fail 2 "--precision mixed runs on one GPU (--gpus 1) or the CPU; on 2 GPUs use --precision double" \
  "$CGM" solve "$DATA/bcsstk01.mtx" --backend cuda --gpus 2 --precision mixed
# An --options file: its keys, overridden by the command line's flags; its
# errors name the file and line.
printf '{"backend": "cpu",\n "tol": 1e-3, "block": 2}\n' >"$TMP/o.json"
expect_exit 0 "$CGM" solve "$DATA/bcsstk01.mtx" --options "$TMP/o.json" --block 4 --json --no-record
json_check "$OUT" 'j["backend"] == "cpu" and j["tol"] == 1e-3 and j["block"] == 4' "--options, --block over it"
printf '{"backend": "cpu",\n "tol": }\n' >"$TMP/bad.json"
expect_fail 2 "--options $TMP/bad.json:2: not JSON" "$CGM" solve "$DATA/bcsstk01.mtx" --options "$TMP/bad.json"
printf '{"backend": "cpu", "tols": 1}\n' >"$TMP/bad.json"
expect_fail 2 "--options: unknown key 'tols'" "$CGM" solve "$DATA/bcsstk01.mtx" --options "$TMP/bad.json"
printf '{"gpus": "two"}\n' >"$TMP/bad.json"
expect_fail 2 "--options: 'gpus' is not an integer" "$CGM" solve "$DATA/bcsstk01.mtx" --options "$TMP/bad.json"
# The request of a solve's --json replays it: the same configuration, the
# same request.
A=$DATA/bcsstk16.mtx
expect_exit 0 "$CGM" solve "$A" --json --no-record --backend cpu --block 2 --precision mixed \
  --tol 1e-9 --precond block --reorder rcm --maxiter 5000 --atol 1e-12
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["request"], open(sys.argv[2], "w"))' \
  "$OUT" "$TMP/request.json"
cp "$OUT" "$TMP/first.json"
expect_exit 0 "$CGM" solve "$A" --json --options "$TMP/request.json"
json_check "$OUT" "(lambda f: all(j[k] == f[k] for k in ('request', 'backend', 'block', 'bx', \
  'precision', 'tol', 'maxiter', 'precond', 'precond_block', 'reorder', 'gpus')))(__import__('json').load(open('$TMP/first.json')))" \
  "the request replayed: the same configuration"
json_check "$OUT" "j['request']['reorder'] == 'rcm' and j['request']['precond'] == 'block' and j['request']['atol'] == 1e-12" \
  "the request: what ran"
expect_fail 2 "--options $TMP/none.json: No such file" "$CGM" predict "$DATA/bcsstk01.mtx" --options "$TMP/none.json"
finish
