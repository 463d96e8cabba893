#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""No function of the library or the command line is longer than LIMIT
lines (its signature to its closing brace): a longer one does several
jobs that want names of their own. Tests and benchmarks are exempt.

usage: check_functions.py SOURCE_DIR [LIMIT]
       check_functions.py --selftest"""
import os
import re
import sys

SKIP = ('tests', 'bench', 'build', 'python', 'examples', 'docs', 'data')
EXT = ('.c', '.cu', '.h', '.cuh')
# comments, strings and character constants blanked, newlines kept
TOKEN_RE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
# braces that only group declarations: their bodies are not functions
GROUP_RE = re.compile(r'(\bnamespace\s*\w*|\bextern\s*"C"|\b(?:struct|union|enum|class)\b[^;{()]*'
                      r'|=)\s*$')


def blank(m):
    return re.sub(r'[^\n]', ' ', m.group(0)) if m.group(0).startswith('/') else \
        m.group(0)[0] + re.sub(r'[^\n]', ' ', m.group(0)[1:-1]) + m.group(0)[-1]


def functions(text):
    """(name, first line, last line) of every top-level function body."""
    s = TOKEN_RE.sub(blank, text)
    out, stack = [], []  # stack of (kind, start offset)
    for m in re.finditer(r'[{}]', s):
        if m.group(0) == '{':
            before = s[:m.start()]
            grouped = any(k == 'fn' for k, _, _ in stack)
            if grouped:
                stack.append(('inner', 0, ''))
                continue
            head = before[max(before.rfind(';'), before.rfind('}'), before.rfind('{')) + 1:]
            if GROUP_RE.search(before.rstrip()[-200:]) or ')' not in head:
                stack.append(('group', 0, ''))
                continue
            name = re.findall(r'(\w+)\s*\(', head)
            start = m.start() - len(head.lstrip())
            stack.append(('fn', start, name[0] if name else '?'))
        elif stack:
            kind, start, name = stack.pop()
            if kind == 'fn':
                first = s.count('\n', 0, start) + 1
                last = s.count('\n', 0, m.start()) + 1
                out.append((name, first, last))
    return out


def main(src, limit):
    bad, count = [], 0
    for root, dirs, names in os.walk(src):
        if os.path.relpath(root, src) == '.':
            dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith('.')]
        for n in sorted(names):
            if not n.endswith(EXT):
                continue
            path = os.path.join(root, n)
            with open(path, errors='replace') as fh:
                for name, first, last in functions(fh.read()):
                    count += 1
                    if last - first + 1 > limit:
                        bad.append((last - first + 1, os.path.relpath(path, src), first, name))
    for lines, path, first, name in sorted(bad, reverse=True):
        print(f'{path}:{first}: {name} is {lines} lines (at most {limit})')
    print(f'{count} functions checked: {len(bad)} longer than {limit} lines')
    return 1 if bad else 0


if sys.argv[1:] == ['--selftest']:
    body = 'int f(int a) {\n' + '  a++;\n' * 10 + '  return a;\n}\n'
    text = 'struct s { int x; };\nnamespace {\n' + body + '}\nstatic int g[] = {1, 2};\n'
    got = functions(text)
    ok = got == [('f', 3, 15)]
    print('self-test', 'passed' if ok else f'FAILED: {got}')
    sys.exit(0 if ok else 1)

sys.exit(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 150))
