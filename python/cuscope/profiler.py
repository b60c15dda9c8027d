"""cuscope.profile: a profiling session over the C ABI, with torch.profiler's steps.

    with cuscope.profile(metrics="roofline", output="run.sqlite",
                         schedule=cuscope.schedule(wait=1, warmup=1, active=3)) as p:
        for batch in data:
            train_step(batch)
            p.step()

One session (cuscope_start .. cuscope_stop) runs from entering the profile to leaving
it, or until a schedule with `repeat` has no recorded step left. Each recorded step is
a region named ProfilerStep#N, as torch.profiler names its steps; with a schedule, the
session records by capture control (CUSCOPE_CAPTURE=range:^ProfilerStep#[0-9]+$), so
kernels, copies, memsets and syncs are recorded only inside recorded steps (API calls
and regions are recorded throughout, as docs/configuration.md says of capture).
"""
import sys
import warnings

from cuscope import _library
from cuscope.schedule import ProfilerAction

STEP_REGION = "ProfilerStep#{}"
STEP_CAPTURE = "range:^ProfilerStep#[0-9]+$"


def _setting_name(key):
    return key if key.startswith("CUSCOPE_") else "CUSCOPE_" + key.upper()


def _setting_value(name, value):
    if isinstance(value, bool):
        text = "1" if value else "0"
    elif isinstance(value, (list, tuple, set, frozenset)):
        text = ",".join(str(v) for v in value)
    else:
        text = str(value)
    if ";" in text or "\n" in text:
        raise ValueError(f"{name}={text!r}: a setting's value cannot hold ';' or a newline")
    return text


def settings_text(settings, schedule=None):
    """The cuscope_start text for keyword settings (output="x" -> CUSCOPE_OUTPUT=x)."""
    pairs = {}
    for key, value in settings.items():
        if value is None:
            continue
        name = _setting_name(key)
        pairs[name] = _setting_value(name, value)
    if schedule is not None:
        if "CUSCOPE_CAPTURE" in pairs:
            raise ValueError("profile: give a schedule or a capture setting, not both "
                             "(the schedule records by capture control)")
        pairs["CUSCOPE_CAPTURE"] = STEP_CAPTURE
    return ";".join(f"{k}={v}" for k, v in pairs.items())


def _always_record(_step):
    return ProfilerAction.RECORD


def _loaded_torch_hook():
    """The PyTorch hook when it runs in this process (cuscope run --pytorch's, or ours)."""
    return sys.modules.get("_cuscope_torch_hook") or sys.modules.get("cuscope.torch_hook")


def _pytorch_hook(settings):
    """profile(pytorch=True): the hook of `cuscope run --pytorch`, in this process (torch
    must be imported already)."""
    on = any(pair.strip() in ("CUSCOPE_PYTORCH=1", "CUSCOPE_PYTORCH=true")
             for pair in settings.replace("\n", ";").split(";"))
    if on and "torch" in sys.modules and _loaded_torch_hook() is None:
        from . import torch_hook
        torch_hook.install(sys.modules["torch"])


def _torch_hook_steps_external():
    """profile.step() marks the steps: the hook stops marking its own."""
    hook = _loaded_torch_hook()
    if hook is not None:
        hook.note_external_steps()


class profile:  # noqa: N801 (named like torch.profiler.profile)
    """A profiling session; see the module's note. Keyword settings are cuscope's
    (docs/configuration.md) without the CUSCOPE_ prefix: output, metrics, report,
    trace, api, kernels, regions, ... Lists become comma lists, booleans 1/0.

    on_trace_ready(profile) is called after each cycle of a schedule (the records of
    completed work flushed to `profile.output`: a kernel still running comes with a
    later flush) and when the profile ends during recorded steps.
    on_error="raise" (the default) raises CuscopeError when the session cannot start;
    "warn" warns and runs on unprofiled. When a session runs already (`cuscope run`),
    its settings apply: the profile records into it, warns, and leaves it running.
    """

    def __init__(self, *, schedule=None, on_trace_ready=None, on_error="raise", library=None,
                 **settings):
        if on_error not in ("raise", "warn"):
            raise ValueError(f"profile: on_error is 'raise' or 'warn', not {on_error!r}")
        self.settings = settings_text(settings, schedule)
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.on_error = on_error
        self._library = library
        self._lib = None
        self._owns = False      # this profile started the session
        self._in_region = False  # a ProfilerStep region is open
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self.output = None

    # -- session ---------------------------------------------------------------

    def start(self):
        self._lib = self._library or _library.library()
        recording = True
        try:
            self._lib.start(self.settings)
            self._owns = True
        except _library.CuscopeError as e:
            if e.code == _library.ERROR_ALREADY_ACTIVE:
                warnings.warn("cuscope: a session runs already (cuscope run?); recording into "
                              "it with its settings", stacklevel=3)
            elif e.code == _library.ERROR_DISABLED or self.on_error == "warn":
                warnings.warn(f"cuscope: not profiling: {e}", stacklevel=3)
                recording = False
            else:
                raise
        self.output = (self._lib.output_path() or None) if recording else None
        if recording:
            _pytorch_hook(self.settings)
        self.step_num = 0
        self.current_action = self._action(0)
        self._open_step()
        return self

    def stop(self):
        if self._lib is None:
            return
        self._close_step()
        self._stop_session()
        if self.current_action.records and self.on_trace_ready is not None:
            self.current_action = ProfilerAction.NONE
            self.on_trace_ready(self)

    def step(self):
        """Ends the current step and begins the next (call it on the entering thread)."""
        if self._lib is None:
            raise RuntimeError("profile.step() outside the profile (enter it, or call start())")
        _torch_hook_steps_external()
        previous = self.current_action
        self._close_step()
        self.step_num += 1
        self.current_action = self._action(self.step_num)
        if previous is ProfilerAction.RECORD_AND_SAVE:
            self._end_cycle()
        self._open_step()

    @property
    def active(self):
        """True while this profile's session records."""
        return self._owns and self._lib is not None and self._lib.is_active()

    def load(self, **kwargs):
        """The profile written so far (cuscope.load(self.output))."""
        from cuscope.tables import load
        if not self.output:
            raise RuntimeError("profile.load(): no profile was written (the session did not run)")
        return load(self.output, **kwargs)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        try:
            self.stop()
        except _library.CuscopeError as e:
            if exc is None:
                raise
            warnings.warn(f"cuscope: {e}", stacklevel=2)
        return False

    # -- steps ---------------------------------------------------------------

    def _action(self, step):
        return (self.schedule or _always_record)(step)

    def _finished(self, step):
        finished = getattr(self.schedule, "finished", None)
        return finished is not None and finished(step)

    def _open_step(self):
        if self.current_action.records and not self._in_region:
            self._lib.range_push(STEP_REGION.format(self.step_num))
            self._in_region = True

    def _close_step(self):
        if self._in_region:
            self._lib.range_pop()
            self._in_region = False

    def _end_cycle(self):
        if self._finished(self.step_num):
            self._stop_session()  # nothing left to record: the rest runs untraced
        elif self.on_trace_ready is not None and self._owns and self._lib.is_active():
            self._lib.flush()
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _stop_session(self):
        if self._owns and self._lib.is_active():
            self._owns = False
            self._lib.stop()
            self.output = self._lib.output_path() or self.output
