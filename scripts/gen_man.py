#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Man pages and shell completions of the cgmodel command, from its option
tables and docs/cli.md.

    gen_man.py CGMODEL docs/cli.md OUTDIR VERSION

runs `CGMODEL __options` (every command's table as JSON: flags, request
keys, kinds, metavars, defaults, help, choices) and writes
OUTDIR/man1/cgmodel.1 (the overview: the commands, then docs/cli.md's text
before the first command), OUTDIR/man1/cgmodel-CMD.1 for every command
(NAME, SYNOPSIS and OPTIONS from the table, DESCRIPTION from the command's
`## \\`cgmodel CMD ...\\`` section of docs/cli.md, whose option tables are
left to OPTIONS), OUTDIR/completions/cgmodel (bash) and
OUTDIR/completions/_cgmodel (zsh): commands, subcommands, options, and the
values of choices and files. One source, the tables, for --help, the man
pages and the completions (tests/e2e/test_man.sh checks them).
Python's standard library only."""

import json
import os
import re
import subprocess
import sys

DATE = "2026-11-29"


def roff_text(s):
    """Markdown inline text as roff."""
    s = s.replace("\\|", "|")
    s = s.replace("\\", "\\e")
    s = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", s)  # links: their text
    s = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", s)
    s = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", s)
    s = s.replace("-", "\\-")
    return s


def roff_line(s):
    return ("\\&" + s) if s.startswith((".", "'")) else s


def cells(row):
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def to_roff(lines):
    """A section's Markdown as roff lines; its option tables are left out
    (OPTIONS comes from the command's table)."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            out.append(".PP\n.nf\n.RS 4")
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(roff_line(lines[i].replace("\\", "\\e")))
                i += 1
            out.append(".RE\n.fi")
        elif line.startswith("### "):
            out.append(".SS " + roff_text(line[4:]))
        elif line.startswith("|"):
            head = cells(line)
            i += 2  # the separator row
            while i < len(lines) and lines[i].startswith("|"):
                c = cells(lines[i])
                if head[0] != "option":
                    out.append(".TP\n" + (roff_text(c[0]) or "\\&"))
                    # the other columns, each with its header ("meaning" goes without)
                    body = [
                        roff_text(v) if h == "meaning" else f"{roff_text(h)}: {roff_text(v)}."
                        for h, v in zip(head[1:], c[1:])
                        if v
                    ]
                    out.append(" ".join(body))
                i += 1
            out.append(".PP")
            continue
        elif re.match(r"^\s*- ", line):
            out.append(".IP \\(bu 2\n" + roff_line(roff_text(re.sub(r"^\s*- ", "", line))))
        elif not line.strip():
            out.append(".PP")
        else:
            # a paragraph's lines as one (inline code may span a line break)
            para = [line.strip()]
            while i + 1 < len(lines) and lines[i + 1].strip() and not re.match(
                r"^(```|### |\||\s*- )", lines[i + 1]
            ):
                i += 1
                para.append(lines[i].strip())
            out.append(roff_line(roff_text(" ".join(para))))
        i += 1
    return out


def sections(md):
    """{command: lines} for every `## \\`cgmodel CMD ...\\`` section, and the
    text before the first one."""
    cmds, intro, cur = {}, [], None
    for line in md.splitlines():
        m = re.match(r"^## `cgmodel ([a-z]+).*`\s*$", line)
        if m:
            cur = m.group(1)
            cmds[cur] = []
        elif line.startswith("## "):
            cur = None
            intro.append(line)
        elif cur:
            cmds[cur].append(line)
        else:
            intro.append(line)
    return cmds, intro


def option_head(o):
    mv = o.get("metavar") or ("|".join(o["values"]) if o["kind"] == "choice" else "")
    return o["flag"] + (" " + mv if mv else "")


def option_roff(o):
    text = o["help"]
    if o.get("default"):
        text += f" (default: {o['default']})"
    if o["kind"] in ("choice", "list") and o.get("values"):
        text += ". Values: " + ", ".join(o["values"])
    key = f" Request key: {o['key']}." if o["request"] else ""
    return [".TP", "\\fB" + roff_text(option_head(o)) + "\\fR", roff_line(roff_text(text + "." + key))]


def page(name, version, summary, synopsis, sections_):
    text = [
        f'.TH {name.upper()} 1 "{DATE}" "cgmodel {version}" "cgmodel manual"',
        ".SH NAME",
        f"{name} \\- {roff_text(summary)}",
        ".SH SYNOPSIS",
        ".nf",
        roff_line(roff_text(synopsis)),
        ".fi",
    ]
    for title, body in sections_:
        if body:
            text += [f".SH {title}"] + body
    text = "\n".join(text) + "\n"
    return re.sub(r"(\n\.PP)+(\n\.(PP|SH|SS|TP))", r"\2", text)  # no empty paragraphs


def synopsis(c):
    return f"cgmodel {c['name']}{' ' + c['args'] if c['args'] else ''} [options]"


def bash_completion(cmds):
    names = " ".join(c["name"] for c in cmds)
    cases = []
    for c in cmds:
        words = " ".join(c["words"]) if c["name"] != "help" else names
        opts = " ".join([o["flag"] for o in c["options"]] + ["--help"])
        values = []
        for o in c["options"]:
            if o["kind"] in ("choice", "list") and o.get("values"):
                values.append(f'      {o["flag"]}) COMPREPLY=($(compgen -W "{" ".join(o["values"])}" -- "$cur")); return ;;')
            elif o["kind"] == "path":
                values.append(f'      {o["flag"]}) COMPREPLY=($(compgen -f -- "$cur")); return ;;')
            elif o["kind"] not in ("true", "false", "const", "optint"):
                values.append(f'      {o["flag"]}) return ;;')
        cases.append(
            f'    {c["name"]})\n      opts="{opts}" words="{words}"\n      case $prev in\n'
            + "\n".join(values + ["      *) ;;"])
            + "\n      esac ;;"
        )
    return f"""# bash completion of cgmodel, generated from its option tables by scripts/gen_man.py
