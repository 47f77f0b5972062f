"""The native side: libdvsim.so through ctypes, and the dvsim executable.

Both are looked for in the build folder of the checkout this package sits in
(python/dvsim -> ../../build/cli/), unless DVSIM_LIB and DVSIM name them; then
on the usual search paths (ctypes.util.find_library, PATH)."""
import ctypes
import ctypes.util
import os
import shutil

_HERE = os.path.dirname(os.path.abspath(__file__))
_BUILD = os.path.normpath(os.path.join(_HERE, "..", "..", os.environ.get("DVSIM_BUILD", "build"), "cli"))
_lib = None


class DvsimError(RuntimeError):
    """A dvsim run or sweep failed: .code is dvsim's exit code (docs/errors.md)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def library_path():
    env = os.environ.get("DVSIM_LIB")
    if env:
        return env
    local = os.path.join(_BUILD, "libdvsim.so")
    if os.path.exists(local):
        return local
    found = ctypes.util.find_library("dvsim")
    if found:
        return found
    raise DvsimError("libdvsim.so not found: build dvsim (meson compile -C build) or set DVSIM_LIB", 66)


def executable():
    env = os.environ.get("DVSIM")
    if env:
        return env
    local = os.path.join(_BUILD, "dvsim")
    if os.path.exists(local):
        return local
    found = shutil.which("dvsim")
    if found:
        return found
    raise DvsimError("the dvsim executable not found: build dvsim or set DVSIM", 66)


def lib():
    global _lib
    if _lib is None:
        L = ctypes.CDLL(library_path())
        c = ctypes
        L.dvsim_run_op.argtypes = [c.c_char_p, c.c_char_p, c.c_char_p, c.c_char_p, c.c_char_p, c.c_char_p,
                                   c.POINTER(c.c_char_p), c.c_int, c.c_uint64, c.c_uint64, c.c_int,
                                   c.POINTER(c.c_void_p), c.c_char_p, c.c_size_t]
        L.dvsim_run_op.restype = c.c_int
        L.dvsim_chip_ini.argtypes = [c.c_char_p, c.POINTER(c.c_char_p), c.c_int, c.POINTER(c.c_void_p),
                                     c.c_char_p, c.c_size_t]
        L.dvsim_chip_ini.restype = c.c_int
        L.dvsim_free.argtypes = [c.c_void_p]
        L.dvsim_free.restype = None
        L.dvsim_version.restype = c.c_char_p
        _lib = L
    return _lib


def _b(s):
    return None if s is None else str(s).encode()


def _sets(sets):
    items = [f"{k}={v}" for k, v in (sets or {}).items()]
    arr = (ctypes.c_char_p * max(1, len(items)))(*[s.encode() for s in items])
    return arr, len(items)


def _take(ptr):
    if not ptr.value:
        return None
    text = ctypes.string_at(ptr.value).decode()
    lib().dvsim_free(ptr)
    return text


def run_op(op, variant, dtype, shape, chip, config, sets, seed, blocks, data):
    L = lib()
    arr, n = _sets(sets)
    out = ctypes.c_void_p()
    err = ctypes.create_string_buffer(1024)
    rc = L.dvsim_run_op(_b(op), _b(variant), _b(dtype), _b(shape), _b(chip), _b(config), arr, n,
                        int(seed), int(blocks or 0), 1 if data else 0, ctypes.byref(out), err, len(err))
    return rc, _take(out), err.value.decode(errors="replace")


def chip_ini(chip, sets):
    arr, n = _sets(sets)
    out = ctypes.c_void_p()
    err = ctypes.create_string_buffer(1024)
    rc = lib().dvsim_chip_ini(_b(chip), arr, n, ctypes.byref(out), err, len(err))
    if rc:
        raise DvsimError(err.value.decode(errors="replace"), rc)
    return _take(out)


def version():
    return lib().dvsim_version().decode()
