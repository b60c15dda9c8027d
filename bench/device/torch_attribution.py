#!/usr/bin/env python3
"""PyTorch attribution on a GPT-2 training step (issue 35), on the GPU machine:

    python3 bench/device/torch_attribution.py BUILD_DIR OUT_DIR [rounds=3] [steps=24] [parts]

bench/device/gpt2_step.py (transformers GPT-2, 6 layers, 8 x 512, bf16) in interleaved
rounds (the order turns each round) under five modes: unprofiled; torch.profiler (CPU and
CUDA, with_stack=True); cuscope's trace alone (--metrics=none); cuscope with --pytorch
(--metrics=none: op and line ranges in the first 3 steps, CUSCOPE_PYTORCH_STEPS); and
--pytorch with ranges in every step (CUSCOPE_PYTORCH_STEPS=0). A mode's step time is the
median over rounds of the median of steps 4 and later; its added cost is that over the
unprofiled step of the same round; the mean of every step but the first is beside it. From the
last round's --pytorch profile (cuscope report --by=op|line --format=json): the shares of
kernels and GPU time with an op, with a Python line, with a line in the model's own source
(transformers' files, as tests/unit/recorded_torch_test.cc counts them; and its
modeling_*.py files alone), and of backward kernels with a line. Prints markdown.
With a fifth argument `parts`, also the parts of --pytorch's cost: --pytorch with ops
only and with lines only (CUSCOPE_PYTORCH_LINES=0, CUSCOPE_PYTORCH_OPS=0), and without
cuscope torch's NVTX op ranges alone, an empty TorchFunctionMode, and the line mode's
Python side with no-op library calls (gpt2_step.py GPT2_HOOK_PART).
"""
import json
import os
import re
import statistics
import subprocess
import sys

build = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 24
parts = len(sys.argv) > 5 and sys.argv[5] == "parts"
here = os.path.dirname(os.path.abspath(__file__))
cuscope = os.path.join(build, "bin", "cuscope")
step_cmd = ["python3", os.path.join(here, "gpt2_step.py"), str(steps)]
os.makedirs(out, exist_ok=True)
env = dict(os.environ, PYTHONUNBUFFERED="1")
MODEL_SOURCE = re.compile(r"/transformers/")
MODELING_FILES = re.compile(r"/transformers/models/[^/]+/modeling_[^/]+\.py$")


def modes(r):
    profile = os.path.join(out, f"pytorch-{r}.sqlite")
    trace = os.path.join(out, f"trace-{r}.sqlite")
    run = [cuscope, "run", "--metrics=none", "--report=none"]
    table = {
        "unprofiled": (step_cmd, {}),
        "torch.profiler with_stack": (step_cmd, {"GPT2_TORCH_PROFILER": "1",
                                                 "GPT2_TORCH_PROFILER_STACK": "1"}),
        "cuscope trace": (run + ["-o", trace, "--"] + step_cmd, {}),
        "cuscope --pytorch": (run + ["--pytorch", "-o", profile, "--"] + step_cmd, {}),
        "cuscope --pytorch, ranges every step": (
            run + ["--pytorch", "-o", os.path.join(out, f"every-{r}.sqlite"), "--"] + step_cmd,
            {"CUSCOPE_PYTORCH_STEPS": "0"}),
    }
    if parts:
        other = os.path.join(out, f"part-{r}.sqlite")
        pytorch = run + ["--pytorch", "-o", other, "--"] + step_cmd
        table.update({
            "--pytorch, ops only": (pytorch, {"CUSCOPE_PYTORCH_LINES": "0"}),
            "--pytorch, lines only": (pytorch, {"CUSCOPE_PYTORCH_OPS": "0"}),
            "no cuscope: emit_nvtx": (step_cmd, {"GPT2_HOOK_PART": "nvtx"}),
            "no cuscope: empty TorchFunctionMode": (step_cmd, {"GPT2_HOOK_PART": "mode"}),
            "no cuscope: line mode, no-op calls": (step_cmd, {"GPT2_HOOK_PART": "walk"}),
        })
    return table, profile


