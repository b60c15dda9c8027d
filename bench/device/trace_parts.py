#!/usr/bin/env python3
"""Which part of cuscope's trace costs what on a launch-bound PyTorch loop (issue #33's
add_ loop), on the GPU machine: examples/python/add_loop.py (20,000 x.add_(1), the
median of 5 loops in one process) run plain, under the CUPTI floor
(bench/device/cupti_floor.cc, default kinds), under cuscope with every part of the trace
and with parts turned off one at a time (no counters in any), and under torch.profiler
(CUDA activities), interleaved, ROUNDS rounds, on the same CPUs.

    python3 bench/device/trace_parts.py BUILD_DIR [ROUNDS=3]

Prints a markdown table: us per op, median and samples, and the cost added to plain.
"""
import os
import statistics
import subprocess
import sys

build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
lib = os.path.join(build, "lib", "libcuscope.so")
floor = os.path.join(build, "lib", "libcupti_floor.so")
loop = ["python3", os.path.join(src, "examples", "python", "add_loop.py"), "20000", "5"]
cpus = {2, 3, 4, 5} & os.sched_getaffinity(0)

# cuscope's settings per mode (CUSCOPE_METRICS=none in every one).
CUSCOPE = {
    "cuscope (trace, default)": {},
    "cuscope --api=none": {"CUSCOPE_API": "none"},
    "cuscope --trace=kernel": {"CUSCOPE_TRACE": "kernel"},
    "cuscope --trace=kernel --api=none": {"CUSCOPE_TRACE": "kernel", "CUSCOPE_API": "none"},
    "cuscope no nvtx": {"CUSCOPE_TRACE": "kernel,memcpy,memset,api,sync,overhead"},
    "cuscope --advise=0 --flush-period-ms=0": {"CUSCOPE_ADVISE": "0",
                                               "CUSCOPE_FLUSH_PERIOD_MS": "0"},
}
MODES = ["plain", "floor", *CUSCOPE, "torch.profiler"]


def env_for(mode):
    env = dict(os.environ)
    for k in ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH"):
        env.pop(k, None)
    if mode == "floor":
        env["CUDA_INJECTION64_PATH"] = floor
        env["CUPTI_FLOOR_KINDS"] = "kernel,runtime,memcpy,sync,marker"
    elif mode in CUSCOPE:
        env.update(CUDA_INJECTION64_PATH=lib, NVTX_INJECTION64_PATH=lib,
                   CUSCOPE_OUTPUT="/tmp/trace-parts-%p.sqlite", CUSCOPE_REPORT="none",
                   CUSCOPE_METRICS="none")
        env.update(CUSCOPE[mode])
    return env


def measure(mode):
    args = loop + (["--torch-profiler"] if mode == "torch.profiler" else [])
    p = subprocess.run(args, env=env_for(mode), capture_output=True, text=True, timeout=300,
                       preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
    for line in p.stdout.splitlines():
        if line.startswith("TORCH "):
            return float(line.split()[2])
    raise RuntimeError(f"{mode}: no TORCH line\n{p.stdout}\n{p.stderr}")


samples = {m: [] for m in MODES}
for _ in range(rounds):
    for m in MODES:
        samples[m].append(measure(m))
med = {m: statistics.median(v) for m, v in samples.items()}
print(f"### PyTorch x.add_(1), 20,000 ops: the trace's parts ({rounds} interleaved rounds)\n")
print("| mode | us per op (median) | added vs plain | samples |")
print("| --- | --- | --- | --- |")
for m in MODES:
    print(f"| {m} | {med[m]:.3f} | {med[m] - med['plain']:+.3f} | "
          f"{', '.join(f'{x:.2f}' for x in samples[m])} |")
