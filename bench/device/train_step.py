#!/usr/bin/env python3
"""The training-step benchmark of issue 11, on the GPU machine:

    python3 bench/device/train_step.py BUILD_DIR OUT_DIR [rounds=2] [steps=24]
    TRAIN_STEP_MODES="trace,gpu metrics" TRAIN_STEP_NCU=0 python3 bench/device/train_step.py ...

A transformers GPT-2 training step (bench/device/gpt2_step.py: 6 layers, batch 8 x 512,
bf16 autocast, fused AdamW) unprofiled, under the CUPTI tracing floor (a counting-only
injection: what any activity tracer costs), traced by cuscope, with counters in signature
mode (kernel replay, one sample per signature) and in rotate on every launch, with GPU
metrics sampled every 10 us (docs/gpu-metrics.md), under torch.profiler, with the counter
sampler's launch callbacks and no kernel to measure (what they cost the launch path), and a
bounded slice of the same kernels under ncu. The modes run in
interleaved rounds (the order turns each round); a mode's step time is the median over
its rounds of the median of steps 4 and later. From the profiles: kernel records
against kernel launches, measured launches without times, rotate's coverage of the last
step (signatures and GPU time with a complete sample) and rotate's values against
kernel replay's on the same signatures, and each mode's median kernel launch call in the
last 10 steps (the step is bound by the launch path). Prints markdown.
"""
import math
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time

build = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 2
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 24
here = os.path.dirname(os.path.abspath(__file__))
cuscope = os.path.join(build, "bin", "cuscope")
ncu = "/usr/local/cuda/bin/ncu"
step_cmd = ["python3", os.path.join(here, "gpt2_step.py"), str(steps)]
os.makedirs(out, exist_ok=True)
env = dict(os.environ, PYTHONUNBUFFERED="1")


def traced(*flags):
    """A mode under `cuscope run` with these flags, writing the profile to its path."""
    return lambda p: [cuscope, "run", f"--output={p}", "--report=none", *flags, "--"] + step_cmd


MODES = {
    "unprofiled": lambda p: step_cmd,
    "cuscope trace": traced("--metrics=none"),
    "cuscope signature (roofline)": traced("--metrics=roofline"),
    # Kernel replay of launches after the first two steps (809 + 581 launches of the
    # recorded step): steady-state launches, as rotate measures, for the duration check.
    "cuscope signature (roofline, steady)": traced("--metrics=roofline", "--launch-skip=1390"),
    "cuscope rotate (roofline, every launch)": traced(
        "--metrics=roofline", "--per-signature=all", "--replay=rotate"),
    # Bounded samples (1 per signature) by rotate: the first step runs unmeasured (the
    # period is found first), then sets of windows until each signature of the step
    # holds a sample, then nothing is measured. `sol` has no SASS instruction counters,
    # so kernel records stay on; `roofline` has them (kernel records off while measuring).
    "cuscope signature (sol)": traced("--metrics=sol"),
    "cuscope rotate (sol, 1 per signature)": traced(
        "--metrics=sol", "--per-signature=1", "--replay=rotate"),
    # Every launch of the windows measured, a set beginning only while sets have taken
    # at most 50% of the time outside them (--rotate-budget-pct): the loop's mean step.
    "cuscope rotate (sol, every launch, budget 50%)": traced(
        "--metrics=sol", "--per-signature=all", "--replay=rotate", "--rotate-budget-pct=50"),
    "cuscope rotate (roofline, every launch, budget 50%)": traced(
        "--metrics=roofline", "--per-signature=all", "--replay=rotate", "--rotate-budget-pct=50"),
    "cuscope rotate (roofline, every launch, budget 25%)": traced(
        "--metrics=roofline", "--per-signature=all", "--replay=rotate", "--rotate-budget-pct=25"),
    "cuscope rotate (roofline, 1 per signature)": traced(
        "--metrics=roofline", "--per-signature=1", "--replay=rotate"),
    # The same with the launch callbacks kept on once every signature is sampled
    # (idle_launches=0; by default they go off after 1,000 launches with nothing to
    # measure: lib/collect/launch_switch.h).
    "cuscope rotate (roofline, 1 per signature, callbacks kept on)": traced(
        "--metrics=roofline", "--per-signature=1", "--replay=rotate", "--idle-launches=0"),
    # The counter sampler's launch callbacks with no kernel to measure: no Range Profiler,
    # no set; what CUPTI's callbacks and cuscope's launch bookkeeping cost (session 15).
    "cuscope launch callbacks only (roofline, no kernel matches)": traced(
        "--metrics=roofline", "--replay=rotate", "--per-signature=1",
        "--kernels=^cuscope matches no kernel$"),
    "cuscope gpu metrics (sampled, every kernel)": traced("--gpu-metrics=1"),
    "cuscope gpu metrics (every 2 us)": traced("--gpu-metrics=1", "--gpu-metrics-interval-us=2"),
    "torch.profiler": lambda p: step_cmd,
    # The tracing floor (bench/device/cupti_floor.cc, built into BUILD/lib): an injection
    # that enables the activity kinds cuscope enables by default and only counts records.
    "cupti floor": lambda p: step_cmd,
}
FLOOR_KINDS = "kernel,runtime,memcpy,sync,marker"  # as bench/device/overhead.py
LAUNCH_APIS = ("cudaLaunchKernel", "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC",
               "cudaLaunchKernelExC_ptsz", "cuLaunchKernel", "cuLaunchKernel_ptsz",
               "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz")


