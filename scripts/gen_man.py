#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Man pages and shell completions of the cgmodel command, from docs/cli.md.

    gen_man.py docs/cli.md OUTDIR VERSION

writes OUTDIR/man1/cgmodel.1 (the overview: commands, conventions, exit
codes), OUTDIR/man1/cgmodel-CMD.1 for every `## \\`cgmodel CMD ...\\`` section,
OUTDIR/completions/cgmodel (bash) and OUTDIR/completions/_cgmodel (zsh).
The options the completions offer are those of the sections' option tables,
the text the man pages print: one source, so neither drifts from the other
(tests/e2e/test_man.sh checks them against every command's --help).
Python's standard library only."""

import os
import re
import sys

DATE = "2026-11-25"


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


def options_of(cell):
    """The options a table's first cell names: `--tol T`, `--avg`, `-o FILE`."""
    return re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-z])\b", cell)


def to_roff(lines):
    """A section's Markdown as roff; returns (roff lines, options of its
    option tables)."""
    out, opts, i = [], [], 0
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
            option_table = head[0] == "option"
            while i < len(lines) and lines[i].startswith("|"):
                c = cells(lines[i])
                if option_table:
                    opts += options_of(c[0])
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
    return out, opts


def sections(md):
    """{command: (heading, lines)} for every `## \\`cgmodel CMD ...\\`` section,
    and the text before the first one."""
    cmds, intro, cur = {}, [], None
    for line in md.splitlines():
        m = re.match(r"^## `cgmodel ([a-z]+)(.*)`\s*$", line)
        if m:
            cur = m.group(1)
            cmds[cur] = ("cgmodel " + m.group(1) + m.group(2), [])
        elif line.startswith("## "):
            cur = None
            intro.append(line)
        elif cur:
            cmds[cur][1].append(line)
        else:
            intro.append(line)
    return cmds, intro


def page(name, section_title, version, summary, synopsis, body, see_also):
    head = [
        f'.TH {name.upper()} 1 "{DATE}" "cgmodel {version}" "cgmodel manual"',
        ".SH NAME",
        f"{name} \\- {roff_text(summary)}",
        ".SH SYNOPSIS",
        ".nf",
        roff_line(roff_text(synopsis)),
        ".fi",
        f".SH {section_title}",
    ]
    tail = [".SH SEE ALSO", ", ".join(f"\\fB{s}\\fR(1)" for s in see_also)]
    text = "\n".join(head + body + tail) + "\n"
    return re.sub(r"(\n\.PP)+(\n\.(PP|SH|SS|TP))", r"\2", text)  # no empty paragraphs


def main():
    src, outdir, version = sys.argv[1:4]
    md = open(src, encoding="utf-8").read()
    cmds, intro = sections(md)
    # the command table of the overview: command -> what it does
    summary = {}
    for line in intro:
        c = cells(line) if line.startswith("| `") else []
        if len(c) >= 2:
            summary[c[0].strip("`")] = c[1]
    os.makedirs(os.path.join(outdir, "man1"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "completions"), exist_ok=True)
    names = sorted(cmds)
    options = {}
    for cmd, (heading, lines) in cmds.items():
        body, opts = to_roff(lines)
        # the options of the usage lines in the section (db's subcommands) count too
        for line in lines:
            if line.lstrip().startswith(f"cgmodel {cmd}"):
                opts += options_of(line)
        options[cmd] = sorted(set(opts) | {"--help"})
        others = ["cgmodel"] + [f"cgmodel-{c}" for c in names if c != cmd]
        text = page(
            f"cgmodel-{cmd}",
            "DESCRIPTION",
            version,
            summary.get(cmd, cmd),
            heading,
            body,
            others,
        )
        with open(os.path.join(outdir, "man1", f"cgmodel-{cmd}.1"), "w") as f:
            f.write(text)
    # the overview: the text before the first command's section
    first = [ln for ln in intro if not ln.startswith("# ")]
    body, _ = to_roff([("### " + ln[3:]) if ln.startswith("## ") else ln for ln in first])
    text = page(
        "cgmodel",
        "DESCRIPTION",
        version,
        "predict, tune and run Conjugate Gradient on sparse SPD matrices",
        "cgmodel <command> [options]",
        body,
        [f"cgmodel-{c}" for c in names],
    )
    with open(os.path.join(outdir, "man1", "cgmodel.1"), "w") as f:
        f.write(text)

    # bash: the commands, then the options of the command typed
    cases = "\n".join(f'    {c}) opts="{" ".join(options[c])}" ;;' for c in names)
    bash = f"""# bash completion of cgmodel, generated from docs/cli.md by scripts/gen_man.py
_cgmodel() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} cmd=${{COMP_WORDS[1]:-}} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{' '.join(names)} help --help --version" -- "$cur"))
    return
  fi
  case $cmd in
{cases}
    *) opts="" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _cgmodel cgmodel
"""
    with open(os.path.join(outdir, "completions", "cgmodel"), "w") as f:
        f.write(bash)

    def zq(s):
        return s.replace("'", "'\\''").replace(":", "\\:")

    zcmds = " ".join(f"'{c}:{zq(re.sub(r'[`*]', '', summary.get(c, c)))}'" for c in names)
    zcases = "\n".join(
        f"    {c}) _arguments '*:file:_files' {' '.join(repr(o) for o in options[c])} ;;"
        for c in names
    )
    zsh = f"""#compdef cgmodel
# zsh completion of cgmodel, generated from docs/cli.md by scripts/gen_man.py
_cgmodel() {{
  if (( CURRENT == 2 )); then
    local -a cmds=({zcmds})
    _describe command cmds
    return
  fi
  case $words[2] in
{zcases}
    *) _files ;;
  esac
}}
_cgmodel "$@"
"""
    with open(os.path.join(outdir, "completions", "_cgmodel"), "w") as f:
        f.write(zsh)


if __name__ == "__main__":
    main()
