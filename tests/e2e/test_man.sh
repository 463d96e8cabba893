#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages and completions (generated from the option tables and
# docs/cli.md) against the tables (`cgmodel __options`): every command has a
# page and a bash and zsh completion, every flag of its table is in its page
# and in both completions, and every flag docs/cli.md names is a flag of
# some table (no drift between the reference and the command line).
source "$(dirname "$0")/lib.sh" "$@"

MAN=${CGM_MAN_DIR:-$(dirname "$CGM")/../man}
if [ ! -d "$MAN/man1" ]; then
  echo "no man pages in $MAN (built without python3?): skipped" >&2
  exit 77
fi
if msg=$(python3 - "$CGM" "$MAN" "$REPO/docs/cli.md" 2>&1 <<'PY'
import json, re, subprocess, sys
cgm, man, doc = sys.argv[1:4]
cmds = json.loads(subprocess.run([cgm, "__options"], capture_output=True, text=True).stdout)["commands"]
bash = open(man + "/completions/cgmodel").read()
zsh = open(man + "/completions/_cgmodel").read()
problems, flags = [], set()
def case(text, name):  # the completion's case of one command
    m = re.search(r"^ +%s\)(.*?)(?=^ +[a-z*]+\))" % name, text, re.S | re.M)
    return m.group(1) if m else None
for c in cmds:
    try:
        page = open("%s/man1/cgmodel-%s.1" % (man, c["name"])).read()
    except OSError:
        problems.append("no man page for " + c["name"])
        continue
    page = re.sub(r"\\f[BRI]", "", page).replace("\\-", "-")
    b, z = case(bash, c["name"]), case(zsh, c["name"])
    if b is None or z is None:
        problems.append("no bash or zsh completion for " + c["name"])
        continue
    for w in c["words"]:
        if w not in b or w not in z:
            problems.append("%s: its word %s is not completed" % (c["name"], w))
    for o in c["options"]:
        flags.add(o["flag"])
        if not re.search(r"(^|\n)%s( |\n)" % re.escape(o["flag"]), page):
            problems.append("cgmodel-%s.1 does not list %s" % (c["name"], o["flag"]))
        if not re.search(r"[\s\"]%s[\s\")]" % re.escape(o["flag"]), b):
            problems.append("the bash completion of %s lacks %s" % (c["name"], o["flag"]))
        if "'%s[" % o["flag"] not in z:
            problems.append("the zsh completion of %s lacks %s" % (c["name"], o["flag"]))
        for v in o.get("values", []) if o["kind"] in ("choice", "list") else []:
            if v not in b:
                problems.append("the bash completion of %s %s lacks %s" % (c["name"], o["flag"], v))
# docs/cli.md names no flag that no table has (beyond the conventions' examples
# and other programs' flags)
outside = {"--help", "--version", "--bogus", "--frobnicate", "--install", "--name", "--short"}
for f in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", open(doc).read()))):
    if f not in flags | outside:
        problems.append("docs/cli.md names %s, which no command has" % f)
if len(flags) < 50:
    problems.append("only %d flags in the tables" % len(flags))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
); then pass; else fail "the man pages, completions, docs and tables differ:"; echo "$msg" | sed 's/^/  /' >&2; fi
page=$(sed -e 's/\\f[BRI]//g' -e 's/\\-/-/g' "$MAN/man1/cgmodel-gen.1")
grep -q "cgmodel gen poisson2d|poisson3d|elasticity3d|random|mesh3d|kron \[options\]" <<<"$page" &&
  pass || fail "cgmodel-gen.1: the synopsis of the table"
finish
