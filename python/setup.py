# SPDX-License-Identifier: GPL-3.0-or-later
"""The metadata is pyproject.toml's; this only bundles the library.

With CGMODEL_LIBRARY set to a built libcgmodel.so (build/libcgmodel.so),
the wheel carries a copy of it as cgmodel/_lib/libcgmodel.so, which
cgmodel finds before the system's loader path, and is tagged for this
platform (py3-none-linux_x86_64: the library is native code, Python's ABI
is not used). Without it the wheel is pure Python (py3-none-any) and the
library is found at run time (docs/python.md, "Installing")."""

import os
import shutil

import setuptools
from setuptools.command.build_py import build_py

LIBRARY = os.environ.get("CGMODEL_LIBRARY")


class BuildPy(build_py):
    """build_py that copies $CGMODEL_LIBRARY into the build (never into the
    source tree), its symbolic links resolved: a wheel keeps no links."""

    def run(self):
        super().run()
        if LIBRARY:
            if not os.path.isfile(LIBRARY):
                raise SystemExit(f"CGMODEL_LIBRARY={LIBRARY}: no such file")
            dest = os.path.join(self.build_lib, "cgmodel", "_lib")
            os.makedirs(dest, exist_ok=True)
            shutil.copyfile(os.path.realpath(LIBRARY), os.path.join(dest, "libcgmodel.so"))


cmdclass = {"build_py": BuildPy}
try:  # setuptools >= 70.1 has bdist_wheel, older ones take it from wheel
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        raise SystemExit(
            "cgmodel: building a wheel needs setuptools >= 70.1 or the wheel package: "
            "pip install ./python (without --no-build-isolation) fetches them; offline, "
            "apt-get install python3-wheel (Debian) or pip install wheel"
        ) from None


class BdistWheel(bdist_wheel):
    """A wheel with the library is for this platform, any Python 3."""

    def get_tag(self):
        python, abi, plat = super().get_tag()
        return ("py3", "none", plat) if LIBRARY else (python, abi, plat)


class Distribution(setuptools.Distribution):
    """Native code when it carries the library: a platform wheel, its files
    in platlib."""

    def has_ext_modules(self):
        return bool(LIBRARY)


cmdclass["bdist_wheel"] = BdistWheel
setuptools.setup(cmdclass=cmdclass, distclass=Distribution)
