"""Finding libcuscope.so, and the package over the real library (no GPU needed)."""
import ctypes
import os
import re
import threading
import warnings

import pytest

import cuscope
from cuscope import _library
from conftest import depth


def test_cuscope_library_wins(tmp_path):
    named, beside = tmp_path / "named.so", tmp_path / "pkg"
    named.write_bytes(b"")
    beside.mkdir()
    (beside / "libcuscope.so").write_bytes(b"")
    assert _library.find_library({"CUSCOPE_LIBRARY": str(named)}, str(beside)) == str(named)
    assert _library.find_library({}, str(beside)) == str(beside / "libcuscope.so")


def test_the_versioned_name_beside_the_package_is_found(tmp_path):
    (tmp_path / "libcuscope.so.0").write_bytes(b"")
    assert _library.find_library({}, str(tmp_path)) == str(tmp_path / "libcuscope.so.0")


def test_neither_place_gives_an_error_naming_both(tmp_path):
    with pytest.raises(cuscope.LibraryNotFoundError) as e:
        _library.find_library({}, str(tmp_path))
    assert "CUSCOPE_LIBRARY" in str(e.value) and str(tmp_path) in str(e.value)


def test_a_wrong_cuscope_library_is_named(tmp_path):
    missing = tmp_path / "nope.so"
    with pytest.raises(cuscope.LibraryNotFoundError) as e:
        _library.find_library({"CUSCOPE_LIBRARY": str(missing)}, str(tmp_path))
    assert f"CUSCOPE_LIBRARY={missing}" in str(e.value) and str(tmp_path) in str(e.value)


def test_the_real_library_answers_without_a_session(real_library):
    assert re.fullmatch(r"\d+\.\d+\.\d+", cuscope.version())
    assert os.path.samefile(real_library.path, os.environ["CUSCOPE_LIBRARY"])
    assert not real_library.is_active()
    with pytest.raises(cuscope.CuscopeError) as e:
        real_library.stop()
    assert e.value.code == _library.ERROR_NOT_ACTIVE and e.value.code_name in str(e.value)


def test_an_invalid_setting_is_refused_by_the_library(real_library):
    with pytest.raises(cuscope.CuscopeError) as e:
        with cuscope.profile(api="bogus"):
            pass
    assert e.value.code == _library.ERROR_INVALID_SETTING and "CUSCOPE_API" in str(e.value)
    assert depth(real_library) == 0


def test_ranges_nest_and_balance(real_library):
    @cuscope.range("decorated")
    def work(x):
        assert depth(real_library) == 2
        return x * 2

    with cuscope.range("outer") as r:
        assert r.name == "outer" and depth(real_library) == 1
        assert work(21) == 42
    with pytest.raises(ZeroDivisionError):
        cuscope.range("raises")(lambda: 1 / 0)()
    assert depth(real_library) == 0


def test_ranges_are_per_thread(real_library):
    seen = []
    with cuscope.range("main"):
        t = threading.Thread(target=lambda: seen.append(depth(real_library)))
        t.start()
        t.join()
        assert depth(real_library) == 1
    assert seen == [0]


def test_a_scheduled_profile_runs_with_the_real_library(real_library, tmp_path):
    """Without a GPU the start is refused by CUPTI (never by the settings: the capture
    setting the schedule adds is valid); with one, the profile holds the active steps."""
    out = tmp_path / "sched.sqlite"
    saved = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with cuscope.profile(output=str(out), report="none", on_error="warn",
                             schedule=cuscope.schedule(wait=1, warmup=1, active=2, repeat=1),
                             on_trace_ready=saved.append) as p:
            for _ in range(6):
                with cuscope.range("work"):
                    pass
                p.step()
    assert depth(real_library) == 0 and not real_library.is_active()
    refused = [str(x.message) for x in w]
    if refused:
        assert "CUSCOPE_ERROR_CUPTI" in refused[0], refused
        assert saved == [p]  # the schedule still ran its course
    else:
        names = [r.name for r in cuscope.load(str(out)).regions]
        assert [n for n in names if n.startswith("ProfilerStep")] == ["ProfilerStep#2",
                                                                       "ProfilerStep#3"]


def test_without_a_cuda_driver_the_error_names_it(real_library, tmp_path):
    """On a machine without libcuda.so.1 the start fails saying so, as `cuscope metrics`
    does (not only CUPTI's CUPTI_ERROR_UNKNOWN)."""
    try:
        ctypes.CDLL("libcuda.so.1")
        pytest.skip("a CUDA driver is installed here")
    except OSError:
        pass
    with pytest.raises(cuscope.CuscopeError) as e:
        with cuscope.profile(output=str(tmp_path / "x.sqlite")):
            pass
    assert "no CUDA driver (libcuda.so.1) on this machine" in str(e.value)
