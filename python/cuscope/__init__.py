"""cuscope from Python: profiling sessions with torch.profiler's schedule, regions,
and the profile's tables, over libcuscope.so's C ABI (include/cuscope/cuscope_c.h).

    import cuscope
    with cuscope.profile(metrics="roofline", output="run.sqlite",
                         schedule=cuscope.schedule(wait=1, warmup=1, active=3)) as p:
        for batch in data:
            with cuscope.range("forward"):
                loss = model(batch)
            p.step()
    prof = cuscope.load("run.sqlite")       # .kernels, .api_calls, .regions, ...

libcuscope.so comes from CUSCOPE_LIBRARY, else from beside this package (README.md).
"""
from cuscope._library import (CuscopeError, Library, LibraryNotFoundError, find_library,
                              library)
from cuscope.profiler import profile
from cuscope.ranges import range  # noqa: A004 (cuscope.range, like torch.cuda.nvtx.range)
from cuscope.schedule import ProfilerAction, schedule
from cuscope.tables import TABLES, Profile, load

__version__ = "0.1.0"


def version():
    """The version of the loaded libcuscope.so ("MAJOR.MINOR.PATCH")."""
    return library().version()


__all__ = ["CuscopeError", "Library", "LibraryNotFoundError", "Profile", "ProfilerAction",
           "TABLES", "find_library", "library", "load", "profile", "range", "schedule",
           "version"]
