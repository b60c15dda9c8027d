"""Shared fixtures: the real libcuscope.so (CUSCOPE_LIBRARY), a fake one that records
the C ABI calls, and the recorded profiles of tests/data."""
import os
import pathlib

import pytest

import cuscope
from cuscope import _library

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(os.environ.get("CUSCOPE_TEST_DATA", REPO / "tests" / "data"))


@pytest.fixture
def real_library():
    """The build's libcuscope.so. Skipped when CUSCOPE_LIBRARY is unset, unless
    CUSCOPE_TEST_REQUIRE_LIBRARY=1 (scripts/python_test.sh) makes that a failure."""
    if not os.environ.get(_library.ENV_VAR):
        if os.environ.get("CUSCOPE_TEST_REQUIRE_LIBRARY") == "1":
            pytest.fail("CUSCOPE_LIBRARY is not set (CUSCOPE_TEST_REQUIRE_LIBRARY=1)")
        pytest.skip("CUSCOPE_LIBRARY is not set")
    return cuscope.library()


def depth(lib):
    """The calling thread's open scopes, measured by a push/pop probe."""
    lib.range_push("depth-probe")
    return lib.range_pop()


class FakeLibrary:
    """Stands for cuscope._library.Library: records calls; start can be made to fail."""

    def __init__(self, start_error=None):
        self.calls = []
        self.start_error = start_error
        self.running = False
        self.scopes = 0

    def start(self, settings):
        self.calls.append(("start", settings))
        if self.start_error is not None:
            raise _library.CuscopeError("cuscope_start", self.start_error, "fake refusal")
        self.running = True
        return 0

    def stop(self):
        self.calls.append(("stop",))
        self.running = False
        return 0

    def flush(self):
        self.calls.append(("flush",))
        return 0

    def is_active(self):
        return self.running

    def output_path(self):
        return "fake.sqlite"

    def range_push(self, name):
        self.calls.append(("push", name))
        self.scopes += 1
        return self.scopes if self.running else 0

    def range_pop(self):
        self.calls.append(("pop",))
        self.scopes -= 1
        return self.scopes


@pytest.fixture
def fake():
    return FakeLibrary()
