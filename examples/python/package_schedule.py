"""The cuscope Python package on PyTorch: a scheduled profile, regions, and the
profile's tables read back, with checks (exit 1 if one fails).

    pip install ./python                        # or: PYTHONPATH=python
    CUSCOPE_LIBRARY=$PWD/build/lib/libcuscope.so python3 examples/python/package_schedule.py
    build/bin/cuscope report package-schedule.sqlite

Trains a small MLP for 8 steps under
`cuscope.profile(metrics="roofline", schedule=cuscope.schedule(wait=1, warmup=1, active=3, repeat=1))`:
steps 0 (wait) and 1 (warm-up) are not recorded, 2..4 are (regions ProfilerStep#2..4),
the session stops after step 4 (the schedule is done) and steps 5..7 run untraced.
Checks: exactly those three step regions; kernels recorded, and every recorded kernel
launched inside one of them; counters measured (with --metrics). Run it plainly, not
under `cuscope run` (the program starts its own session).
"""
import argparse
import os
import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
try:
    import cuscope
except ImportError:  # not installed: the repository's copy
    sys.path.insert(0, str(REPO / "python"))
    import cuscope
if "CUSCOPE_LIBRARY" not in os.environ and (REPO / "build/lib/libcuscope.so").is_file():
    os.environ["CUSCOPE_LIBRARY"] = str(REPO / "build/lib/libcuscope.so")

import torch  # noqa: E402


def train(p, steps):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device="cuda")
    for _ in range(steps):
        with cuscope.range("forward"):
            loss = model(x).square().mean()
        with cuscope.range("backward"):
            loss.backward()
        with cuscope.range("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        p.step()


def check(prof, want_counters):
    failures = []
    steps = [r for r in prof.regions if r.name.startswith("ProfilerStep#")]
    names = [r.name for r in steps]
    if names != ["ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4"]:
        failures.append(f"step regions {names}, expected ProfilerStep#2..4")
    launches = {a.correlation_id: a for a in prof.api_calls}
    outside = [k for k in prof.kernels
               if k.correlation_id not in launches or not any(
                   s.start_ns <= launches[k.correlation_id].start_ns <= s.end_ns for s in steps)]
    if not prof.kernels:
        failures.append("no kernels recorded")
    if outside:
        failures.append(f"{len(outside)} of {len(prof.kernels)} kernels launched outside the "
                        f"recorded steps (first: {outside[0].name[:60]})")
    if want_counters and not prof.counters:
        failures.append("no counters measured")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output", default="package-schedule.sqlite")
    ap.add_argument("--metrics", default="roofline", help="'' for none")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("package_schedule: no CUDA device", file=sys.stderr)
        return 3
    print(f"cuscope {cuscope.version()} from {cuscope.library().path}")
    saved = []
    with cuscope.profile(output=args.output, metrics=args.metrics or None, report="none",
                         schedule=cuscope.schedule(wait=1, warmup=1, active=3, repeat=1),
                         on_trace_ready=lambda p: saved.append(p.step_num)) as p:
        train(p, 8)
    prof = cuscope.load(p.output)
    print(f"profile: {p.output} (on_trace_ready at step {saved})")
    print(f"{len(prof.kernels)} kernels, {len(prof.api_calls)} API calls, "
          f"{len(prof.regions)} regions, {len(prof.counters)} counter values")
    for s in prof.kernel_summary[:5]:
        print(f"  {s.total_ns / 1e3:10.1f} us  {s.launches:4d}x  {s.name[:70]}")
    failures = check(prof, bool(args.metrics))
    if saved != [5]:
        failures.append(f"on_trace_ready called at steps {saved}, expected [5]")
    for f in failures:
        print(f"package_schedule: FAIL {f}", file=sys.stderr)
    print("package_schedule: " + ("ok" if not failures else f"{len(failures)} check(s) failed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
