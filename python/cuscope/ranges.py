"""cuscope.range: a named region on the calling thread (the C ABI's scope push/pop)."""
import contextlib

from cuscope import _library


class range(contextlib.ContextDecorator):  # noqa: A001,N801 (named like torch.cuda.nvtx.range)
    """`with cuscope.range("forward"): ...` or `@cuscope.range("forward")`.

    Recorded as a region (docs/regions.md: a cuscope scope, domain "cuscope") while a
    session records, cheap otherwise. Regions nest per thread; leave them in the
    thread that entered them. Reentrant: one object can be entered again, on any
    thread, and used on recursive functions.
    """

    def __init__(self, name, library=None):
        self.name = str(name)
        self._library = library

    def __enter__(self):
        lib = self._library or _library.library()
        lib.range_push(self.name)
        return self

    def __exit__(self, *exc):
        lib = self._library or _library.library()
        lib.range_pop()
        return False

    def __repr__(self):
        return f"cuscope.range({self.name!r})"
