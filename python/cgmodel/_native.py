# SPDX-License-Identifier: GPL-3.0-or-later
"""libcgmodel through ctypes: finding the library, the structs the binding
mirrors (cgm_csr, cgm_csr_device, cgm_json_extras, cgm_error) and the calls
of its JSON steps (include/cgmodel/bindings.h).

ctypes.CDLL releases the GIL for the duration of every foreign call, so a
long solve or calibration in one thread does not stop the others.
"""

import atexit
import ctypes
import ctypes.util
import glob
import json
import math
import os

import numpy as np

__all__ = ["Error", "InputError", "Csr", "CsrDevice", "Extras", "MONITOR", "lib", "call_json",
           "library_path"]


class Error(Exception):
    """A failure reported by libcgmodel: `code` is its status (2 bad input,
    3 runtime failure, the command line's exit codes) and the message is
    the library's own (cgm_error.msg)."""

    def __init__(self, message, code=2):
        super().__init__(message)
        self.code = code


class InputError(Error, ValueError):
    """Bad input (code 2), found here or by the library: a cgmodel.Error and
    a ValueError, naming what is wrong."""

    def __init__(self, message, code=2):
        super().__init__(message, code)


class Csr(ctypes.Structure):
    """struct cgm_csr (include/cgmodel/sparse.h)."""

    _fields_ = [
        ("nrows", ctypes.c_int32),
        ("ncols", ctypes.c_int32),
        ("nnz", ctypes.c_int64),
        ("rowptr", ctypes.POINTER(ctypes.c_int64)),
        ("colidx", ctypes.POINTER(ctypes.c_int32)),
        ("val", ctypes.POINTER(ctypes.c_double)),
    ]


class CsrDevice(ctypes.Structure):
    """struct cgm_csr_device (include/cgmodel/sparse.h): the arrays of a
    CSR matrix in a GPU's memory, by address."""

    _fields_ = [
        ("device", ctypes.c_int),
        ("nrows", ctypes.c_int32),
        ("ncols", ctypes.c_int32),
        ("nnz", ctypes.c_int64),
        ("rowptr", ctypes.c_void_p),
        ("rowptr64", ctypes.c_bool),
        ("colidx", ctypes.c_void_p),
        ("val", ctypes.c_void_p),
    ]


# void (*)(void *ctx, int iteration, double relative_residual)
MONITOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_double)


class Extras(ctypes.Structure):
    """struct cgm_json_extras (include/cgmodel/bindings.h): a solve's
    initial guess and monitor."""

    _fields_ = [
        ("x0", ctypes.POINTER(ctypes.c_double)),
        ("monitor", MONITOR),
        ("monitor_ctx", ctypes.c_void_p),
        ("monitor_every", ctypes.c_int),
        ("monitor_x", ctypes.POINTER(ctypes.c_double)),
    ]


class _Err(ctypes.Structure):
    """struct cgm_error (include/cgmodel/status.h)."""

    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 1024)]


def _candidates():
    """Where the library may be, in order: $CGMODEL_LIBRARY, a copy bundled
    in the package, the system's loader path."""
    env = os.environ.get("CGMODEL_LIBRARY")
    if env:
        return [env]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")
    found = sorted(glob.glob(os.path.join(here, "libcgmodel.so*")))
    system = ctypes.util.find_library("cgmodel")
    return found + ([system] if system else []) + ["libcgmodel.so", "libcgmodel.so.0"]


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise ImportError(
        "cgmodel: libcgmodel.so not found; set CGMODEL_LIBRARY to its path, or install it "
        "(cmake --install) where the loader finds it. Tried: " + "; ".join(tried)
    )


lib, library_path = _load()

_c = ctypes
lib.cgm_version.restype = _c.c_char_p
lib.cgm_version.argtypes = []
lib.cgm_have_cuda_build.restype = _c.c_bool
lib.cgm_have_cuda_build.argtypes = []
lib.cgm_cuda_device_count.restype = _c.c_int
lib.cgm_cuda_device_count.argtypes = []
lib.cgm_json_free.restype = None
lib.cgm_json_free.argtypes = [_c.c_void_p]
# The database solve() keeps open between calls, closed (its commits checkpointed) at exit; an
# older library without it keeps nothing open.
if hasattr(lib, "cgm_json_release"):
    lib.cgm_json_release.restype = None
    lib.cgm_json_release.argtypes = []
    atexit.register(lib.cgm_json_release)
_OUT = _c.POINTER(_c.c_void_p)
_ERR = _c.POINTER(_Err)
_CSR = _c.POINTER(Csr)
_DBL = _c.POINTER(_c.c_double)
_EXTRAS = _c.POINTER(Extras)
for name, args in {
    "cgm_json_info": [_CSR, _c.c_char_p, _OUT, _ERR],
    "cgm_json_predict": [_CSR, _c.c_char_p, _OUT, _ERR],
    "cgm_json_solve": [_CSR, _DBL, _DBL, _c.c_char_p, _EXTRAS, _OUT, _ERR],
    "cgm_json_solve_device": [
        _c.POINTER(CsrDevice), _c.c_void_p, _c.c_void_p, _c.c_char_p, _EXTRAS, _OUT, _ERR
    ],
    "cgm_json_calibrate": [_c.c_char_p, _OUT, _ERR],
    "cgm_json_devices": [_c.c_char_p, _OUT, _ERR],
}.items():
    fn = getattr(lib, name)
    fn.restype = _c.c_int
    fn.argtypes = args


def call_json(name, *args, ok=(0,)):
    """Calls a cgm_json_* step with the output and error arguments appended;
    returns (status, parsed JSON or None). A status outside `ok` raises
    Error with the library's message."""
    out = _c.c_void_p()
    err = _Err()
    st = getattr(lib, name)(*args, _c.byref(out), _c.byref(err))
    try:
        text = _c.string_at(out.value).decode() if out.value else None
    finally:
        if out.value:
            lib.cgm_json_free(out)
    if st not in ok:
        msg = err.msg.decode(errors="replace") or f"{name} failed (status {st})"
        raise InputError(msg) if st == 2 else Error(msg, st)
    return st, (json.loads(text) if text is not None else None), err.msg.decode(errors="replace")


def options(**kw):
    """The options object of a step: the keys whose value is not None. A
    number that is not finite is refused here (JSON has no NaN)."""
    kw = {k: v.item() if isinstance(v, np.generic) else v for k, v in kw.items() if v is not None}
    for k, v in kw.items():
        if isinstance(v, float) and not math.isfinite(v):
            raise InputError(f"{k} is {v}: a finite number is needed")
    return json.dumps(kw).encode()
