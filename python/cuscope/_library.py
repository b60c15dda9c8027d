"""Finding and loading libcuscope.so, and its C ABI (include/cuscope/cuscope_c.h)."""
import ctypes
import os
import threading

ENV_VAR = "CUSCOPE_LIBRARY"
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# Names tried beside the package, in order.
LIBRARY_NAMES = ("libcuscope.so", "libcuscope.so.0")

# Return codes of the C ABI.
OK = 0
ERROR_INVALID_SETTING = -1
ERROR_ALREADY_ACTIVE = -2
ERROR_NOT_ACTIVE = -3
ERROR_CUPTI = -4
ERROR_OUTPUT = -5
ERROR_DISABLED = -6

_CODE_NAMES = {
    ERROR_INVALID_SETTING: "CUSCOPE_ERROR_INVALID_SETTING",
    ERROR_ALREADY_ACTIVE: "CUSCOPE_ERROR_ALREADY_ACTIVE",
    ERROR_NOT_ACTIVE: "CUSCOPE_ERROR_NOT_ACTIVE",
    ERROR_CUPTI: "CUSCOPE_ERROR_CUPTI",
    ERROR_OUTPUT: "CUSCOPE_ERROR_OUTPUT",
    ERROR_DISABLED: "CUSCOPE_ERROR_DISABLED",
}

_SIGNATURES = (
    ("cuscope_start", [ctypes.c_char_p], ctypes.c_int),
    ("cuscope_stop", [], ctypes.c_int),
    ("cuscope_flush", [], ctypes.c_int),
    ("cuscope_is_active", [], ctypes.c_int),
    ("cuscope_output_path", [], ctypes.c_char_p),
    ("cuscope_last_error", [], ctypes.c_char_p),
    ("cuscope_version", [], ctypes.c_char_p),
    ("cuscope_range_push", [ctypes.c_char_p], ctypes.c_int),
    ("cuscope_range_pop", [], ctypes.c_int),
)


class LibraryNotFoundError(OSError):
    """libcuscope.so is neither named by CUSCOPE_LIBRARY nor installed beside the package."""


class CuscopeError(RuntimeError):
    """A C ABI call failed: `code` is its negative return value, the message says why."""

    def __init__(self, call, code, message):
        self.call = call
        self.code = code
        self.code_name = _CODE_NAMES.get(code, str(code))
        super().__init__(f"{call} failed ({self.code_name}): {message}")


def find_library(environ=None, package_dir=PACKAGE_DIR):
    """The path of libcuscope.so: CUSCOPE_LIBRARY if set, else beside the package.

    Raises LibraryNotFoundError naming both places when neither has it."""
    environ = os.environ if environ is None else environ
    named = environ.get(ENV_VAR, "")
    if named:
        if os.path.isfile(named):
            return os.path.abspath(named)
        raise LibraryNotFoundError(
            f"{ENV_VAR}={named} is not a file; point {ENV_VAR} at libcuscope.so "
            f"(e.g. build/lib/libcuscope.so) or unset it to use the copy beside the "
            f"package in {package_dir}")
    for name in LIBRARY_NAMES:
        path = os.path.join(package_dir, name)
        if os.path.isfile(path):
            return path
    raise LibraryNotFoundError(
        f"libcuscope.so not found: {ENV_VAR} is not set and there is no "
        f"{' or '.join(LIBRARY_NAMES)} in {package_dir}. Set {ENV_VAR} to the library "
        f"(e.g. {ENV_VAR}=$PWD/build/lib/libcuscope.so), or copy it into python/cuscope/ "
        f"before `pip install ./python`")


class Library:
    """libcuscope.so's C ABI; every call that can fail raises CuscopeError."""

    def __init__(self, path):
        self.path = path
        self._dll = ctypes.CDLL(path)
        for name, argtypes, restype in _SIGNATURES:
            fn = getattr(self._dll, name)
            fn.argtypes = argtypes
            fn.restype = restype

    def _check(self, call, rc):
        if rc < 0:
            raise CuscopeError(call, rc, self.last_error())
        return rc

    def start(self, settings):
        """settings: the NAME=VALUE;... text of cuscope_start."""
        return self._check("cuscope_start", self._dll.cuscope_start(settings.encode()))

    def stop(self):
        return self._check("cuscope_stop", self._dll.cuscope_stop())

    def flush(self):
        return self._check("cuscope_flush", self._dll.cuscope_flush())

    def is_active(self):
        return self._dll.cuscope_is_active() == 1

    def output_path(self):
        return self._dll.cuscope_output_path().decode(errors="replace")

    def last_error(self):
        return self._dll.cuscope_last_error().decode(errors="replace")

    def version(self):
        return self._dll.cuscope_version().decode()

    def range_push(self, name):
        return self._dll.cuscope_range_push(name.encode())

    def range_pop(self):
        return self._dll.cuscope_range_pop()


_lock = threading.Lock()
_library = None


def library():
    """The process's Library, loaded on first use (find_library says from where)."""
    global _library
    with _lock:
        if _library is None:
            _library = Library(find_library())
        return _library
