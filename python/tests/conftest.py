# SPDX-License-Identifier: GPL-3.0-or-later
"""Every test session's matrix cache in a temporary directory: the command
line the tests run (and everything they start) never writes into the
user's ~/.cache/cgmodel."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def private_matrix_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    yield
    mp.undo()
