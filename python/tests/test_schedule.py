"""cuscope.schedule: torch.profiler.schedule's actions, step by step."""
import pytest

import cuscope
from cuscope import ProfilerAction as A


def actions(sched, steps):
    return [sched(s) for s in range(steps)]


def test_wait_warmup_active_cycle_repeats_forever():
    s = cuscope.schedule(wait=1, warmup=1, active=3)
    cycle = [A.NONE, A.WARMUP, A.RECORD, A.RECORD, A.RECORD_AND_SAVE]
    assert actions(s, 15) == cycle * 3
    assert not s.finished(10**6)


def test_skip_first_and_repeat_then_nothing():
    s = cuscope.schedule(wait=2, warmup=0, active=2, repeat=2, skip_first=3)
    assert actions(s, 14) == [A.NONE] * 3 + [A.NONE, A.NONE, A.RECORD, A.RECORD_AND_SAVE] * 2 + \
        [A.NONE] * 3
    assert [s.finished(i) for i in (10, 11, 12)] == [False, True, True]


def test_single_active_step_is_record_and_save():
    s = cuscope.schedule(wait=0, warmup=0, active=1, repeat=1)
    assert actions(s, 3) == [A.RECORD_AND_SAVE, A.NONE, A.NONE]
    assert s.finished(1) and not s.finished(0)


def test_only_record_actions_record():
    assert [a.records for a in A] == [False, False, True, True]


@pytest.mark.parametrize("kwargs", [
    dict(wait=-1, warmup=0, active=1),
    dict(wait=0, warmup=0, active=0),
    dict(wait=0, warmup=1.5, active=1),
    dict(wait=0, warmup=0, active=1, repeat=True),
])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        cuscope.schedule(**kwargs)
