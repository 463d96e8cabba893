#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every command's --help lists exactly the options it accepts: the options
# its parser matches (cli/cmd_*.c, read here) are the options its help
# names, and the command accepts each one the help names (given with a value
# and followed by an unknown option, so the parse fails and nothing runs:
# the error must be about the unknown option or the value, never "unknown
# option" for the listed one). `help COMMAND` prints the same text.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

if msg=$(python3 - "$CGM" "$REPO" 2>&1 <<'PY'
import os, re, subprocess, sys
cgm, repo = sys.argv[1], sys.argv[2]
cmds = ["info", "solve", "gen", "calibrate", "predict", "validate", "map", "plot", "db", "version"]
problems = []
total = 0
for c in cmds:
    src = open(os.path.join(repo, "cli", "cmd_%s.c" % c)).read()
    parsed = set(re.findall(r'cli_(?:flag|opt|int|double|flag_or_int)\(\s*&?a,\s*"(-[-\w]+)"', src))
    if "cli_plot_size(" in src:  # the picture size map and plot share (cmd_plot.c)
        parsed.add("--size")
    total += len(parsed)
    h = subprocess.run([cgm, c, "--help"], capture_output=True, text=True)
    if h.returncode != 0 or not h.stdout.startswith("usage: cgmodel " + c):
        problems.append("%s --help: exit %d, %r" % (c, h.returncode, h.stdout[:60]))
        continue
    h2 = subprocess.run([cgm, "help", c], capture_output=True, text=True)
    if (h2.returncode, h2.stdout) != (0, h.stdout):
        problems.append("help %s differs from %s --help" % (c, c))
    listed = set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", h.stdout))
    parsed -= {"--help", "-h"}
    listed -= {"--help", "-h"}
    if parsed != listed:
        problems.append("%s: parsed, not in --help: %s; in --help, not parsed: %s"
                        % (c, sorted(parsed - listed), sorted(listed - parsed)))
    for o in sorted(listed):
        r = subprocess.run([cgm, c, o + "=1", "--zz-not-an-option"], capture_output=True, text=True,
                           timeout=30)
        if r.returncode != 2 or ("unknown option '%s" % o) in r.stderr:
            problems.append("%s %s: exit %d, %s" % (c, o, r.returncode, r.stderr.strip()[:120]))
if total < 40:
    problems.append("no option found in the sources: the pattern is stale")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
); then pass; else fail "--help and the options accepted differ:"; echo "$msg" | sed 's/^/  /' >&2; fi

# A command unknown to help, or none: usage on stderr, exit 2.
expect_fail 2 "unknown command" "$CGM" help frobnicate
expect_fail 2 "expected one command" "$CGM" help solve predict
finish
