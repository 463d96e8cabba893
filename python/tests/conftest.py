# SPDX-License-Identifier: GPL-3.0-or-later
"""The whole test run's matrix cache in a temporary directory: the command
line the tests run (and everything they start) never writes into the
user's ~/.cache/cgmodel."""

import os
import shutil
import tempfile

_saved = {}


def pytest_configure(config):
    _saved["dir"] = tempfile.mkdtemp(prefix="cgmodel-xdg-cache-")
    _saved["old"] = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = _saved["dir"]


def pytest_unconfigure(config):
    if _saved.get("old") is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = _saved["old"]
    shutil.rmtree(_saved.pop("dir", ""), ignore_errors=True)
