#!/usr/bin/env python3
"""ncu's speed-of-light breakdown on every kernel of one warm training step (issue 32),
on the GPU machine.

    python3 bench/device/sol_breakdown.py OUT_DIR [models=gpt2,vit] [--limit 420] [--budget 540]
        [--keep-report] [--replay application]

A model is `gpt2` (bench/device/gpt2_step.py: 6 layers, batch 8 x 512) or `vit`
(bench/device/vit_step.py: ViT-B/16, batch 32, 12 blocks), optionally with the script's
arguments after the step count, `:`-separated: `vit:16` (batch 16), `vit:32:6` (6 blocks),
`gpt2:6:4` (batch 4). Each model runs 3 steps under ncu with STEP_PROFILE_RANGE=2: the
script calls cudaProfilerStart before step 2 and cudaProfilerStop after it, and ncu
(--profile-from-start off) profiles exactly that step, after 2 warm-up steps:

    ncu --profile-from-start off --clock-control none --cache-control none
        --section SpeedOfLight
        --metrics breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed,
                  breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,
                  gpu__time_duration.sum          (one comma-separated argument)
        --export <tmp or OUT_DIR>/<gpu>-<model>.ncu-rep <this python> <script> 3 [args]

then `ncu --import <report> --csv --page raw --print-units base` writes
OUT_DIR/<gpu>-<model>-ncu-breakdown.csv.gz (gpu: h100 or h200, from nvidia-smi), the
input of bench/device/sol_subset.py. The clocks are the program's own (the GPU
machine's rules forbid locking them; cuscope measures at them too) and no cache is
flushed between passes (cuscope does not flush either).
With --replay application, ncu runs the program once a pass (`--replay-mode application
--app-replay-match grid`) instead of replaying each launch with its memory saved and
restored: every launch is measured as the program runs it, its caches as the launches
before it left them, which is what cuscope measures in the run. Its files end in
`-app-ncu-breakdown.csv.gz`. It takes 10 runs of the program (H200: ViT `vit:32:6` 300 s
in all; GPT-2 about 48 s a run, so about 8 minutes: a call of its own), and it is never
interrupted (--limit and --budget do not apply): a run cut short mid-pass does not match
the others' launches, and ncu then writes no report.
Time: ncu replays each launch once per pass (about 10 passes for these metrics), about
0.35-0.55 s a launch (docs/performance.md), plus about 30 s of start-up and warm-up:
GPT-2's step (581 launches) 4-6 minutes. Run one model per GPU-machine command. Past
--limit seconds of one model (default 420), or past --budget seconds of the whole run
less 120 s kept for ncu's report and the export (default 540, under the GPU machine's
10 minutes a command), the model's Python process gets SIGINT: ncu keeps the launches
profiled so far and the summary says TRUNCATED; then `vit:32:6` halves ViT's launches.
Prints, per model: launches, GPU time of the step, wall time, ncu's class mix and the
longest kernels; the ncu log is OUT_DIR/<gpu>-<model>-ncu.log. Exit status 1 when a
model failed or was truncated.
"""
import argparse
import gzip
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

import sol_subset

HERE = os.path.dirname(os.path.abspath(__file__))
NCU = os.environ.get("NCU", "/usr/local/cuda/bin/ncu")
METRICS = ("breakdown:" + sol_subset.SM_TARGET + ",breakdown:" + sol_subset.MEM_TARGET +
           "," + sol_subset.DURATION)
SCRIPTS = {"gpt2": "gpt2_step.py", "vit": "vit_step.py"}
WARMUP = 2  # unprofiled steps before the profiled one
EXPORT_S = 120  # seconds kept back from the budget for ncu to close and export a model
GRACE_S = 60  # seconds ncu gets to write its report after the program's SIGINT


def gpu_label():
    p = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader", "-i", "0"],
                       capture_output=True, text=True)
    name = p.stdout.strip()
    m = re.search(r"\b([A-Z]{1,2}\d{2,4})\b", name)
    return (m.group(1) if m else re.sub(r"[^A-Za-z0-9]+", "", name) or "gpu").lower()


def parse_spec(spec):
    """`vit:16:6` -> ("vit", ["16", "6"], "vit_16_6")."""
    name, *args = spec.split(":")
    if name not in SCRIPTS:
        sys.exit(f"unknown model {name!r}: one of {', '.join(SCRIPTS)}")
    return name, args, "_".join([name] + args)


def descendants(pid):
    """The processes under `pid` (from /proc), children before grandchildren."""
    parent = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = [], [pid]
    while frontier:
        frontier = [p for p, pp in parent.items() if pp in frontier]
        out += frontier
    return out


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def interrupt_program(ncu_pid, script):
    """SIGINT to the profiled Python program under ncu (by pid): it stops at its next
    bytecode, exits, and ncu writes the launches profiled so far."""
    pids = [p for p in descendants(ncu_pid) if script in cmdline(p)]
    for p in pids:
        try:
            os.kill(p, signal.SIGINT)
        except ProcessLookupError:
            pass
    return pids


def profiled_count(log):
    try:
        with open(log, errors="replace") as f:
            return sum(1 for line in f if line.startswith("==PROF== Profiling"))
    except OSError:
        return 0


