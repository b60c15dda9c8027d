"""cuscope's PyTorch hook (`cuscope run --pytorch` puts this folder first on PYTHONPATH).

Runs the next sitecustomize on sys.path (the program's own, if any), then waits for
torch to be imported and calls torch_hook.install() right after torch's import ends,
on the importing thread. Imports nothing but the standard library before that.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _chain():
    """Runs the sitecustomize that this one hides, if any."""
    for entry in sys.path:
        folder = os.path.abspath(entry or os.getcwd())
        if folder == _HERE:
            continue
        path = os.path.join(folder, "sitecustomize.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_cuscope_next_sitecustomize", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return


def _load_hook():
    for path in (os.path.join(_HERE, "torch_hook.py"),
                 os.path.join(os.path.dirname(_HERE), "torch_hook.py")):
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("_cuscope_torch_hook", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules["_cuscope_torch_hook"] = module
            spec.loader.exec_module(module)
            return module
    return None


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Finds nothing; wraps torch's loader so that the hook installs after torch."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            try:
                hook = _load_hook()
                if hook is not None:
                    hook.install(module)
            except Exception as e:  # attribution is optional; the program runs on
                sys.stderr.write("cuscope: PyTorch hook not installed: {!r}\n".format(e))

        spec.loader.exec_module = exec_module
        return spec


try:
    _chain()
finally:
    if os.environ.get("CUSCOPE_PYTORCH", "0").lower() in ("1", "true", "yes", "on"):
        if "torch" in sys.modules:
            _hook = _load_hook()
            if _hook is not None:
                _hook.install(sys.modules["torch"])
        else:
            sys.meta_path.insert(0, _AfterTorch())