def run(mode, rnd):
    # (Digits kept: "budget 50%" and "budget 25%" wrote one file before.)
    slug = re.sub(r"[^a-z0-9]+", "-", mode.lower()).strip("-")
    path = os.path.join(out, f"{slug}-{rnd}.sqlite")
    if os.path.exists(path):
        os.remove(path)
    e = dict(env, GPT2_TORCH_PROFILER="1") if mode == "torch.profiler" else env
    if mode == "cupti floor":
        e = dict(env, CUDA_INJECTION64_PATH=os.path.join(build, "lib", "libcupti_floor.so"),
                 CUPTI_FLOOR_KINDS=FLOOR_KINDS)
    t0 = time.perf_counter()
    with open(os.path.join(out, f"{slug}-{rnd}.log"), "w") as f:
        p = subprocess.run(MODES[mode](path), stdout=subprocess.PIPE, stderr=f, text=True, env=e,
                           timeout=400)
        f.write(p.stdout)
    wall = time.perf_counter() - t0
    times = [float(m.group(1)) for m in re.finditer(r"^step \d+ ([0-9.]+)$", p.stdout, re.M)]
    return {"rc": p.returncode, "wall": wall, "steps": times,
            "profile": path if os.path.exists(path) else None}


def profile_facts(path):
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    launch_ids = {s_id for s_id, text in s.items() if text in LAUNCH_APIS}
    launches = len({cid for name, cid in db.execute("SELECT name_id, correlation_id FROM api_calls")
                    if name in launch_ids})
    kernels, untimed, measured, placed = db.execute(
        "SELECT COUNT(*), SUM(start_ns = 0), SUM((flags & 1) != 0), SUM((flags & 2) != 0) "
        "FROM kernels").fetchone()
    return {"launches": launches, "kernels": kernels, "untimed": untimed or 0,
            "measured": measured or 0, "placed": placed or 0}


def idle_note(path):
    """The run's counters.idle note: when the launch callbacks went off (launch_switch.h)."""
    row = sqlite3.connect(path).execute(
        "SELECT value FROM meta WHERE key = 'extra.counters.idle'").fetchone()
    return row[0] if row else ""


def step_and_launch_ids(path):
    """The profile's connection, the string id of the "step" range and those of the launch
    APIs; (None, None, None) when either is missing."""
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    step_ids = [i for i, t in s.items() if t == "step"]
    launch_ids = [i for i, t in s.items() if t in LAUNCH_APIS]
    if not step_ids or not launch_ids:
        return None, None, None
    return db, step_ids[0], launch_ids