_cgmodel() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} cmd=${{COMP_WORDS[1]:-}} opts words
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{names} --help --version" -- "$cur"))
    return
  fi
  case $cmd in
{chr(10).join(cases)}
    *) opts="" words="" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [ "$COMP_CWORD" -eq 2 ] && [ -n "$words" ]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _cgmodel cgmodel
"""


def zsh_completion(cmds):
    def zq(s):
        return s.replace("'", "'\\''").replace(":", "\\:").replace("[", "\\[").replace("]", "\\]")

    zcmds = " ".join(f"'{c['name']}:{zq(c['summary'])}'" for c in cmds)
    cases = []
    for c in cmds:
        specs = []
        for o in c["options"]:
            spec = f"{o['flag']}[{zq(o['help'])}]"
            if o["kind"] in ("choice", "list") and o.get("values"):
                spec += f":{zq(o.get('metavar') or o['key'])}:({' '.join(o['values'])})"
            elif o["kind"] == "path":
                spec += f":{zq(o.get('metavar') or o['key'])}:_files"
            elif o["kind"] not in ("true", "false", "const", "optint"):
                spec += f":{zq(o.get('metavar') or o['key'])}: "
            specs.append("'" + spec + "'")
        words = " ".join(c["words"]) if c["name"] != "help" else " ".join(x["name"] for x in cmds)
        first = f"'1:{c['name']}:({words})'" if words else "'*:file:_files'"
        cases.append(f"    {c['name']}) _arguments {first} {' '.join(specs)} '*:file:_files' ;;")
    return f"""#compdef cgmodel
# zsh completion of cgmodel, generated from its option tables by scripts/gen_man.py
_cgmodel() {{
  if (( CURRENT == 2 )); then
    local -a cmds=({zcmds})
    _describe command cmds
    return
  fi
  shift words
  (( CURRENT-- ))
  case $words[1] in
{chr(10).join(cases)}
    *) _files ;;
  esac
}}
_cgmodel "$@"
"""


def main():
    cgmodel, src, outdir, version = sys.argv[1:5]
    cmds = json.loads(subprocess.run([cgmodel, "__options"], check=True, capture_output=True,
                                      text=True).stdout)["commands"]
    prose, intro = sections(open(src, encoding="utf-8").read())
    os.makedirs(os.path.join(outdir, "man1"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "completions"), exist_ok=True)
    names = [c["name"] for c in cmds]
    for c in cmds:
        opts = sum((option_roff(o) for o in c["options"]), [])
        opts += [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "the options of the command."]
        body = to_roff(prose.get(c["name"], []))
        others = ["cgmodel"] + [f"cgmodel-{n}" for n in names if n != c["name"]]
        see = [", ".join(f"\\fB{s}\\fR(1)" for s in others)]
        text = page(f"cgmodel-{c['name']}", version, c["summary"], synopsis(c),
                    [("DESCRIPTION", body), ("OPTIONS", opts), ("SEE ALSO", see)])
        with open(os.path.join(outdir, "man1", f"cgmodel-{c['name']}.1"), "w") as f:
            f.write(text)
    # the overview: the commands from the tables, then the text before the first command
    listing = sum(([".TP", "\\fB" + roff_text(synopsis(c)) + "\\fR", roff_text(c["summary"])]
                   for c in cmds), [])
    first = [ln for ln in intro if not ln.startswith("# ")]
    body = to_roff([("### " + ln[3:]) if ln.startswith("## ") else ln for ln in first])
    see = [", ".join(f"\\fBcgmodel-{n}\\fR(1)" for n in names)]
    text = page("cgmodel", version,
                "predict, tune and run Conjugate Gradient on sparse SPD matrices",
                "cgmodel <command> [options]",
                [("COMMANDS", listing), ("DESCRIPTION", body), ("SEE ALSO", see)])
    with open(os.path.join(outdir, "man1", "cgmodel.1"), "w") as f:
        f.write(text)
    with open(os.path.join(outdir, "completions", "cgmodel"), "w") as f:
        f.write(bash_completion(cmds))
    with open(os.path.join(outdir, "completions", "_cgmodel"), "w") as f:
        f.write(zsh_completion(cmds))


if __name__ == "__main__":
    main()
