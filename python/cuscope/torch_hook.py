"""PyTorch attribution inside the profiled process (`cuscope run --pytorch`).

Once torch is imported, `install()` turns on, on the importing thread:

- torch's NVTX range per operator (torch.autograd.profiler.emit_nvtx, shapes when
  CUSCOPE_PYTORCH_SHAPES=1); autograd's threads inherit it for backward;
- a Python line range around each torch call made from Python (a TorchFunctionMode):
  a cuscope scope at the innermost frame outside torch and the standard library,
  through the C ABI's cuscope_range_push_python. Sites are made once per (code
  object, line) and kept for the life of the process, as the C ABI requires;
- ProfilerStep#N regions (NVTX start/end ranges, so they never unbalance the scopes
  of the program) from a global optimizer step post-hook, one per iteration: the step
  boundary is taken at the first torch call after an optimizer step, outside any
  optimizer step, so that several optimizers or gradient accumulation make one step.
  A program that marks steps itself (torch.profiler, cuscope's profile.step())
  keeps its own: the hook stops marking.
- The op and line ranges in the first CUSCOPE_PYTORCH_STEPS steps only (3 by default;
  0: every step): at the next step they end (the line mode leaves at the next optimizer
  step, passing calls through until then) and the steps run at the trace's cost; the
  analysis gives their kernels the op and line of the same launches in the last
  attributed step (lib/analysis/torch_attribution.h).

A torch.profiler session in the program turns the NVTX ranges off while it runs (torch
allows one profiler state per thread) and on again after it.

Nothing here runs inside a CUDA callback or takes the GIL from another thread: every
call into the library is made by the Python thread that calls torch.

The module imports only the standard library at import time; torch is imported by
the caller. `sitecustomize.py` (next to this file under share/cuscope/python) loads it.
"""

import atexit
import ctypes
import importlib
import os
import sys
import sysconfig
import threading

STEP_NAME = "ProfilerStep#{}"


def _setting(name, default):
    """A boolean CUSCOPE_ setting as the library parses it (lib/config/values.cc)."""
    text = os.environ.get(name, "").strip().lower()
    if text in ("1", "true", "yes", "on", "t", "y"):
        return True
    if text in ("0", "false", "no", "off", "f", "n"):
        return False
    return default


def _int_setting(name, default):
    """A non-negative integer CUSCOPE_ setting (the library rejects a bad one at start)."""
    try:
        value = int(os.environ.get(name, "").strip())
    except ValueError:
        return default
    return value if value >= 0 else default

# Torch functions that never launch a kernel (tensor metadata, properties' getters, views
# that share storage): the line mode lets them through without a range. reshape,
# contiguous and __getitem__ may copy, so they are not here.
NO_KERNEL = frozenset((
    "__get__", "size", "dim", "stride", "numel", "nelement", "element_size", "data_ptr",
    "storage_offset", "is_contiguous", "is_floating_point", "is_complex", "get_device",
    "view", "view_as", "permute", "transpose", "t", "unsqueeze", "squeeze", "expand",
    "expand_as", "unflatten", "split", "chunk", "narrow", "unbind", "as_strided",
    "detach", "requires_grad_", "__len__", "__hash__", "__bool__",
))


class _Site(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("function", ctypes.c_char_p),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_uint32),
    ]


def _load_library():
    """libcuscope.so as the program was injected with, or None."""
    for var in ("CUSCOPE_LIBRARY", "CUDA_INJECTION64_PATH"):
        path = os.environ.get(var)
        if path:
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            if hasattr(lib, "cuscope_range_push_python"):
                lib.cuscope_range_push_python.argtypes = [ctypes.POINTER(_Site)]
                lib.cuscope_range_push_python.restype = ctypes.c_int
                lib.cuscope_range_pop_python.argtypes = []
                lib.cuscope_range_pop_python.restype = ctypes.c_int
                return lib
    return None