def idle_split(path, skip=20):
    """Steps from `skip` on, before and after the launch callbacks went off (the launch that
    the counters.idle note names): (steps, median step ms, median launch call us) each, or
    None. One process: the comparison is free of the noise between processes."""
    note = idle_note(path)
    m = re.search(r"first after (\d+) launches", note)
    if not m:
        return None
    db, step_id, launch_ids = step_and_launch_ids(path)
    if db is None:
        return None
    marks = ",".join("?" * len(launch_ids))
    # One call per launch (a runtime launch and the driver launch inside it share a
    # correlation id), as the callbacks count them.
    calls, seen = [], set()
    for a, b, cid in db.execute(f"SELECT start_ns, end_ns, correlation_id FROM api_calls WHERE "
                                f"name_id IN ({marks}) ORDER BY start_ns", launch_ids):
        if cid not in seen:
            seen.add(cid)
            calls.append((a, b))
    first = int(m.group(1))
    if first > len(calls):
        return None
    off_at = calls[first - 1][0]
    spans = db.execute("SELECT start_ns, end_ns FROM ranges WHERE name_id = ? ORDER BY start_ns",
                       (step_id,)).fetchall()[skip:]
    out = []
    for after in (False, True):
        sel = [(a, b) for a, b in spans if (a >= off_at) == after]
        d = [e - b0 for b0, e in calls if any(a <= b0 and e <= b for a, b in sel)] if sel else []
        out.append((len(sel), statistics.median([(b - a) / 1e6 for a, b in sel]) if sel else 0,
                    statistics.median(d) / 1e3 if d else 0))
    return out


def launch_api_us(path, last=10):
    """Median duration (us) of the kernel launch calls in the profile's last `last` steps:
    what the host pays a launch (the step is bound by the launch path, not the GPU)."""
    db, step_id, launch_ids = step_and_launch_ids(path)
    if db is None:
        return None
    spans = db.execute("SELECT start_ns, end_ns FROM ranges WHERE name_id = ? ORDER BY start_ns",
                       (step_id,)).fetchall()[-last:]
    if not spans:
        return None
    marks = ",".join("?" * len(launch_ids))
    d = [b - a for a, b in db.execute(
        f"SELECT start_ns, end_ns FROM api_calls WHERE name_id IN ({marks}) AND start_ns >= ? "
        "AND end_ns <= ?", (*launch_ids, spans[0][0], spans[-1][1]))]
    return statistics.median(d) / 1e3 if d else None


def held_by_step(path, steps=4):
    """The counter sampler's held time (ms) by kind in each of the first `steps` steps."""
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    step_ids = [i for i, t in s.items() if t == "step"]
    if not step_ids:
        return []
    spans = db.execute("SELECT start_ns, end_ns FROM ranges WHERE name_id = ? ORDER BY start_ns "
                       "LIMIT ?", (step_ids[0], steps)).fetchall()
    out = []
    for start, end in spans:
        kinds = {}
        for kind, a, b in db.execute("SELECT kind_id, start_ns, end_ns FROM overheads "
                                     "WHERE end_ns > ? AND start_ns < ?", (start, end)):
            if s.get(kind, "").startswith("cuscope counters"):
                name = s[kind].replace("cuscope counters", "").lstrip(": ") or "other"
                kinds[name] = kinds.get(name, 0.0) + (min(b, end) - max(a, start)) / 1e6
        out.append(((end - start) / 1e6, kinds))
    return out


def signature_values(path):
    """(name, grid, block) -> {metric: value} of the profile's first set of each."""
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    out_sets = {}
    for sid, name, gx, gy, gz, bx, by, bz in db.execute(
            "SELECT id, name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z "
            "FROM counter_sets ORDER BY id"):
        key = (s[name], (gx, gy, gz), (bx, by, bz))
        if key in out_sets:
            continue
        out_sets[key] = {s[m]: v for m, v in db.execute(
            "SELECT metric_id, value FROM counter_values WHERE set_id = ?", (sid,))}
    return out_sets


