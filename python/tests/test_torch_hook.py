"""The PyTorch hook without torch: frame filtering, sites, step boundaries, and the line
mode over a fake torch whose TorchFunctionMode calls __torch_function__ as torch does."""
import functools
import os
import sys
import types

import pytest

from cuscope import torch_hook


def test_frame_filter_skips_torch_and_stdlib(tmp_path):
    torch_dir = str(tmp_path / "site-packages" / "torch")
    frames = torch_hook.FrameFilter(torch_dir)
    assert not frames.is_user_file(os.path.join(torch_dir, "nn", "modules", "module.py"))
    assert not frames.is_user_file(os.__file__)  # the standard library
    assert not frames.is_user_file("<frozen importlib._bootstrap>")
    assert frames.is_user_file("/home/u/train.py")
    lib_dir = str(tmp_path / "site-packages" / "transformers" / "models" / "gpt2")
    assert frames.is_user_file(os.path.join(lib_dir, "modeling_gpt2.py"))


def test_user_frame_is_the_innermost_outside_torch(tmp_path):
    torch_dir = str(tmp_path / "torch")
    frames = torch_hook.FrameFilter(torch_dir)
    code = {}
    for name, fname in (("inner", os.path.join(torch_dir, "functional.py")),
                        ("user", "/src/model.py")):
        code[name] = compile("def f(nxt):\n    return nxt()\n", fname, "exec")
    seen = []
    fns = {}
    for name in code:
        ns = {}
        exec(code[name], ns)
        fns[name] = ns["f"]

    def probe():
        seen.append(frames.user_frame(sys._getframe(1)))

    # partial is C: the frames are probe <- torch's f <- the user's f <- this test.
    fns["user"](functools.partial(fns["inner"], probe))
    assert seen[0] is not None
    assert seen[0].f_code.co_filename == "/src/model.py"
    assert seen[0].f_lineno == 2


def test_sites_are_made_once_per_code_and_line():
    sites = torch_hook.SiteCache()
    code = test_sites_are_made_once_per_code_and_line.__code__
    a = sites.site(code, 10)
    assert sites.site(code, 10) is a
    assert sites.site(code, 11) is not a
    assert len(sites) == 2
    assert a.line == 10
    assert a.function == b"test_sites_are_made_once_per_code_and_line"
    assert a.name.endswith(b"(test_torch_hook.py:10)")


class Steps:
    def __init__(self, thread=lambda: 1):
        self.log = []
        self.tracker = torch_hook.StepTracker(self.start, self.end, thread)

    def start(self, name):
        self.log.append(("start", name))
        return name

    def end(self, handle):
        self.log.append(("end", handle))


def test_one_step_per_iteration_with_two_optimizers():
    s = Steps()
    t = s.tracker
    for _ in range(3):
        t.on_torch_call()  # forward, backward
        for _opt in range(2):
            t.pre_step()
            t.on_torch_call()  # the optimizer's own torch calls: no boundary inside
            t.post_step()
    t.on_torch_call()
    assert s.log == [("start", "ProfilerStep#1"), ("end", "ProfilerStep#1"),
                     ("start", "ProfilerStep#2"), ("end", "ProfilerStep#2"),
                     ("start", "ProfilerStep#3")]


def test_gradient_accumulation_is_one_step_per_optimizer_step():
    s = Steps()
    t = s.tracker
    for _ in range(2):
        for _micro in range(4):
            t.on_torch_call()
        t.pre_step()
        t.post_step()
    t.on_torch_call()
    assert [e for e in s.log if e[0] == "start"] == [("start", "ProfilerStep#1"),
                                                     ("start", "ProfilerStep#2")]


def test_without_the_line_mode_the_step_ends_at_the_optimizer_step():
    s = Steps()
    t = s.tracker
    t.deferred = False
    for _ in range(2):
        t.pre_step()
        t.post_step()
    t.close()
    assert s.log == [("start", "ProfilerStep#1"), ("end", "ProfilerStep#1"),
                     ("start", "ProfilerStep#2"), ("end", "ProfilerStep#2")]


def test_other_threads_take_no_boundary():
    thread = [1]
    s = Steps(lambda: thread[0])
    t = s.tracker
    t.pre_step()
    t.post_step()  # thread 1 owns the steps
    thread[0] = 2
    t.on_torch_call()
    assert s.log == []
    thread[0] = 1
    t.on_torch_call()
    assert s.log == [("start", "ProfilerStep#1")]


def test_external_steps_stop_marking():
    s = Steps()
    t = s.tracker
    t.pre_step()
    t.post_step()
    t.on_torch_call()
    t.set_external()
    t.pre_step()
    t.post_step()
    t.on_torch_call()
    assert s.log == [("start", "ProfilerStep#1"), ("end", "ProfilerStep#1")]


