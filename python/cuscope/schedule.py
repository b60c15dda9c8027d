"""Which steps a profile records: torch.profiler.schedule's steps and actions.

A schedule maps a step number (0, 1, ...; `profile.step()` moves to the next) to an
action. Like torch.profiler.schedule: `skip_first` steps are skipped, then cycles of
`wait` steps (not recorded), `warmup` steps and `active` steps (recorded; the last
one of a cycle is RECORD_AND_SAVE) follow, `repeat` times (0: until the profile ends).

cuscope's warm-up: torch.profiler traces warm-up steps and throws their events away,
so that the tracer's start-up cost is not in the recorded steps. cuscope's session
starts (CUPTI subscribed, buffers allocated) when the profile is entered, so there is
nothing left to warm up: warm-up steps are not recorded, exactly like wait steps.
They are kept so that a torch.profiler schedule carries over unchanged, and they still
give the program time to settle (allocator, autotuning, compilation) before recording.
"""
import enum


class ProfilerAction(enum.Enum):
    NONE = 0             # not recorded
    WARMUP = 1           # not recorded (see the module's note)
    RECORD = 2           # recorded
    RECORD_AND_SAVE = 3  # recorded; the last recorded step of a cycle

    @property
    def records(self):
        return self in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class schedule:  # noqa: N801 (named like torch.profiler.schedule)
    """schedule(wait=1, warmup=1, active=3, repeat=0, skip_first=0): callable on a step."""

    def __init__(self, *, wait, warmup, active, repeat=0, skip_first=0):
        for name, value in (("wait", wait), ("warmup", warmup), ("active", active),
                            ("repeat", repeat), ("skip_first", skip_first)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"schedule: {name} must be an integer >= 0, not {value!r}")
        if active < 1:
            raise ValueError("schedule: active must be >= 1 (no step would be recorded)")
        self.wait, self.warmup, self.active = wait, warmup, active
        self.repeat, self.skip_first = repeat, skip_first

    @property
    def cycle(self):
        return self.wait + self.warmup + self.active

    def __call__(self, step):
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        if self.repeat > 0 and step // self.cycle >= self.repeat:
            return ProfilerAction.NONE
        at = step % self.cycle
        if at < self.wait:
            return ProfilerAction.NONE
        if at < self.wait + self.warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if at < self.cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    def finished(self, step):
        """True when neither `step` nor any later step is recorded."""
        if self.repeat == 0:
            return False
        return step >= self.skip_first + self.repeat * self.cycle

    def __repr__(self):
        return (f"cuscope.schedule(wait={self.wait}, warmup={self.warmup}, active={self.active}, "
                f"repeat={self.repeat}, skip_first={self.skip_first})")