def traced_durations(path):
    """(name, grid, block) -> median duration (ns) of its launches traced by CUPTI
    (flags 0: neither measured nor made from a launch)."""
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    out = {}
    for name, gx, gy, gz, bx, by, bz, d in db.execute(
            "SELECT name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, end_ns - start_ns "
            "FROM kernels WHERE flags = 0"):
        out.setdefault((s[name], (gx, gy, gz), (bx, by, bz)), []).append(d)
    return {k: statistics.median(v) for k, v in out.items()}


def compare_durations(a_path, b_path):
    """gpu__time_duration of two counter runs against each other, weighted by the traced
    GPU time of each signature, and each against the traced durations of its own run."""
    d = "gpu__time_duration.sum"
    a, b = signature_values(a_path), signature_values(b_path)
    ta, tb = traced_durations(a_path), traced_durations(b_path)
    keys = [k for k in a.keys() & b.keys() if d in a[k] and d in b[k] and k in tb]
    weight = sum(tb[k] for k in keys) or 1.0
    close = sum(tb[k] for k in keys if abs(a[k][d] - b[k][d]) <= 0.05 * b[k][d])
    a_trace = sum(1 for k in keys if k in ta and abs(a[k][d] - ta[k]) <= 0.05 * ta[k])
    b_trace = sum(1 for k in keys if abs(b[k][d] - tb[k]) <= 0.05 * tb[k])
    # Microsecond kernels: what each counter run adds to the traced duration.
    short = [k for k in keys if tb[k] < 5000 and k in ta]
    add_a = statistics.median([a[k][d] - ta[k] for k in short]) if short else float("nan")
    add_b = statistics.median([b[k][d] - tb[k] for k in short]) if short else float("nan")
    return {"n": len(keys), "time_pct": 100.0 * close / weight, "a_trace": a_trace,
            "b_trace": b_trace, "short": len(short), "add_a": add_a, "add_b": add_b}


def last_step_coverage(path):
    """Signatures and GPU time of the last `step` range, and the part with a sample."""
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    step_ids = [i for i, t in s.items() if t == "step"]
    if not step_ids:
        return None
    row = db.execute("SELECT start_ns, end_ns FROM ranges WHERE name_id = ? ORDER BY start_ns DESC "
                     "LIMIT 1", (step_ids[0],)).fetchone()
    api = {cid: t for cid, t in db.execute("SELECT correlation_id, MIN(start_ns) FROM api_calls "
                                           "GROUP BY correlation_id")}
    sampled = {(n, (gx, gy, gz), (bx, by, bz)) for n, gx, gy, gz, bx, by, bz in db.execute(
        "SELECT name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z FROM counter_sets")}
    time_by_sig = {}
    for n, gx, gy, gz, bx, by, bz, cid, start, end in db.execute(
            "SELECT name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, correlation_id, "
            "start_ns, end_ns FROM kernels"):
        t = api.get(cid)
        if t is None or not row[0] <= t <= row[1]:
            continue
        key = (n, (gx, gy, gz), (bx, by, bz))
        time_by_sig[key] = time_by_sig.get(key, 0) + max(0, end - start)
    total = sum(time_by_sig.values()) or 1
    have = [k for k in time_by_sig if k in sampled]
    return {"signatures": len(time_by_sig), "sampled": len(have),
            "time_pct": 100.0 * sum(time_by_sig[k] for k in have) / total}