def fake_torch(tmp_path):
    """A module shaped like torch where the hook uses it: overrides.TorchFunctionMode
    (entered mode is consulted by `call`, popped while its handler runs, as torch does),
    compiler.is_dynamo_compiling."""
    torch = types.ModuleType("faketorch")
    torch.__file__ = str(tmp_path / "faketorch" / "__init__.py")
    stack = []

    class TorchFunctionMode:
        def __enter__(self):
            stack.append(self)
            return self

        def __exit__(self, *exc):
            stack.remove(self)

    # torch calls the handler from C; here from a frame in the fake torch's folder.
    source = (
        "def call(func, *args):\n"
        "    if not stack:\n"
        "        return func(*args)\n"
        "    mode = stack.pop()\n"
        "    try:\n"
        "        return mode.__torch_function__(func, (), args, None)\n"
        "    finally:\n"
        "        stack.append(mode)\n")
    ns = {"stack": stack}
    exec(compile(source, os.path.join(os.path.dirname(torch.__file__), "overrides.py"), "exec"), ns)
    call = ns["call"]

    torch.overrides = types.SimpleNamespace(TorchFunctionMode=TorchFunctionMode)
    torch.compiler = types.SimpleNamespace(is_dynamo_compiling=lambda: False)
    torch.call = call
    return torch


class FakeLib:
    def __init__(self):
        self.log = []

    def cuscope_range_push_python(self, site):
        self.log.append(("push", site.file.decode(), site.line))
        return 1

    def cuscope_range_pop_python(self):
        self.log.append(("pop",))
        return 0


def test_line_mode_pushes_the_callers_line(tmp_path):
    torch = fake_torch(tmp_path)
    lib = FakeLib()
    frames = torch_hook.FrameFilter(os.path.dirname(torch.__file__))
    steps = Steps().tracker
    mode = torch_hook.make_line_mode(torch, lib, frames, torch_hook.SiteCache(), steps)
    mode.__enter__()
    try:
        line = sys._getframe().f_lineno + 1
        result = torch.call(lambda x: x + 1, 41)
    finally:
        mode.__exit__(None, None, None)
    assert result == 42
    assert lib.log == [("push", __file__, line), ("pop",)]


def test_line_mode_lets_metadata_and_views_through(tmp_path):
    torch = fake_torch(tmp_path)
    lib = FakeLib()
    frames = torch_hook.FrameFilter(os.path.dirname(torch.__file__))
    mode = torch_hook.make_line_mode(torch, lib, frames, torch_hook.SiteCache(),
                                     Steps().tracker)

    def size():
        return (8, 512)

    def view(shape):
        return shape

    mode.__enter__()
    try:
        assert torch.call(size) == (8, 512)
        assert torch.call(view, 3) == 3
    finally:
        mode.__exit__(None, None, None)
    assert lib.log == []


def test_line_mode_pops_when_the_op_raises(tmp_path):
    torch = fake_torch(tmp_path)
    lib = FakeLib()
    frames = torch_hook.FrameFilter(os.path.dirname(torch.__file__))
    mode = torch_hook.make_line_mode(torch, lib, frames, torch_hook.SiteCache(),
                                     Steps().tracker)
    mode.__enter__()

    def boom():
        raise ValueError("op failed")

    try:
        with pytest.raises(ValueError):
            torch.call(boom)
    finally:
        mode.__exit__(None, None, None)
    assert [e[0] for e in lib.log] == ["push", "pop"]


def test_line_mode_stays_out_of_compiled_tracing(tmp_path):
    torch = fake_torch(tmp_path)
    torch.compiler.is_dynamo_compiling = lambda: True
    lib = FakeLib()
    frames = torch_hook.FrameFilter(os.path.dirname(torch.__file__))
    mode = torch_hook.make_line_mode(torch, lib, frames, torch_hook.SiteCache(),
                                     Steps().tracker)
    mode.__enter__()
    try:
        assert torch.call(lambda: 7) == 7
    finally:
        mode.__exit__(None, None, None)
    assert lib.log == []


def test_sitecustomize_chains_to_the_next_one(tmp_path, monkeypatch):
    import subprocess
    site_dir = os.path.join(os.path.dirname(torch_hook.__file__), "_site")
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import os\nos.environ['CHAINED'] = '1'\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site_dir, str(other)]),
               CUSCOPE_PYTORCH="1")
    out = subprocess.run([sys.executable, "-c",
                          "import os, sys; print(os.environ.get('CHAINED'), "
                          "','.join(getattr(f, '__name__', type(f).__name__) "
                          "for f in sys.meta_path))"],
                         env=env, capture_output=True, text=True, check=True)
    chained, finders = out.stdout.split()
    assert chained == "1"
    # Ahead of the path finder that would load torch; a venv's setuptools shim
    # (DistutilsMetaFinder) may sit before it, which is harmless.
    names = finders.split(",")
    assert "_AfterTorch" in names
    assert names.index("_AfterTorch") < names.index("PathFinder")


