"""cuscope's C ABI from Python with ctypes: start a session, mark regions, stop.

    python3 examples/python/ctypes_api.py [path/to/libcuscope.so] [--output=run.sqlite] [--steps=N]

The library comes from the first argument, else from CUSCOPE_LIBRARY. Regions are
pushed and popped around a few PyTorch ops when PyTorch sees a CUDA device, else
around sleeps (the session then fails to start without a GPU driver, which is
reported, and the regions are not recorded). Prints the profile's path; look at it
with `cuscope report <path>` (docs/regions.md).

Run it plainly (not under `cuscope run`): the program starts its own session. Under
`cuscope run` the start answers "already active" and the regions go to that
session's profile.
"""
import contextlib
import ctypes
import os
import sys
import time

CUSCOPE_OK = 0
CUSCOPE_ERROR_ALREADY_ACTIVE = -2


def load(path):
    lib = ctypes.CDLL(path)
    for name, argtypes, restype in [
        ("cuscope_start", [ctypes.c_char_p], ctypes.c_int),
        ("cuscope_stop", [], ctypes.c_int),
        ("cuscope_flush", [], ctypes.c_int),
        ("cuscope_is_active", [], ctypes.c_int),
        ("cuscope_output_path", [], ctypes.c_char_p),
        ("cuscope_last_error", [], ctypes.c_char_p),
        ("cuscope_version", [], ctypes.c_char_p),
        ("cuscope_range_push", [ctypes.c_char_p], ctypes.c_int),
        ("cuscope_range_pop", [], ctypes.c_int),
    ]:
        fn = getattr(lib, name)
        fn.argtypes = argtypes
        fn.restype = restype
    return lib


class Cuscope:
    def __init__(self, lib):
        self.lib = lib

    def version(self):
        return self.lib.cuscope_version().decode()

    def start(self, **settings):
        text = ";".join(f"{k}={v}" for k, v in settings.items())
        rc = self.lib.cuscope_start(text.encode())
        return rc, self.lib.cuscope_last_error().decode()

    def stop(self):
        rc = self.lib.cuscope_stop()
        return rc, self.lib.cuscope_last_error().decode()

    def output_path(self):
        return self.lib.cuscope_output_path().decode()

    @contextlib.contextmanager
    def region(self, name):
        """A region on the calling thread, like torch.cuda.nvtx.range."""
        self.lib.cuscope_range_push(name.encode())
        try:
            yield
        finally:
            self.lib.cuscope_range_pop()


def torch_with_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    path = args[0] if args else os.environ.get("CUSCOPE_LIBRARY")
    if not path:
        print("ctypes_api: give the path of libcuscope.so or set CUSCOPE_LIBRARY", file=sys.stderr)
        return 2
    steps = int(opts.get("steps", "5"))
    cs = Cuscope(load(path))
    print(f"cuscope {cs.version()} from {path}")

    rc, err = cs.start(CUSCOPE_OUTPUT=opts.get("output", "ctypes-api-%p.sqlite"),
                       CUSCOPE_REPORT=opts.get("report", "text"))
    started = rc == CUSCOPE_OK
    if rc == CUSCOPE_ERROR_ALREADY_ACTIVE:
        print("ctypes_api: a session runs already (cuscope run?); recording into it")
    elif not started:
        print(f"ctypes_api: cuscope_start failed ({rc}): {err}", file=sys.stderr)

    torch = torch_with_cuda()
    if torch is not None:
        x = torch.randn(1024, 1024, device="cuda")
        w = torch.randn(1024, 1024, device="cuda")
        for _ in range(steps):
            with cs.region("step"):
                with cs.region("matmul"):
                    y = x @ w
                with cs.region("pointwise"):
                    y = torch.relu(y) + 1.0
                x = y / y.norm()
        torch.cuda.synchronize()
        print(f"ran {steps} steps on {torch.cuda.get_device_name()}")
    else:
        for _ in range(steps):
            with cs.region("step"):
                with cs.region("sleep"):
                    time.sleep(0.01)
        print(f"ran {steps} steps of sleeps (no PyTorch with CUDA)")

    if started:
        rc, err = cs.stop()
        if rc != CUSCOPE_OK:
            print(f"ctypes_api: cuscope_stop failed ({rc}): {err}", file=sys.stderr)
            return 1
        print(f"profile: {cs.output_path()}")
    return 0 if started or rc == CUSCOPE_ERROR_ALREADY_ACTIVE else 1


if __name__ == "__main__":
    sys.exit(main())