def step_times(text, first):
    return [float(m.group(2)) for m in re.finditer(r"^step (\d+) ([0-9.]+)$", text, re.M)
            if int(m.group(1)) >= first]


def step_ms(text):
    """(median of steps 4+, mean of steps 1+) in ms."""
    steady, all_but_first = step_times(text, 4), step_times(text, 1)
    return (statistics.median(steady) if steady else float("nan"),
            statistics.mean(all_but_first) if all_but_first else float("nan"))


def run_round(r):
    table, profile = modes(r)
    names = list(table)
    names = names[r % len(names):] + names[:r % len(names)]
    result = {}
    for name in names:
        cmd, extra = table[name]
        p = subprocess.run(cmd, env=dict(env, **extra), capture_output=True, text=True,
                           timeout=900)
        if p.returncode != 0:
            print(f"<!-- {name} round {r}: exit {p.returncode}\n{p.stderr[-2000:]} -->")
        result[name] = step_ms(p.stdout)
        for line in p.stdout.splitlines():
            if line.startswith("cuscope hook: "):
                print(f"<!-- {name} round {r}: {line} -->")
    return result, profile


def report(profile, by):
    p = subprocess.run([cuscope, "report", profile, f"--by={by}", "--format=json", "--top=0"],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def pct(part, whole):
    return 100.0 * part / whole if whole else float("nan")


def shares(profile):
    lines = report(profile, "line")
    total = lines["all"]
    model = {"kernels": 0, "gpu_time_ns": 0}
    modeling = dict(model)
    for row in lines["by_line"]:
        for pattern, sums in ((MODEL_SOURCE, model), (MODELING_FILES, modeling)):
            if pattern.search(row["file"] or ""):
                for k in sums:
                    sums[k] += row["totals"][k]
    rows = [("an op", lines["with_op"]), ("a Python line", lines["with_line"]),
            ("a line in the model's source (transformers' files)", model),
            ("a line in its modeling_*.py files", modeling),
            ("op and line from an earlier step's same launch", lines["inherited"])]
    print("| kernels carrying | kernels | GPU time |\n|---|---|---|")
    for what, t in rows:
        print(f"| {what} | {pct(t['kernels'], total['kernels']):.1f}% "
              f"| {pct(t['gpu_time_ns'], total['gpu_time_ns']):.1f}% |")
    b = lines["backward"]
    bl = lines["backward_with_line"]
    print(f"| backward kernels with a line (of backward) | {pct(bl['kernels'], b['kernels']):.1f}% "
          f"| {pct(bl['gpu_time_ns'], b['gpu_time_ns']):.1f}% |")
    print(f"\n{total['kernels']} kernels, {total['gpu_time_ns'] / 1e6:.1f} ms of GPU time "
          f"in {profile}\n")
    ops = report(profile, "op")
    print("Top ops: " + ", ".join(
        f"{r['op'] or '(no op)'}{' [bw]' if r['backward'] else ''} "
        f"{pct(r['totals']['gpu_time_ns'], total['gpu_time_ns']):.1f}%" for r in ops["by_op"][:8]))
    print("Top lines: " + ", ".join(
        f"{os.path.basename(r['file'] or '(none)')}:{r['line']} "
        f"{pct(r['totals']['gpu_time_ns'], total['gpu_time_ns']):.1f}%"
        for r in lines["by_line"][:8]))


def main():
    rounds_ms = []
    profile = None
    for r in range(rounds):
        result, profile = run_round(r)
        rounds_ms.append(result)
    print(f"GPT-2 step ({steps} steps, median of steps 4+), {rounds} interleaved rounds\n")
    print("| mode | step ms (median of rounds) | added cost per step (median of rounds) "
          "| mean of steps 1+: added |")
    print("|---|---|---|---|")
    for name in rounds_ms[0]:
        ms = statistics.median(r[name][0] for r in rounds_ms)
        added = statistics.median(100.0 * (r[name][0] / r["unprofiled"][0] - 1) for r in rounds_ms)
        mean = statistics.median(100.0 * (r[name][1] / r["unprofiled"][1] - 1) for r in rounds_ms)
        print(f"| {name} | {ms:.2f} | {added:+.1f}% | {mean:+.1f}% |")
    print()
    shares(profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