def coverage_by_step(path, shares=(0.5, 0.95, 1.0)):
    """Rotate: after how many `step` ranges the last step's signatures held a sample, for
    each share (a sample counts from the step its last pass's launch was made in); None
    where never."""
    db = sqlite3.connect(path)
    s = dict(db.execute("SELECT id, text FROM strings"))
    step_ids = [i for i, t in s.items() if t == "step"]
    if not step_ids:
        return None
    spans = db.execute("SELECT start_ns, end_ns FROM ranges WHERE name_id = ? ORDER BY start_ns",
                       (step_ids[0],)).fetchall()
    if not spans:
        return None
    api = {cid: t for cid, t in db.execute("SELECT correlation_id, MIN(start_ns) FROM api_calls "
                                           "GROUP BY correlation_id")}
    last = spans[-1]
    sigs = set()
    for n, gx, gy, gz, bx, by, bz, cid in db.execute(
            "SELECT name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, correlation_id "
            "FROM kernels"):
        t = api.get(cid)
        if t is not None and last[0] <= t <= last[1]:
            sigs.add((n, (gx, gy, gz), (bx, by, bz)))
    if not sigs:
        return None
    # Each set's completion: the API call of its last launch (else its kernel's start).
    started = dict(db.execute("SELECT correlation_id, start_ns FROM kernels WHERE start_ns > 0"))
    done = {}
    for n, gx, gy, gz, bx, by, bz, cid in db.execute(
            "SELECT c.name_id, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, "
            "MAX(l.correlation_id) FROM counter_sets c JOIN counter_launches l ON l.set_id = c.id "
            "GROUP BY c.id"):
        key = (n, (gx, gy, gz), (bx, by, bz))
        t = api.get(cid, started.get(cid))
        if key in sigs and t is not None:
            done[key] = min(done.get(key, t), t)
    if not done:
        return None  # the sets' launches are not in the profile (a trimmed one)
    ends = [e for _, e in spans]
    out = {}
    for share in shares:
        need = share * len(sigs)
        times = sorted(done.values())
        if len(times) < need or need == 0:
            out[share] = None
            continue
        t = times[max(0, math.ceil(need) - 1)]
        out[share] = next((i + 1 for i, e in enumerate(ends) if t <= e), None)
    return out