def _excluded_prefixes(torch_dir):
    """Folders whose frames are not the user's: torch's and the standard library's."""
    prefixes = []
    if torch_dir:
        prefixes.append(os.path.join(os.path.realpath(torch_dir), ""))
        prefixes.append(os.path.join(torch_dir, ""))
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            prefixes.append(os.path.join(path, ""))
    prefixes.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), ""))
    return tuple(dict.fromkeys(prefixes))


class FrameFilter:
    """Which frames are the user's: not torch's, not the standard library's (its
    site-packages and dist-packages are the user's), not frozen or generated code."""

    def __init__(self, torch_dir):
        self._excluded = _excluded_prefixes(torch_dir)
        self._by_code = {}

    def is_user_file(self, filename):
        if not filename or filename.startswith("<"):
            return False
        if "site-packages" in filename or "dist-packages" in filename:
            torch_dirs = self._excluded[:2]
            return not filename.startswith(torch_dirs)
        return not filename.startswith(self._excluded)

    def user_frame(self, frame):
        """The innermost user frame from `frame` outward, or None."""
        # By the code object's identity (code objects compare equal across files);
        # the entry keeps the object, so its id is not reused.
        by_code = self._by_code
        while frame is not None:
            code = frame.f_code
            entry = by_code.get(id(code))
            if entry is None or entry[0] is not code:
                entry = by_code[id(code)] = (code, self.is_user_file(code.co_filename))
            if entry[1]:
                return frame
            frame = frame.f_back
        return None


class SiteCache:
    """One C site per (code object, line), kept for the life of the process."""

    def __init__(self):
        self._sites = {}

    def site(self, code, line):
        key = (id(code), line)  # identity, as FrameFilter; the site keeps the code
        site = self._sites.get(key)
        if site is None or site.code is not code:
            function = code.co_name
            name = "{} ({}:{})".format(function, os.path.basename(code.co_filename), line)
            site = self._sites[key] = _Site(
                name.encode("utf-8", "replace"),
                function.encode("utf-8", "replace"),
                code.co_filename.encode("utf-8", "replace"),
                line,
            )
            site.code = code
        return site

    def __len__(self):
        return len(self._sites)


class StepTracker:
    """ProfilerStep#N from optimizer steps: at most one boundary per iteration.

    `start(name)` opens a step and returns a handle, `end(handle)` closes it. Optimizer
    hooks call pre_step/post_step; every torch call on the owning thread calls
    on_torch_call, which takes a pending boundary outside any optimizer step."""

    def __init__(self, start, end, thread_id=threading.get_ident, on_boundary=None):
        self._start, self._end, self._thread_id = start, end, thread_id
        self.on_boundary = on_boundary  # called with the new step's number
        self.step = 0
        self.external = False
        self._owner = None
        self._open = None
        self._in_optimizer = 0
        self.pending = False
        # Without the line mode no torch call reaches on_torch_call: the boundary is
        # then taken at the optimizer step's end (one a step per optimizer).
        self.deferred = True

    def pre_step(self):
        self._in_optimizer += 1

    def post_step(self):
        self._in_optimizer = max(0, self._in_optimizer - 1)
        if self.external:
            return
        if self._owner is None:
            self._owner = self._thread_id()
        if self._owner == self._thread_id():
            self.pending = True
            if not self.deferred and not self._in_optimizer:
                self.boundary()

    def on_torch_call(self):
        if self.pending and not self._in_optimizer and self._owner == self._thread_id():
            self.boundary()

    def boundary(self):
        self.pending = False
        self.close()
        self.step += 1
        if self.on_boundary is not None:
            self.on_boundary(self.step)
        self._open = self._start(STEP_NAME.format(self.step))

    def close(self):
        if self._open is not None:
            self._end(self._open)
            self._open = None

    def set_external(self):
        """The program marks steps itself: stop marking them."""
        self.external = True
        self.pending = False
        self.close()


