"""cuscope.profile's session and step logic, against a fake C ABI that records calls."""
import pytest

import cuscope
from cuscope import _library
from cuscope.profiler import STEP_CAPTURE, settings_text
from conftest import FakeLibrary

SCHED = dict(wait=1, warmup=1, active=3)


def regions(calls):
    return [c[1] for c in calls if c[0] == "push"]


def run_steps(p, steps):
    with p:
        for _ in range(steps):
            p.step()
    return p


def test_settings_text_names_values_and_schedule_capture():
    text = settings_text({"output": "run.sqlite", "metrics": ["roofline", "sol"],
                          "region_counters": True, "report": None, "CUSCOPE_TOP": 5},
                         cuscope.schedule(**SCHED))
    assert text.split(";") == ["CUSCOPE_OUTPUT=run.sqlite", "CUSCOPE_METRICS=roofline,sol",
                               "CUSCOPE_REGION_COUNTERS=1", "CUSCOPE_TOP=5",
                               "CUSCOPE_CAPTURE=" + STEP_CAPTURE]
    assert settings_text({"metrics": "roofline"}) == "CUSCOPE_METRICS=roofline"


def test_settings_refused_before_starting():
    with pytest.raises(ValueError, match="not both"):
        cuscope.profile(capture="all", schedule=cuscope.schedule(**SCHED))
    with pytest.raises(ValueError, match="';'"):
        cuscope.profile(output="a;CUSCOPE_API=all")
    with pytest.raises(ValueError, match="on_error"):
        cuscope.profile(on_error="ignore")


def test_schedule_records_only_active_steps_and_stops_when_done(fake):
    saved = []
    p = cuscope.profile(metrics="roofline", schedule=cuscope.schedule(**SCHED, repeat=1),
                        on_trace_ready=lambda prof: saved.append((prof.step_num, prof.active)),
                        library=fake)
    run_steps(p, 8)
    assert fake.calls[0] == ("start", "CUSCOPE_METRICS=roofline;CUSCOPE_CAPTURE=" + STEP_CAPTURE)
    # steps 0 (wait) and 1 (warmup) unmarked; 2..4 recorded; the session stops at step 5.
    assert fake.calls[1:] == [("push", "ProfilerStep#2"), ("pop",), ("push", "ProfilerStep#3"),
                              ("pop",), ("push", "ProfilerStep#4"), ("pop",), ("stop",)]
    assert saved == [(5, False)]
    assert p.output == "fake.sqlite" and fake.scopes == 0


def test_repeating_schedule_flushes_each_cycle_and_saves_at_exit(fake):
    saved = []
    p = cuscope.profile(schedule=cuscope.schedule(wait=0, warmup=1, active=2),
                        on_trace_ready=lambda prof: saved.append(prof.step_num), library=fake)
    run_steps(p, 5)  # steps 0..5: W R S | W R S(open at exit) -> exit during step 5
    assert regions(fake.calls) == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#4",
                                   "ProfilerStep#5"]
    assert [c for c in fake.calls if c[0] in ("flush", "stop")] == [("flush",), ("stop",)]
    assert saved == [3, 5]
    assert fake.scopes == 0


def test_without_schedule_every_step_is_a_region(fake):
    run_steps(cuscope.profile(output="x.sqlite", library=fake), 2)
    assert fake.calls[0] == ("start", "CUSCOPE_OUTPUT=x.sqlite")
    assert regions(fake.calls) == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
    assert fake.calls[-1] == ("stop",) and fake.scopes == 0


def test_a_plain_callable_schedule_works(fake):
    def every_other(step):
        return cuscope.ProfilerAction.RECORD if step % 2 else cuscope.ProfilerAction.NONE
    run_steps(cuscope.profile(schedule=every_other, library=fake), 4)
    assert regions(fake.calls) == ["ProfilerStep#1", "ProfilerStep#3"]


def test_an_exception_in_the_body_closes_the_step_and_stops(fake):
    with pytest.raises(KeyError):
        with cuscope.profile(library=fake) as p:
            p.step()
            raise KeyError("boom")
    assert fake.calls[-2:] == [("pop",), ("stop",)] and fake.scopes == 0


def test_step_outside_the_profile_is_an_error():
    with pytest.raises(RuntimeError, match="outside"):
        cuscope.profile(library=FakeLibrary()).step()


def test_a_running_session_is_joined_and_left_running():
    lib = FakeLibrary(start_error=_library.ERROR_ALREADY_ACTIVE)
    lib.running = True  # as under `cuscope run`
    with pytest.warns(UserWarning, match="runs already"):
        p = run_steps(cuscope.profile(library=lib), 1)
    assert ("stop",) not in lib.calls and regions(lib.calls) == ["ProfilerStep#0", "ProfilerStep#1"]
    assert p.output == "fake.sqlite"


@pytest.mark.parametrize("code,on_error,raises", [
    (_library.ERROR_CUPTI, "raise", True),
    (_library.ERROR_INVALID_SETTING, "raise", True),
    (_library.ERROR_CUPTI, "warn", False),
    (_library.ERROR_DISABLED, "raise", False),
])
def test_a_refused_start_raises_or_warns(code, on_error, raises):
    lib = FakeLibrary(start_error=code)
    p = cuscope.profile(on_error=on_error, library=lib)
    if raises:
        with pytest.raises(cuscope.CuscopeError) as e:
            p.__enter__()
        assert e.value.code == code and "fake refusal" in str(e.value)
    else:
        with pytest.warns(UserWarning, match="not profiling"):
            run_steps(p, 2)
        assert ("stop",) not in lib.calls and lib.scopes == 0 and p.output is None