def sampled_coverage(path):
    """GPU metrics: the share of kernel time in kernels holding a sample, and covered by
    samples, from `cuscope report --format json` (all rows)."""
    p = subprocess.run([cuscope, "report", path, "--format=json", "--top=0"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    if p.returncode != 0:
        return None
    import json
    g = json.loads(p.stdout).get("gpu_metrics")
    if not g:
        return None
    rows = g["kernels"]["rows"]
    total = sum(r["kernel_ns"] for r in rows) or 1
    with_sample = sum(r["kernel_ns"] for r in rows if r["samples"] > 0)
    covered = sum(r["sampled_ns"] for r in rows)
    dev = g["devices"][0]
    return {"kernels": len(rows), "with_sample": sum(1 for r in rows if r["samples"] > 0),
            "time_pct": 100.0 * with_sample / total, "covered_pct": 100.0 * covered / total,
            "samples": dev["all"]["samples"], "metrics": dev["metrics"], "top": rows[:8]}


def report_sampled(mode, sampled):
    cov = sampled_coverage(sampled) if sampled else None
    if cov:
        print(f"\n{mode}: {cov['samples']} samples of {len(cov['metrics'])} metrics "
              f"({', '.join(cov['metrics'])}); {cov['with_sample']} of {cov['kernels']} kernel "
              f"names hold a sample, {cov['time_pct']:.1f}% of kernel time; samples cover "
              f"{cov['covered_pct']:.1f}% of kernel time.")
        for r in cov["top"]:
            f = lambda k: "-" if r.get(k) is None else f"{r[k]:.1f}"
            print(f"- {r['name'][:60]}: {r['kernel_ns'] / 1e6:.2f} ms, covered "
                  f"{r['coverage_pct']:.0f}%, SM active {f('sm_active_pct')}%, tensor "
                  f"{f('tensor_pct')}%, DRAM {f('dram_pct')}%")
    if sampled:
        db = sqlite3.connect(sampled)
        notes = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'extra.gpu_metrics.%'"))
        print(f"\nGPU metrics notes: {notes}")


def compare_values(rotate_path, replay_path):
    a, b = signature_values(rotate_path), signature_values(replay_path)
    flops = [m for m in ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                         "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                         "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
                         "sm__inst_executed.sum")]
    n = flops_ok = dur_ok = 0
    worst = []
    for key in a.keys() & b.keys():
        va, vb = a[key], b[key]
        n += 1
        ok = True
        for m in va.keys() & vb.keys():
            if m.startswith("sm__ops_path_tensor") or m in flops:
                if abs(va[m] - vb[m]) > 0.02 * max(abs(vb[m]), 1.0):
                    ok = False
                    worst.append((key[0][:50], m, va[m], vb[m]))
        flops_ok += ok
        d = "gpu__time_duration.sum"
        if d in va and d in vb and abs(va[d] - vb[d]) <= 0.05 * vb[d]:
            dur_ok += 1
    return n, flops_ok, dur_ok, worst[:8]


def main():
    t0 = time.perf_counter()
    print(f"# Training-step benchmark (bench/device/train_step.py, {rounds} rounds, {steps} steps)\n")
    # TRAIN_STEP_MODES="unprofiled,gpu metrics": only the modes whose name holds one of
    # these (unprofiled always runs: it is the base); TRAIN_STEP_NCU=0 skips the ncu slice.
    # The comma separates filters: "roofline, 1 per signature" is two of them (and matches
    # every roofline mode); "1 per signature" alone matches both rotate budgets.
    # Separated by ";" instead when it holds one (mode names hold commas).
    spec = os.environ.get("TRAIN_STEP_MODES", "")
    wanted = [w.strip() for w in spec.split(";" if ";" in spec else ",") if w.strip()]
    order = [m for m in MODES if m == "unprofiled" or not wanted or any(w in m for w in wanted)]
    # TRAIN_STEP_ONCE="signature": modes whose name holds one of these run in the first
    # round only (kernel replay's first step costs half a minute a run).
    once = [w.strip() for w in os.environ.get("TRAIN_STEP_ONCE", "").split(",") if w.strip()]
    results = {m: [] for m in order}
    for r in range(rounds):
        for mode in order[r % len(order):] + order[:r % len(order)]:
            if r > 0 and any(w in mode for w in once):
                continue
            results[mode].append(run(mode, r))
            res = results[mode][-1]
            print(f"<!-- round {r} {mode}: rc={res['rc']}, {res['wall']:.1f} s -->", flush=True)
    base = base_last = None
    print("| mode | median step, steps 4+ (ms) | x unprofiled | last 10 steps (ms) | x unprofiled "
          "| first step (ms) | wall (s) | kernels / launches | measured (placed) | untimed |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode, runs in results.items():
        meds = [statistics.median(x["steps"][4:]) for x in runs if len(x["steps"]) > 4]
        med = statistics.median(meds) if meds else float("nan")
        lasts = [statistics.median(x["steps"][-10:]) for x in runs if len(x["steps"]) > 10]
        last = statistics.median(lasts) if lasts else float("nan")
        if mode == "unprofiled":
            base, base_last = med, last
        first = statistics.median([x["steps"][0] for x in runs if x["steps"]] or [float("nan")])
        wall = statistics.median([x["wall"] for x in runs])
        facts = profile_facts(runs[0]["profile"]) if runs[0]["profile"] else None
        kl = f"{facts['kernels']} / {facts['launches']}" if facts else "-"
        ms = f"{facts['measured']} ({facts['placed']})" if facts else "-"
        un = str(facts["untimed"]) if facts else "-"
        print(f"| {mode} | {med:.2f} | {med / base:.2f} | {last:.2f} | {last / base_last:.2f} | "
              f"{first:.0f} | {wall:.1f} | {kl} | {ms} | {un} |")
    # Each round's last 10 steps by mode, and each mode against the unprofiled step of
    # its own round (paired: the rounds share the machine's state of the moment).
    print("\n| round | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    n_rounds = max(len(runs) for runs in results.values())
    def last10(runs, r):
        x = runs[r] if r < len(runs) else None
        return statistics.median(x["steps"][-10:]) if x and len(x["steps"]) > 10 else None
    for r in range(n_rounds):
        cells = [last10(runs, r) for runs in results.values()]
        print(f"| {r} | " + " | ".join(f"{c:.2f}" if c else "-" for c in cells) + " |")
    for mode, runs in results.items():
        if mode == "unprofiled":
            continue
        ratios = [last10(runs, r) / last10(results["unprofiled"], r) for r in range(len(runs))
                  if last10(runs, r) and last10(results["unprofiled"], r)]
        if ratios:
            print(f"- {mode}, last 10 steps / the same round's unprofiled: median "
                  f"{statistics.median(ratios):.2f}x (rounds: {', '.join(f'{x:.2f}' for x in ratios)})")

    # With a time budget the mean step is what the budget bounds (most steps run
    # unmeasured, a few hold a set's windows).
    def mean4(runs):
        return [statistics.mean(x["steps"][4:]) for x in runs if len(x["steps"]) > 4]
    base_mean = statistics.median(mean4(results["unprofiled"]) or [float("nan")])
    for mode, runs in results.items():
        if "budget" not in mode:
            continue
        means = mean4(runs)
        if means:
            print(f"- {mode}: mean step, steps 4+, {statistics.median(means):.2f} ms against "
                  f"{base_mean:.2f} ms unprofiled: {statistics.median(means) / base_mean:.2f}x "
                  f"(rounds: {', '.join(f'{m:.2f}' for m in means)}); steps over 100 ms: "
                  f"{', '.join(str(sum(t > 100 for t in x['steps'][4:])) for x in runs)}")
        for r, x in enumerate(runs):
            if not x["profile"]:
                continue
            db = sqlite3.connect(x["profile"])
            meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN "
                                   "('extra.counters.summary', 'extra.counters.budget_idle')"))
            print(f"  - round {r}: `counters.summary`: {meta.get('extra.counters.summary', '-')}")
            print(f"    `counters.budget_idle`: {meta.get('extra.counters.budget_idle', '-')}")
            cov = last_step_coverage(x["profile"])
            if cov:
                print(f"    last step: {cov['sampled']} of {cov['signatures']} signatures and "
                      f"{cov['time_pct']:.1f}% of its GPU time hold a complete sample")
            by_step = coverage_by_step(x["profile"])
            if by_step:
                print("    the last step's signatures sampled after: " + ", ".join(
                    f"{int(k * 100)}% {v if v else 'never'}{' steps' if v else ''}"
                    for k, v in by_step.items()))

    def first_profile(mode):
        return results[mode][0]["profile"] if mode in results else None

    print()
    for mode, runs in results.items():
        us = [launch_api_us(x["profile"]) for x in runs if x["profile"]]
        us = [u for u in us if u is not None]
        if us:
            print(f"- {mode}: a kernel launch call in the last 10 steps, median "
                  f"{statistics.median(us):.2f} us (rounds: {', '.join(f'{u:.2f}' for u in us)})")

    for mode, runs in results.items():
        notes = [idle_note(x["profile"]) for x in runs if x["profile"]]
        if any(notes):
            print(f"- {mode}, counters.idle (round 0): {notes[0] or '-'}")
        for r, x in enumerate(runs):
            split = idle_split(x["profile"]) if x["profile"] else None
            if split:
                parts = [f"callbacks {state} {n} steps, {st:.2f} ms, launch {lc:.2f} us"
                         for state, (n, st, lc) in zip(("on", "off"), split) if n > 0]
                print(f"  - round {r}, steps 20+: {'; '.join(parts)}")

    for mode in ("cuscope rotate (sol, 1 per signature)", "cuscope rotate (roofline, 1 per signature)"):
        path = first_profile(mode)
        cov = last_step_coverage(path) if path else None
        if cov:
            print(f"\n{mode}, last step: {cov['sampled']} of {cov['signatures']} signatures "
                  f"({100.0 * cov['sampled'] / max(cov['signatures'], 1):.1f}%) and "
                  f"{cov['time_pct']:.1f}% of its GPU time hold a complete sample.")
        if path:
            db = sqlite3.connect(path)
            for key in ("summary", "image", "image_full", "measure_ms", "host_ms"):
                row = db.execute("SELECT value FROM meta WHERE key = ?",
                                 (f"extra.counters.{key}",)).fetchone()
                print(f"- `counters.{key}`: {row[0] if row else '-'}")
            for i, (step_ms, kinds) in enumerate(held_by_step(path)):
                parts = ", ".join(f"{k} {v:.0f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
                print(f"- step {i}: {step_ms:.0f} ms, counters held {sum(kinds.values()):.0f} ms"
                      f"{' (' + parts + ')' if parts else ''}")
    rot = first_profile("cuscope rotate (roofline, every launch)")
    if rot:
        cov = last_step_coverage(rot)
        if cov:
            print(f"\nRotate, last step: {cov['sampled']} of {cov['signatures']} signatures "
                  f"({100.0 * cov['sampled'] / max(cov['signatures'], 1):.1f}%) and "
                  f"{cov['time_pct']:.1f}% of its GPU time hold a complete sample.")
        db = sqlite3.connect(rot)
        notes = dict(db.execute("SELECT key, value FROM meta WHERE key LIKE 'extra.counters.%'"))
        for k in sorted(notes):
            print(f"- `{k}`: {notes[k]}")
    pairs = [("cuscope rotate (roofline, every launch)", "cuscope signature (roofline)"),
             ("cuscope rotate (roofline, 1 per signature)", "cuscope signature (roofline)"),
             ("cuscope rotate (roofline, 1 per signature)", "cuscope signature (roofline, steady)"),
             ("cuscope signature (roofline, steady)", "cuscope signature (roofline)")]
    for a_mode, b_mode in pairs:
        a_path, b_path = first_profile(a_mode), first_profile(b_mode)
        if not (a_path and b_path):
            continue
        n, flops_ok, dur_ok, worst = compare_values(a_path, b_path)
        print(f"\n{a_mode} against {b_mode} on {n} signatures both sampled: FLOP and "
              f"instruction counts within 2% on {flops_ok}, gpu__time_duration within 5% on "
              f"{dur_ok}.")
        for w in worst:
            print(f"- {w[0]} {w[1]}: {w[2]:.4g} against {w[3]:.4g}")
        dc = compare_durations(a_path, b_path)
        print(f"- gpu__time_duration within 5% on {dc['time_pct']:.1f}% of the traced GPU time "
              f"of {dc['n']} signatures; within 5% of the run's own traced duration: "
              f"{dc['a_trace']} (first) and {dc['b_trace']} (second); on {dc['short']} kernels "
              f"under 5 us, the counters read {dc['add_a']:.0f} and {dc['add_b']:.0f} ns above "
              f"the traced duration (median)")
    for mode in ("cuscope gpu metrics (sampled, every kernel)", "cuscope gpu metrics (every 2 us)"):
        if mode in results:
            report_sampled(mode, first_profile(mode))
    if os.environ.get("TRAIN_STEP_NCU", "1") == "0":
        print(f"\n({time.perf_counter() - t0:.0f} s)")
        return
    # ncu on a bounded slice of the same kernels (steady-state launches).
    slice_cmd = [ncu, "--clock-control", "none", "--section", "SpeedOfLight", "--launch-skip",
                 "1500", "--launch-count", "40"] + step_cmd[:2] + ["4"]
    t1 = time.perf_counter()
    with open(os.path.join(out, "ncu-slice.log"), "w") as f:
        rc = subprocess.run(slice_cmd, stdout=f, stderr=subprocess.STDOUT, env=env,
                            timeout=300).returncode
    print(f"\nncu --section SpeedOfLight on 40 launches of steps 2-3 (4 steps): rc={rc}, "
          f"{time.perf_counter() - t1:.1f} s wall")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
