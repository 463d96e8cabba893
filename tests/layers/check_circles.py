#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""No two source files lean on each other in a circle. A file depends on
another when it includes that file's header (a.h belongs to a.c) or calls
a function that only the other file defines (a name defined, not static,
in exactly one file). The check_layers test keeps folders in order; this
one keeps the files inside a folder in order too, so that every file can
be read after the files it uses.

usage: check_circles.py SOURCE_DIR
       check_circles.py --selftest   (two files calling each other must fail)"""
import os
import re
import sys

SKIP = ('tests', 'bench', 'build', 'python', 'examples', 'docs', 'data')
EXT = ('.c', '.cu', '.h', '.cuh')
DEF_RE = re.compile(r'^(?!static\b)(?!typedef\b)(?:extern "C" )?[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{',
                    re.M | re.S)
CALL_RE = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
INC_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def sources(src):
    for root, dirs, names in os.walk(src):
        rel = os.path.relpath(root, src)
        if rel == '.':
            dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith('.')]
        for n in names:
            if n.endswith(EXT):
                yield os.path.relpath(os.path.join(root, n), src)


def room(path):
    """A file and its header are one room: a.c and a.h (or a.cu, a.cuh)."""
    return os.path.splitext(path)[0]


def graph(src):
    text = {}
    for f in sources(src):
        with open(os.path.join(src, f), errors='replace') as fh:
            text[f] = COMMENT_RE.sub(' ', fh.read())
    defined = {}
    for f, s in text.items():
        if f.endswith(('.c', '.cu')):
            for name in DEF_RE.findall(s):
                defined.setdefault(name, set()).add(room(f))
    # what crosses files: a name a header declares, one file defines
    declared = set()
    for f, s in text.items():
        if f.endswith(('.h', '.cuh')):
            declared.update(CALL_RE.findall(s))
    unique = {n: next(iter(r)) for n, r in defined.items() if len(r) == 1 and n in declared}
    rooms = {room(f) for f in text}
    edges = {r: set() for r in rooms}
    why = {}
    for f, s in text.items():
        a = room(f)
        for inc in INC_RE.findall(s):
            b = room(inc)
            if b in rooms and b != a:
                edges[a].add(b)
                why.setdefault((a, b), f'includes {inc}')
        if f.endswith(('.h', '.cuh')):
            continue  # a header declares; the files that include it call
        for name in set(CALL_RE.findall(s)):
            b = unique.get(name)
            if b and b != a:
                edges[a].add(b)
                why.setdefault((a, b), f'calls {name}')
    return edges, why


def circles(edges):
    """Tarjan's strongly connected components of more than one room."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main(src):
    edges, why = graph(src)
    found = circles(edges)
    for comp in found:
        print('circle:', ', '.join(comp))
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    print(f'  {a} -> {b}: {why[(a, b)]}')
    print(f'{len(edges)} files checked: {len(found)} circles')
    return 1 if found else 0


if sys.argv[1:] == ['--selftest']:
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        os.makedirs(os.path.join(t, 'x'))
        open(os.path.join(t, 'x/x.h'), 'w').write('int fa(void);\nint fb(void);\n')
        open(os.path.join(t, 'x/a.c'), 'w').write('int fa(void) { return 1; }\nint ga(void) { return fb(); }\n')
        open(os.path.join(t, 'x/b.c'), 'w').write('int fb(void) { return 2; }\n')
        ok = main(t) == 0
        open(os.path.join(t, 'x/b.c'), 'w').write('int fb(void) { return fa(); }\n')
        bad = main(t) == 1
    print('self-test', 'passed' if ok and bad else 'FAILED')
    sys.exit(0 if ok and bad else 1)

sys.exit(main(sys.argv[1]))