def _dynamo_compiling(torch):
    for owner, name in ((getattr(torch, "compiler", None), "is_dynamo_compiling"),
                        (getattr(torch, "_dynamo", None), "is_compiling")):
        fn = getattr(owner, name, None) if owner is not None else None
        if fn is not None:
            return fn
    return lambda: False


def make_line_mode(torch, lib, frames, sites, steps, state=None):
    """A TorchFunctionMode that opens a Python line range around each torch call, while
    `state.attributing` (an object with that attribute; always when None)."""
    push, pop = lib.cuscope_range_push_python, lib.cuscope_range_pop_python
    get_frame = sys._getframe
    compiling = _dynamo_compiling(torch)

    class CuscopeLineMode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if kwargs is None:
                kwargs = {}
            # Metadata and views launch no kernel: no frame walk, no range.
            if (state is None or state.attributing) and (
                    compiling() or getattr(func, "__name__", None) in NO_KERNEL):
                return func(*args, **kwargs)
            if steps.pending:
                steps.on_torch_call()  # may end the attributed steps
            if state is not None and not state.attributing:
                return func(*args, **kwargs)
            frame = frames.user_frame(get_frame(1))
            if frame is None:
                return func(*args, **kwargs)
            push(sites.site(frame.f_code, frame.f_lineno))
            try:
                return func(*args, **kwargs)
            finally:
                pop()

    return CuscopeLineMode()


def remove_mode(torch, mode):
    """Takes `mode` off this thread's torch function mode stack, the modes above it put
    back in their order (as torch's own DeviceContext leaves the stack); False when
    `mode` is not on it (its handler is running, which takes it off meanwhile)."""
    overrides = torch.overrides
    if not any(m is mode for m in overrides._get_current_function_mode_stack()):
        return False
    above = []
    while True:
        top = overrides._pop_mode()
        if top is mode:
            break
        above.append(top)
    for m in reversed(above):
        overrides._push_mode(m)
    return True


class _NvtxRanges:
    """torch's NVTX op ranges on the installing thread, without emit_nvtx's
    torch.cuda.synchronize (which would initialize CUDA at import)."""

    def __init__(self, torch, shapes):
        self._torch, self._shapes = torch, shapes
        self._ctx = None
        self.enabled = True

    def _quiet(self, method):
        cuda = self._torch.cuda
        sync = cuda.synchronize
        cuda.synchronize = lambda *a, **k: None
        try:
            method()
        finally:
            cuda.synchronize = sync

    def on(self):
        if self.enabled and self._ctx is None:
            ctx = self._torch.autograd.profiler.emit_nvtx(record_shapes=self._shapes)
            self._quiet(ctx.__enter__)
            self._ctx = ctx

    def off(self):
        if self._ctx is not None:
            ctx, self._ctx = self._ctx, None
            self._quiet(lambda: ctx.__exit__(None, None, None))


