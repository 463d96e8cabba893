#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Prints the Python that runs SciPy + CuPy beside cgmodel (bench/e2e.sh):
# $E2E_PYTHON when set, else python3 on PATH or /usr/bin/python3, whichever
# first has SciPy (a pyenv or venv python3 may lack it; Debian's
# python3-scipy lives beside /usr/bin/python3), else python3.
if [ -n "${E2E_PYTHON:-}" ]; then
  echo "$E2E_PYTHON"
  exit 0
fi
for cand in python3 /usr/bin/python3; do
  if "$cand" -c 'import scipy' 2>/dev/null; then
    echo "$cand"
    exit 0
  fi
done
echo python3
