#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layer order, checked on the sources: every component folder may
include only its own headers and those of the components below it (the
order CMake declares in each cgm_component, written to layers.txt), and a
public header (include/cgmodel/) may include only public headers of its own
layer or below. A wrong-way include fails this test; a wrong-way call fails
the build (the layercheck_* programs).

usage: check_layers.py SOURCE_DIR LAYERS_TXT
       check_layers.py --selftest   (a tree with one wrong-way include must fail)"""
import os
import re
import sys

if sys.argv[1:] == ['--selftest']:
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        for d in ('low', 'high', 'include/cgmodel'):
            os.makedirs(os.path.join(t, d))
        open(os.path.join(t, 'layers.txt'), 'w').write('low:\nhigh: low\n')
        open(os.path.join(t, 'high/h.h'), 'w').write('#include "low/l.h"\n')
        open(os.path.join(t, 'low/l.h'), 'w').write('int f(void);\n')
        run = lambda: subprocess.run([sys.executable, __file__, t, os.path.join(t, 'layers.txt')],
                                     capture_output=True, text=True)
        ok = run()
        open(os.path.join(t, 'low/l.c'), 'w').write('#include "high/h.h"\n')
        bad = run()
    good = ok.returncode == 0 and bad.returncode == 1 and 'low includes "high/h.h"' in bad.stdout
    print('self-test', 'passed' if good else f'FAILED: {ok.stdout} {bad.stdout}')
    sys.exit(0 if good else 1)

src, layers_txt = sys.argv[1], sys.argv[2]
deps = {}
for line in open(layers_txt):
    if ':' in line:
        name, rest = line.split(':', 1)
        deps[name.strip()] = rest.split()

def closure(c, seen=None):
    seen = set() if seen is None else seen
    for d in deps.get(c, []):
        if d not in seen:
            seen.add(d)
            closure(d, seen)
    return seen

# Which component each public header belongs to.
public_owner = {
    'export': 'common', 'status': 'common', 'options': 'common', 'sample': 'common', 'sparse': 'sparse', 'cache': 'cache',
    'plan': 'plan', 'model': 'model', 'solver': 'solver', 'cgmodel': 'solver',
    'tuner': 'tuner', 'db': 'db', 'plots': 'plots', 'pipeline': 'pipeline',
    'calibrate': 'pipeline', 'predict': 'pipeline', 'run_solve': 'pipeline', 'validate': 'pipeline',
    'devices': 'pipeline', 'bindings': 'pipeline',
    'dist': 'dist', 'dist_mpi': 'dist',
}
include_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
errors = []

def allowed(comp):
    return closure(comp) | {comp}

def check_file(path, comp, public=False):
    for no, line in enumerate(open(path, errors='replace'), 1):
        m = include_re.match(line)
        if not m:
            continue
        inc = m.group(1)
        head = inc.split('/')[0]
        where = f'{os.path.relpath(path, src)}:{no}: {comp} includes "{inc}"'
        if head == 'cgmodel':
            owner = public_owner.get(os.path.splitext(inc.split('/')[1])[0])
            if owner is None:
                errors.append(f'{where}: not a public header')
            elif owner not in allowed(comp):
                errors.append(f'{where}: {owner} is above {comp}')
        elif public:
            errors.append(f'{where}: a public header includes an internal one')
        elif '/' in inc and head in deps and head not in allowed(comp):
            errors.append(f'{where}: {head} is above {comp}')

missing = [c for c in deps if not os.path.isdir(os.path.join(src, c))]
if missing:
    errors.append(f'components without a folder: {missing}')
files = 0
for comp in deps:
    for root, _, names in os.walk(os.path.join(src, comp)):
        for n in names:
            if n.endswith(('.c', '.h', '.cu', '.cuh')):
                check_file(os.path.join(root, n), comp)
                files += 1
for n in sorted(os.listdir(os.path.join(src, 'include', 'cgmodel'))):
    if n.endswith('.h'):
        owner = public_owner.get(n[:-2])
        if owner is None:
            errors.append(f'include/cgmodel/{n}: no layer assigned (tests/layers/check_layers.py)')
            continue
        check_file(os.path.join(src, 'include', 'cgmodel', n), owner, public=True)
        files += 1
for e in errors:
    print(e)
print(f'{files} files of {len(deps)} components checked: {len(errors)} wrong-way includes')
sys.exit(1 if errors else 0)