class Hook:
    """What install() turned on; `hook` in this module once installed."""

    def __init__(self, torch, lib, shapes, attributed_steps=0):
        self.torch, self.lib = torch, lib
        self.frames = FrameFilter(os.path.dirname(torch.__file__))
        self.sites = SiteCache()
        nvtx = importlib.import_module(torch.__name__ + ".cuda.nvtx")
        self.steps = StepTracker(nvtx.range_start, nvtx.range_end, on_boundary=self._on_step)
        self.nvtx = _NvtxRanges(torch, shapes)
        self.mode = None
        self.thread = threading.get_ident()
        # Op and line ranges in the first `attributed_steps` steps only (0: every step):
        # later steps' kernels take them from the last attributed step (the analysis).
        self.attributed_steps = attributed_steps
        self.attributing = True
        self._mode_to_exit = False

    def start(self, ops=True, lines=True):
        self.nvtx.enabled = ops
        self.nvtx.on()
        if self.lib is not None and lines:
            self.mode = make_line_mode(self.torch, self.lib, self.frames, self.sites, self.steps,
                                       state=self)
            self.mode.__enter__()
        else:
            self.steps.deferred = False
        # The step open at exit ends there (torch.profiler ends its last one at stop).
        atexit.register(self.steps.close)
        self._step_hooks()
        self._watch_torch_profiler()

    def _step_hooks(self):
        optimizer = getattr(getattr(self.torch, "optim", None), "optimizer", None)
        if optimizer is None:
            # torch's import has ended, but its package need not have imported optim.
            try:
                optimizer = importlib.import_module(self.torch.__name__ + ".optim.optimizer")
            except ImportError:
                return
        if not hasattr(optimizer, "register_optimizer_step_post_hook"):
            return
        optimizer.register_optimizer_step_pre_hook(lambda *a: self.steps.pre_step())
        optimizer.register_optimizer_step_post_hook(lambda *a: self._post_step())

    def _on_step(self, step):
        """A step begins: past the attributed ones, the op and line ranges end."""
        if not self.attributing or self.attributed_steps <= 0 or step <= self.attributed_steps:
            return
        self.attributing = False
        self.nvtx.off()
        self.nvtx.enabled = False  # a torch.profiler session's end leaves them off
        # Inside the mode's own call it is not on the mode stack: it leaves at the next
        # optimizer step, and passes calls through until then.
        self._mode_to_exit = self.mode is not None

    def state(self):
        """One line on what is on now, for tests and benchmarks: after the attributed
        steps, "attributing=no line_mode=off op_ranges=off modes=0 steps=N"."""
        try:
            modes = len(self.torch.overrides._get_current_function_mode_stack())
        except Exception:
            modes = "?"
        return "attributing={} line_mode={} op_ranges={} modes={} steps={}".format(
            "yes" if self.attributing else "no", "on" if self.mode is not None else "off",
            "on" if self.nvtx._ctx is not None else "off", modes, self.steps.step)

    def _post_step(self):
        self._exit_mode()
        self.steps.post_step()

    def _exit_mode(self):
        """Leaves the line mode if it is still to leave: off the mode stack wherever it is
        (a mode the program pushed after it stays where it was). Not on the stack (a call
        from inside a torch function's handler): at the next optimizer step."""
        if not self._mode_to_exit:
            return
        try:
            removed = remove_mode(self.torch, self.mode)
        except Exception:  # an older torch: the mode stays, passing calls through
            self._mode_to_exit = False
            return
        if removed:
            self.mode = None
            self.steps.deferred = False
            self._mode_to_exit = False

    def _watch_torch_profiler(self):
        """torch.profiler in the program: its steps, and our NVTX ranges off meanwhile."""
        profile = self.torch.autograd.profiler.profile
        prepare, exit_ = profile._prepare_trace, profile.__exit__
        hook = self

        def _prepare_trace(prof, *a, **k):
            hook.steps.set_external()
            if threading.get_ident() == hook.thread:
                hook.nvtx.off()
            return prepare(prof, *a, **k)

        def __exit__(prof, *a, **k):
            try:
                return exit_(prof, *a, **k)
            finally:
                if threading.get_ident() == hook.thread:
                    hook.nvtx.on()

        profile._prepare_trace = _prepare_trace
        profile.__exit__ = __exit__


hook = None


def install(torch=None, shapes=None):
    """Turns PyTorch attribution on in this process (once); returns the Hook, or None
    when libcuscope.so is not loadable (then only torch's NVTX ranges are on)."""
    global hook
    if hook is not None:
        return hook
    if torch is None:
        import torch  # noqa: F401  (the caller imported it already)
    if shapes is None:
        shapes = _setting("CUSCOPE_PYTORCH_SHAPES", False)
    hook = Hook(torch, _load_library(), shapes,
                attributed_steps=_int_setting("CUSCOPE_PYTORCH_STEPS", 3))
    hook.start(ops=_setting("CUSCOPE_PYTORCH_OPS", True),
               lines=_setting("CUSCOPE_PYTORCH_LINES", True))
    return hook


def note_external_steps():
    """The program marks steps itself (cuscope's profile.step()): stop marking them."""
    if hook is not None:
        hook.steps.set_external()
