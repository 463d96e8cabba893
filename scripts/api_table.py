#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The table of the public C API: every CGM_API declaration of
include/cgmodel/*.h with its header, its name and the first sentence of its
comment, as Markdown.

    scripts/api_table.py                        print the table
    scripts/api_table.py --check FILE           exit 1 if FILE's table differs
    scripts/api_table.py --write FILE           replace FILE's table
    scripts/api_table.py --headers DIR ...      the headers of DIR instead (tests)

(exit 2: bad usage, or FILE without the markers)

FILE holds the table between the lines `<!-- api-table begin -->` and
`<!-- api-table end -->` (docs/architecture.md, "The public C API"). After a
change to the public headers, regenerate it with
`scripts/api_table.py --write docs/architecture.md`; tests/e2e/test_api_table.sh
runs --check and fails until then.

A declaration's comment is the nearest /* ... */ block on lines of its own
above it with no blank line between: right above it, or above what it is
grouped with (other declarations, the type or constant it goes with); a
comment on the declaration's own last line comes first.
Python's standard library only."""

import difflib
import os
import re
import sys

BEGIN = "<!-- api-table begin -->"
END = "<!-- api-table end -->"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include", "cgmodel")


def strip_comments(s):
    return re.sub(r"/\*.*?\*/", " ", s, flags=re.S)


def declaration_spans(lines):
    """(first, last) line indices of every CGM_API declaration: from its
    CGM_API line to the ';' that ends it outside parentheses."""
    spans, i = [], 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("CGM_API"):
            i += 1
            continue
        depth, j = 0, i
        while j < len(lines):
            code = strip_comments(lines[j])
            if not code.lstrip().startswith("#"):  # an #if around an attribute
                depth += code.count("(") - code.count(")")
                if depth == 0 and ";" in code:
                    break
            j += 1
        spans.append((i, min(j, len(lines) - 1)))
        i = j + 1
    return spans


def comment_above(lines, first):
    """The comment of the declaration on line `first`: the nearest comment on
    lines of its own in the lines above it up to a blank one, passing over
    what is grouped with it (other declarations, a type, a #define) but not
    into a struct's body; None when there is none."""
    j, depth = first - 1, 0
    while j >= 0 and lines[j].strip():
        code = strip_comments(lines[j])
        depth += code.count("}") - code.count("{")
        if lines[j].rstrip().endswith("*/"):
            k = j
            while k > 0 and "/*" not in lines[k]:
                k -= 1
            if depth == 0 and lines[k].lstrip().startswith("/*"):
                return "\n".join(lines[k : j + 1])
            j = k
        j -= 1
    return None


def comment_text(c):
    c = re.sub(r"^\s*/\*+|\*+/\s*$", "", c.strip())
    c = "\n".join(re.sub(r"^\s*\*(?!/)", "", l) for l in c.split("\n"))
    return " ".join(c.split())


# Abbreviations whose period ends no sentence ("Eq. 3", "e.g. a"); nor does
# a range's "..".
ABBREV = ("e.g", "i.e", "Eq", "Eqs", "Sec", "Fig", "Figs", "vs", "cf")


def first_sentence(text):
    for m in re.finditer(r"(?<![.])[.](?![.])(\s|$)", text):  # not a range's ".."
        if not re.search(r"\b(" + "|".join(re.escape(a) for a in ABBREV) + r")$", text[: m.start()]):
            return text[: m.start() + 1]
    return text


def declared_name(decl):
    code = strip_comments(decl)
    code = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", code, flags=re.S)
    m = re.search(r"(\w+)\s*\(", code)  # a function: the name before its parameters
    if m and m.group(1) != "CGM_API":
        return m.group(1)
    m = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*[;=]", code)  # a variable
    return m.group(1) if m else "?"


def entries(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for first, last in declaration_spans(lines):
        decl = "\n".join(lines[first : last + 1])
        m = re.search(r"/\*.*?\*/\s*$", lines[last])
        c = m.group(0) if m else comment_above(lines, first)
        yield declared_name(decl), first_sentence(comment_text(c)) if c else ""


def cell(s):
    return s.replace("|", "\\|")


def table(include):
    rows = ["| header | function | what it does |", "| --- | --- | --- |"]
    for name in sorted(os.listdir(include)):
        if not name.endswith(".h"):
            continue
        for fn, doc in entries(os.path.join(include, name)):
            rows.append(f"| `cgmodel/{name}` | `{fn}` | {cell(doc) or '(no comment)'} |")
    return "\n".join(rows) + "\n"


def split(path):
    """FILE's text before, inside and after the markers."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        sys.stderr.write(f"{path}: no '{BEGIN}' ... '{END}' markers\n")
        sys.exit(2)
    b += len(BEGIN) + 1
    return text[:b], text[b:e], text[e:]


def main(argv):
    include = INCLUDE
    if len(argv) >= 3 and argv[1] == "--headers":
        include, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) == 1:
        sys.stdout.write(table(include))
        return 0
    if len(argv) != 3 or argv[1] not in ("--check", "--write"):
        sys.stderr.write("usage: api_table.py [--headers DIR] [--check FILE | --write FILE]\n")
        return 2
    head, old, tail = split(argv[2])
    new = table(include)
    if argv[1] == "--write":
        if old != new:
            with open(argv[2], "w", encoding="utf-8") as f:
                f.write(head + new + tail)
        return 0
    if old == new:
        return 0
    sys.stderr.write(f"{argv[2]}: the API table differs from include/cgmodel/*.h "
                     f"(regenerate: scripts/api_table.py --write {argv[2]}):\n")
    sys.stderr.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                               argv[2], "include/cgmodel/*.h"))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