def hookable_torch(tmp_path):
    """fake_torch with what Hook.start uses: cuda.nvtx (start/end ranges), emit_nvtx,
    cuda.synchronize, optim.optimizer's global step hooks, autograd.profiler.profile,
    and the function mode stack."""
    torch = fake_torch(tmp_path)
    log = []
    nvtx = types.ModuleType("faketorch.cuda.nvtx")
    nvtx.range_start = lambda name: log.append(("step", name)) or name
    nvtx.range_end = lambda handle: log.append(("end", handle))
    cuda = types.ModuleType("faketorch.cuda")
    cuda.nvtx = nvtx
    cuda.synchronize = lambda *a, **k: None
    torch.cuda = cuda
    sys.modules["faketorch"] = torch
    sys.modules["faketorch.cuda"] = cuda
    sys.modules["faketorch.cuda.nvtx"] = nvtx

    class EmitNvtx:
        def __init__(self, record_shapes=False):
            pass

        def __enter__(self):
            log.append("ops on")

        def __exit__(self, *exc):
            log.append("ops off")

    class Profile:
        def _prepare_trace(self):
            pass

        def __exit__(self, *exc):
            pass

    torch.autograd = types.SimpleNamespace(
        profiler=types.SimpleNamespace(emit_nvtx=EmitNvtx, profile=Profile))
    hooks = {"pre": [], "post": []}
    optimizer = types.SimpleNamespace(
        register_optimizer_step_pre_hook=hooks["pre"].append,
        register_optimizer_step_post_hook=hooks["post"].append)
    torch.optim = types.SimpleNamespace(optimizer=optimizer)
    mode_stack = torch.call.__globals__["stack"]
    torch.overrides._get_current_function_mode_stack = lambda: list(mode_stack)
    torch.overrides._pop_mode = mode_stack.pop
    torch.overrides._push_mode = mode_stack.append
    return torch, log, hooks, mode_stack


def test_ranges_end_after_the_attributed_steps(tmp_path):
    torch, log, hooks, mode_stack = hookable_torch(tmp_path)
    lib = FakeLib()
    hook = torch_hook.Hook(torch, lib, shapes=False, attributed_steps=2)
    try:
        hook.start()
        assert log == ["ops on"] and mode_stack == [hook.mode]

        def iteration():
            torch.call(lambda: None)  # the forward's first torch call
            for pre in hooks["pre"]:
                pre(None, (), {})
            for post in hooks["post"]:
                post(None, (), {})

        for _ in range(3):  # iteration 0, then ProfilerStep#1 and #2: attributed
            iteration()
        assert hook.attributing and "ops off" not in log
        pushes = len(lib.log)
        iteration()  # ProfilerStep#3 begins: the ranges end
        assert not hook.attributing
        assert log.count("ops off") == 1
        assert mode_stack == []  # the mode left at that iteration's optimizer step
        assert hook.steps.deferred is False
        iteration()
        iteration()
        # No line range after the switch; steps go on, now at each optimizer step.
        assert [e for e in lib.log[pushes:] if e[0] == "push"] == []
        steps = [e[1] for e in log if isinstance(e, tuple) and e[0] == "step"]
        assert steps[:3] == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
        assert len(steps) >= 5
    finally:
        for m in list(mode_stack):
            m.__exit__(None, None, None)
        for name in ("faketorch", "faketorch.cuda", "faketorch.cuda.nvtx"):
            sys.modules.pop(name, None)


def test_the_line_mode_leaves_from_under_a_mode_the_program_pushed(tmp_path):
    torch, log, hooks, mode_stack = hookable_torch(tmp_path)
    hook = torch_hook.Hook(torch, FakeLib(), shapes=False, attributed_steps=1)
    class Theirs:  # its call goes on to the modes under it, as in torch
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return torch.call(func, *args)

    theirs = Theirs()
    try:
        hook.start()
        ours = hook.mode
        mode_stack.append(theirs)  # as torch.set_default_device would, after our import
        for _ in range(3):
            torch.call(lambda: None)
            for post in hooks["post"]:
                post(None, (), {})
        assert not hook.attributing and hook.mode is None
        assert mode_stack == [theirs] and ours not in mode_stack
    finally:
        mode_stack.clear()
        for name in ("faketorch", "faketorch.cuda", "faketorch.cuda.nvtx"):
            sys.modules.pop(name, None)


def test_remove_mode_is_false_off_the_stack(tmp_path):
    torch, _, _, mode_stack = hookable_torch(tmp_path)
    a, b = object(), object()
    mode_stack.extend([a, b])
    assert torch_hook.remove_mode(torch, object()) is False
    assert mode_stack == [a, b]
    assert torch_hook.remove_mode(torch, a) is True
    assert mode_stack == [b]
    for name in ("faketorch", "faketorch.cuda", "faketorch.cuda.nvtx"):
        sys.modules.pop(name, None)


def test_every_step_attributed_with_zero(tmp_path):
    torch, log, hooks, mode_stack = hookable_torch(tmp_path)
    hook = torch_hook.Hook(torch, FakeLib(), shapes=False, attributed_steps=0)
    try:
        hook.start()
        for _ in range(6):
            torch.call(lambda: None)
            for post in hooks["post"]:
                post(None, (), {})
        assert hook.attributing and mode_stack == [hook.mode] and "ops off" not in log
    finally:
        for m in list(mode_stack):
            m.__exit__(None, None, None)
        for name in ("faketorch", "faketorch.cuda", "faketorch.cuda.nvtx"):
            sys.modules.pop(name, None)