def run_ncu(cmd, env, log, limit, script):
    """Runs ncu; past `limit` seconds interrupts the program, past GRACE_S more ends
    ncu's process group. (rc, wall s, truncated)."""
    t0 = time.perf_counter()
    with open(log, "w") as f:
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env,
                             start_new_session=True)
    truncated, last_note, stop_at = False, t0, t0 + limit
    while p.poll() is None:
        time.sleep(2)
        now = time.perf_counter()
        if now - last_note >= 60:
            last_note = now
            print(f"  {now - t0:.0f} s: {profiled_count(log)} launches profiled", flush=True)
        if not truncated and now >= stop_at:
            truncated = True
            pids = interrupt_program(p.pid, script)
            print(f"  {now - t0:.0f} s: limit reached, SIGINT to {pids}", flush=True)
        elif truncated and now >= stop_at + GRACE_S:
            print("  ncu did not finish after the program's SIGINT: ending its process group")
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode, time.perf_counter() - t0, truncated


def export_csv(report, out_gz):
    p = subprocess.run([NCU, "--import", report, "--csv", "--page", "raw", "--print-units", "base"],
                       capture_output=True, text=True, timeout=EXPORT_S)
    if p.returncode != 0 or '"ID"' not in p.stdout:
        print(f"  export failed (rc {p.returncode}): {p.stderr[-1000:]}")
        return False
    with gzip.open(out_gz, "wt") as f:
        f.write(p.stdout)
    return True


def summarize(csv_gz, wall, truncated, log):
    launches, _ = sol_subset.parse(csv_gz)
    total = sum(l.ns for l in launches)
    with open(log, errors="replace") as f:
        steps = [line.strip() for line in f if line.startswith(("step ", "model "))]
    print(f"  {len(launches)} launches, GPU time {total / 1e6:.2f} ms, wall {wall:.0f} s"
          f"{', TRUNCATED (the step was not profiled to its end)' if truncated else ''}; "
          f"program: {'; '.join(steps) or 'no step lines'}")
    if not launches:
        return
    print(f"  ncu's class by GPU time: {sol_subset.class_mix(launches)}")
    by_name = {}
    for l in launches:
        k = sol_subset.short_name(l.name, 60)
        ns, n, sm, mem = by_name.get(k, (0.0, 0, 0.0, 0.0))
        by_name[k] = (ns + l.ns, n + 1, sm + l.sm * l.ns, mem + l.mem * l.ns)
    print(f"  {len(by_name)} kernels; the longest (time %, launches, "
          "time-weighted SM % / memory %):")
    for k, (ns, n, sm, mem) in sorted(by_name.items(), key=lambda kv: -kv[1][0])[:8]:
        print(f"    {100 * ns / total:5.1f}%  {n:4d}  {sm / ns:5.1f} / {mem / ns:5.1f}  {k}")


def profile_model(spec, out, gpu, limit, report_dir, replay):
    name, args, label = parse_spec(spec)
    replay_args = []
    if replay == "application":
        label += "-app"
        replay_args = ["--replay-mode", "application", "--app-replay-match", "grid"]
    script = SCRIPTS[name]
    stem = os.path.join(out, f"{gpu}-{label}")
    report = os.path.join(report_dir, f"{gpu}-{label}.ncu-rep")
    log, csv_gz = stem + "-ncu.log", stem + "-ncu-breakdown.csv.gz"
    for path in (report, csv_gz):
        if os.path.exists(path):
            os.remove(path)
    cmd = [NCU, "--profile-from-start", "off", "--clock-control", "none", "--cache-control",
           "none", *replay_args, "--section", "SpeedOfLight", "--metrics", METRICS,
           "--export", report,
           "--force-overwrite", sys.executable, os.path.join(HERE, script), str(WARMUP + 1),
           *args]
    env = dict(os.environ, STEP_PROFILE_RANGE=str(WARMUP), PYTHONUNBUFFERED="1")
    if replay == "application":
        limit = float("inf")  # an interrupted pass would leave no report at all
    print(f"{label}: {' '.join(cmd[1:])}  (limit {limit:.0f} s)", flush=True)
    rc, wall, truncated = run_ncu(cmd, env, log, limit, script)
    print(f"  ncu rc {rc}, {wall:.0f} s", flush=True)
    if not os.path.exists(report):
        print(f"  no report written; the end of {log}:")
        with open(log, errors="replace") as f:
            print("".join(f.readlines()[-15:]))
        return False
    if not export_csv(report, csv_gz):
        return False
    summarize(csv_gz, wall, truncated, log)
    print(f"  wrote {csv_gz}", flush=True)
    return not truncated


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("models", nargs="?", default="gpt2,vit")
    ap.add_argument("--limit", type=float, default=420.0, help="seconds of ncu per model")
    ap.add_argument("--budget", type=float, default=540.0, help="seconds for the whole run")
    ap.add_argument("--keep-report", action="store_true",
                    help="keep ncu's report in OUT_DIR (else it goes in a temporary folder)")
    ap.add_argument("--replay", choices=("kernel", "application"), default="kernel",
                    help="ncu's replay: each launch replayed (default) or the program run "
                    "once a pass")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    gpu = gpu_label()
    version = subprocess.run([NCU, "--version"], capture_output=True, text=True).stdout
    print(f"gpu {gpu}; {version.strip().splitlines()[-1] if version.strip() else 'ncu ?'}")
    ok, tmp = True, tempfile.TemporaryDirectory(prefix="sol_breakdown.")
    report_dir = args.out if args.keep_report else tmp.name
    for spec in args.models.split(","):
        left = args.budget - (time.perf_counter() - t0) - EXPORT_S
        if left < 60 and args.replay == "kernel":
            print(f"{spec}: skipped, {left + EXPORT_S:.0f} s of the budget left")
            ok = False
            continue
        ok = profile_model(spec, args.out, gpu, min(args.limit, left), report_dir,
                           args.replay) and ok
    print(f"total wall {time.perf_counter() - t0:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
