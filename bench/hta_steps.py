#!/usr/bin/env python3
"""Holistic Trace Analysis (HTA) on a cuscope trace: loads it and finds its steps.

    python3 bench/hta_steps.py HTA_SOURCE TRACE_DIR [min_steps=2]

HTA_SOURCE: a checkout of facebookresearch/HolisticTraceAnalysis (its `hta` package is
imported from there; nothing is installed). TRACE_DIR: a folder with one Chrome trace
(`cuscope export --chrome`) per rank. Needs pandas and numpy; HTA's plotting and graph
imports (plotly, networkx) are stubbed when missing, since no figure is drawn.

Prints what HTA found: the ProfilerStep#N iterations, each one's kernels and GPU time
(from HTA's `iteration` column, which it fills from the ProfilerStep annotations and
the CPU-GPU correlation), and its temporal breakdown per rank. Exits 1 when HTA cannot
load the trace, finds fewer than min_steps steps, or ties no kernel to a step.
"""
import importlib.abc
import importlib.machinery
import os
import sys
import types


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Empty modules for the missing packages HTA imports but this check never calls
    (plotting, graphs): any name under `roots`; using one of their functions raises."""

    def __init__(self, roots):
        self.roots = roots

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = lambda attr: _absent(f"{spec.name}.{attr}")  # noqa: E731
        return module

    def exec_module(self, module):
        pass


def _absent(name):
    """A class (so that HTA may subclass it) that cannot be made or called."""
    def refuse(*args, **kwargs):
        raise RuntimeError(f"{name} is stubbed (not installed here)")
    return type(name.rsplit(".", 1)[-1], (), {"__init__": refuse})


def stub_missing(roots):
    missing = set()
    for root in roots:
        try:
            __import__(root)
        except ImportError:
            missing.add(root)
    if missing:
        sys.meta_path.append(StubFinder(missing))
    return missing


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    hta_source, trace_dir = sys.argv[1], sys.argv[2]
    min_steps = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    missing = stub_missing(("plotly", "networkx", "psutil"))
    if missing:
        print(f"(stubbed, not installed: {', '.join(sorted(missing))})")
    sys.path.insert(0, os.path.abspath(hta_source))
    from hta.trace_analysis import TraceAnalysis  # noqa: E402

    analyzer = TraceAnalysis(trace_dir=trace_dir)
    ok = True
    for rank, df in analyzer.t.get_all_traces().items():
        symbols = analyzer.t.symbol_table
        names = symbols.get_sym_table()
        step_ids = [i for i, s in enumerate(names) if s.startswith("ProfilerStep")]
        steps = df[df["name"].isin(step_ids)]
        kernel_cats = [symbols.sym_index[c] for c in ("kernel",) if c in symbols.sym_index]
        kernels = df[df["cat"].isin(kernel_cats)]
        in_step = kernels[kernels["iteration"] >= 0] if "iteration" in kernels else kernels[0:0]
        print(f"rank {rank}: {len(df)} events, {len(steps)} ProfilerStep#N annotations, "
              f"{len(kernels)} kernels, {len(in_step)} of them in a step")
        if "iteration" in kernels:
            per = in_step.groupby("iteration")["dur"].agg(["count", "sum"])
            for iteration, row in per.iterrows():
                print(f"  ProfilerStep#{int(iteration)}: {int(row['count'])} kernels, "
                      f"{row['sum'] / 1000.0:.3f} ms of GPU time")
        if len(steps) < min_steps or len(in_step) == 0:
            ok = False
    breakdown = analyzer.get_temporal_breakdown(visualize=False)
    print("\nHTA temporal breakdown:\n" + breakdown.to_string(index=False))
    print("\nHTA found the steps" if ok else "\nFAIL: HTA found too few steps or no kernel in one")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
