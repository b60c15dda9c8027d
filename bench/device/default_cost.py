#!/usr/bin/env python3
"""What counters cost on a short real run, per strategy and per number of passes
(issue #32, "why 155 ms a launch"), on the GPU machine:

    python3 bench/device/default_cost.py BUILD_DIR OUT_DIR [model=gpt2] [steps=12] [modes]

A training step (bench/device/gpt2_step.py, or vit_step.py for model=vit) run for
`steps` steps unprofiled, traced, and under counter configurations of 1, 2 and 7 passes
measured by kernel replay (one launch of each signature, all passes on it) and by rotate
(user replay: passes on successive launches), in that order, one run each. `modes` is a
comma list of the names below (default: all). For each: the whole run's wall time, the
first and second steps, the slowest step after the second, the median of steps 3 and
later (CUDA events around each step, printed by the step script), each as a ratio to
the unprofiled run of the same call; and from the profile: signatures with a counter
set of all of them, the share of kernel time those signatures own, launches measured.
An unprofiled warm-up run comes first (the first run of a call pays cold file and module
caches). Prints one markdown table; profiles and logs go to OUT_DIR.

DEFAULT_COST_ROUNDS=R (R > 1) then runs the modes R more times, interleaved (the order
turns each round), and prints the steady steps paired: each mode's median of steps 3+
over the unprofiled run's of the same round, per round and the median over rounds (one
process a mode swings by up to 25% on the GPU machine; paired rounds average that out).
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

build = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
model = sys.argv[3] if len(sys.argv) > 3 else "gpt2"
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 12
only = sys.argv[5].split(",") if len(sys.argv) > 5 else None
here = os.path.dirname(os.path.abspath(__file__))
cuscope = os.path.join(build, "bin", "cuscope")
step_cmd = ["python3", os.path.join(here, f"{model.split(':')[0]}_step.py"), str(steps)]
step_cmd += model.split(":")[1:]  # the step script's own arguments (vit:32:6)
os.makedirs(out, exist_ok=True)
env = dict(os.environ, PYTHONUNBUFFERED="1")

# One pass on GH100 (cuscope metrics --chip=GH100 --set=...): issue, ALU, tensor and LSU
# pipes, DRAM, L2 sectors and L1 wavefronts, and the duration.
ONE_PASS = ",".join([
    "sm__issue_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
    "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
    "gpu__time_duration.sum",
])
TWO_PASS = ONE_PASS + ",sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"


def verdict_with_l2_tags():
    """The verdict set as this build lists it for GH100, with L2 tag requests in place of
    the L2-to-crossbar part (still one pass): docs/counters.md's lead for copies busy on
    L2 tags, to measure beside the default (`dt`)."""
    p = subprocess.run([cuscope, "metrics", "--chip=GH100", "--set=verdict", "--format=json"],
                       capture_output=True, text=True, check=True)
    names = [m["name"] for m in json.loads(p.stdout)["sets"][0]["metrics"]]
    swap = "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"
    if swap not in names:
        raise SystemExit(f"default_cost.py: the verdict set has no {swap}: nothing to swap")
    tags = "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed"
    return ",".join(tags if n == swap else n for n in names)


def traced(*flags):
    return lambda p: [cuscope, "run", f"--output={p}", "--report=none", *flags, "--"] + step_cmd


MODES = {
    "unprofiled": lambda p: step_cmd,
    "trace": traced("--metrics=none"),
    # The trace's parts on a host-bound step (ViT): without API records, kernels only.
    "trace, no API records": traced("--metrics=none", "--api=none"),
    "trace, kernels only": traced("--metrics=none", "--api=none", "--trace=kernel"),
    # torch.profiler with CUDA activities only (bench/device/step_loop.py): Kineto's
    # CUPTI client on the same steps.
    "torch.profiler (CUDA)": lambda p: ["env", "STEP_TORCH_PROFILER=cuda"] + step_cmd,
    # No counter flags: the default (the verdict set, measured by the sweep).
    "default (no flags)": traced(),
    "default, L2 tag requests for L2-to-crossbar": lambda p: traced(
        f"--metrics={verdict_with_l2_tags()}")(p),
    # PC sampling (--source: counters off), issue #36's cost on a real step.
    "source (PC sampling)": traced("--source"),
    # The default with the launch callbacks kept on (no idle switch).
    "default, callbacks kept on": traced("--idle-launches=0"),
    "kernel replay, 1 pass": traced(f"--metrics={ONE_PASS}", "--replay=kernel"),
    "kernel replay, 2 passes": traced(f"--metrics={TWO_PASS}", "--replay=kernel"),
    "kernel replay, roofline (7)": traced("--metrics=roofline", "--replay=kernel"),
    "rotate, 1 pass": traced(f"--metrics={ONE_PASS}", "--replay=rotate"),
    "rotate, 2 passes": traced(f"--metrics={TWO_PASS}", "--replay=rotate"),
    # Every launch in windows of one pass each: what a range costs with this set.
    "rotate, 1 pass, every launch": traced(f"--metrics={ONE_PASS}", "--replay=rotate",
                                           "--per-signature=all"),
    "rotate, roofline (7)": traced("--metrics=roofline", "--replay=rotate"),
    # The verdict set (one pass on GH100): auto picks the sweep; kernel replay beside it.
    "verdict (auto: sweep)": traced("--metrics=verdict"),
    "verdict, kernel replay": traced("--metrics=verdict", "--replay=kernel"),
}
KEYS = {"unprofiled": "u", "trace": "t", "trace, no API records": "ta",
        "trace, kernels only": "tk", "torch.profiler (CUDA)": "tp", "default (no flags)": "d",
        "default, L2 tag requests for L2-to-crossbar": "dt", "default, callbacks kept on": "d0", "source (PC sampling)": "s", "kernel replay, 1 pass": "k1",
        "kernel replay, 2 passes": "k2", "kernel replay, roofline (7)": "k7",
        "rotate, 1 pass": "r1", "rotate, 2 passes": "r2", "rotate, 1 pass, every launch": "r1a", "rotate, roofline (7)": "r7",
        "verdict (auto: sweep)": "vs", "verdict, kernel replay": "vk"}


def run(name):
    tag = model.replace(":", "_")
    path = os.path.join(out, f"{tag}-{KEYS[name]}.sqlite")
    if os.path.exists(path):
        os.remove(path)
    t0 = time.perf_counter()
    p = subprocess.run(MODES[name](path), env=env, capture_output=True, text=True, timeout=540)
    wall = time.perf_counter() - t0
    with open(os.path.join(out, f"{tag}-{KEYS[name]}.log"), "w") as f:
        f.write(p.stdout + "\n--- stderr\n" + p.stderr)
    ms = [float(l.split()[2]) for l in p.stdout.splitlines() if l.startswith("step ")]
    return {"rc": p.returncode, "wall": wall, "steps": ms, "path": path}


def coverage(path):
    """(signatures with a set, signatures, % of kernel time they own, launches measured)."""
    if not os.path.exists(path):
        return None
    db = sqlite3.connect(path)
    sig = "name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z"
    times = {r[:-1]: r[-1] for r in db.execute(
        f"SELECT {sig}, SUM(end_ns - start_ns) FROM kernels GROUP BY {sig}")}
    measured = {r for r in db.execute(f"SELECT DISTINCT {sig} FROM counter_sets")}
    launches = db.execute("SELECT COUNT(*) FROM counter_launches").fetchone()[0]
    total = sum(times.values()) or 1
    covered = sum(t for s, t in times.items() if s in measured)
    return len(measured & set(times)), len(times), 100.0 * covered / total, launches


def last_measured_step(path):
    """The last step (0-based: which `step` NVTX range held the launch call) in which a
    launch was measured; None without steps or measured launches."""
    if not os.path.exists(path):
        return None
    db = sqlite3.connect(path)
    steps = [r for r in db.execute(
        "SELECT start_ns, end_ns FROM ranges_named WHERE name = 'step' ORDER BY start_ns")]
    calls = [r[0] for r in db.execute(
        "SELECT a.start_ns FROM api_calls a JOIN counter_launches c "
        "ON a.correlation_id = c.correlation_id")]
    found = [i for t in calls for i, (b, e) in enumerate(steps) if b <= t <= e]
    return max(found) if found else None


def row(name, r, base):
    s = r["steps"]
    if len(s) < 3:
        return f"| {name} | rc {r['rc']}, {len(s)} steps | | | | | | | |"
    later = s[2:]
    b = base["steps"] if base and len(base["steps"]) >= 3 else None
    def x(v, bv):
        return f"{v:.1f} ({v / bv:.2f}x)" if bv else f"{v:.1f}"
    cov = coverage(r["path"]) if name not in ("unprofiled",) else None
    c = f"{cov[0]}/{cov[1]} sigs, {cov[2]:.1f}% time, {cov[3]} launches" if cov else "-"
    last = last_measured_step(r["path"]) if cov and cov[3] else None
    if last is not None:
        c += f", last in step {last + 1}"
    return (f"| {name} | {x(r['wall'], base['wall'] if base else None)} s | "
            f"{x(s[0], b[0] if b else None)} | {x(s[1], b[1] if b else None)} | "
            f"{x(max(later), statistics.median(b[2:]) if b else None)} | "
            f"{x(statistics.median(later), statistics.median(b[2:]) if b else None)} | "
            f"{x(statistics.mean(later), statistics.mean(b[2:]) if b else None)} | {c} | {r['rc']} |")


def main():
    names = [n for n in MODES if only is None or KEYS[n] in only or n in only]
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip().splitlines()[0]
    print(f"# Counter cost, {model}, {steps} steps, {gpu}\n")
    print("| mode | wall | step 1 (ms) | step 2 | slowest after 2 | median 3+ | mean 3+ | coverage | rc |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    base = None
    run("unprofiled")  # warm-up: the first run of a call pays cold file and module caches
    for n in names:
        r = run(n)
        if n == "unprofiled":
            base = r
        print(row(n, r, base), flush=True)
    paired_rounds(names, int(os.environ.get("DEFAULT_COST_ROUNDS", "1")))
    return 0


def steady(r):
    return statistics.median(r["steps"][2:]) if len(r["steps"]) >= 3 else float("nan")


def paired_rounds(names, rounds):
    """The steady steps of each mode over the unprofiled run of the same round."""
    if rounds < 2 or "unprofiled" not in names:
        return
    ratios = {n: [] for n in names if n != "unprofiled"}
    for k in range(rounds):
        order = names[k % len(names):] + names[:k % len(names)]
        results = {n: run(n) for n in order}
        base = steady(results["unprofiled"])
        for n in ratios:
            ratios[n].append(steady(results[n]) / base)
    print(f"\nSteady steps (median of steps 3+) over the unprofiled run's, {rounds} paired "
          "rounds:\n")
    print("| mode | median of rounds | rounds |\n| --- | --- | --- |")
    for n, rs in ratios.items():
        print(f"| {n} | **{statistics.median(rs):.2f}x** | "
              + ", ".join(f"{r:.2f}" for r in rs) + " |")


if __name__ == "__main__":
    sys.exit(main())
