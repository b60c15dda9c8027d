#!/usr/bin/env python3
"""Verdicts against ncu on the H200 (issue 10), in one run of about 7 minutes.

    python3 bench/device/verdicts.py BUILD_DIR OUT_DIR > verdicts.md

1. bench/device/gemm_precisions.py (4096 and 8192 in fp16, bf16, tf32, fp32, fp8,
   int8, fp64) under `cuscope run --metrics=roofline,sol` 5 times, and once under
   `ncu --section SpeedOfLight --csv --page raw`.
2. bench/device/gpt2_step.py (2 steps) under cuscope --metrics=roofline,sol once and
   under ncu once (its first 400 launches).
Per kernel signature (name, grid, block; ncu's launches of a signature averaged):
tensor ops / 2n^3, cuscope's SM % and memory % against ncu's (within 3 points),
the speed-of-light class (ncu's rule on ncu's numbers against cuscope's class), the
verdict's stability over the 5 runs (kernels over 20 us), and the large GEMMs'
verdicts. Prints markdown tables, then one PASS/FAIL line per criterion.
"""
import csv
import io
import json
import os
import subprocess
import sys
import time

build = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
cuscope = os.path.join(build, "bin", "cuscope")
ncu = "/usr/local/cuda/bin/ncu"
GEMM = ["python3", os.path.join(here, "gemm_precisions.py"), "4096,8192", "2"]
GPT2 = ["python3", os.path.join(here, "gpt2_step.py"), "2"]
RUNS = 5
POINTS = 3.0
os.makedirs(out, exist_ok=True)
env = dict(os.environ, PYTHONUNBUFFERED="1")
results = []  # (criterion, ok, detail)


def run(cmd, log, timeout=300):
    t0 = time.perf_counter()
    with open(os.path.join(out, log), "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=timeout)
    print(f"<!-- {' '.join(cmd[:4])} ...: rc={p.returncode}, {time.perf_counter() - t0:.0f} s -->")
    return p.returncode


def cuscope_rows(name, cmd):
    path = os.path.join(out, name + ".sqlite")
    if os.path.exists(path):
        os.remove(path)
    run([cuscope, "run", f"--output={path}", "--metrics=roofline,sol", "--report=none", "--"] + cmd,
        name + ".log")
    p = subprocess.run([cuscope, "report", path, "--top", "0", "--format", "json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"<!-- report {path} failed: {p.stderr[-500:]} -->")
        return []
    return json.loads(p.stdout).get("kernel_counters", {}).get("rows", [])


def ncu_rows(name, cmd, extra=()):
    path = os.path.join(out, name + ".csv")
    with open(path, "w") as f:
        subprocess.run([ncu, "--section", "SpeedOfLight", "--csv", "--page", "raw", *extra] + cmd,
                       stdout=f, stderr=subprocess.DEVNULL, env=env, timeout=300)
    text = open(path).read()
    start = text.find('"ID"')
    rows = list(csv.reader(io.StringIO(text[start:]))) if start >= 0 else []
    if len(rows) < 3:
        return {}
    header = rows[0]
    ix = {h: i for i, h in enumerate(header)}
    by_sig = {}
    for r in rows[2:]:
        if len(r) != len(header):
            continue
        num = lambda k: float(r[ix[k]].replace(",", ""))
        key = (Short(r[ix["Kernel Name"]]), Dim(r[ix["Grid Size"]]), Dim(r[ix["Block Size"]]))
        by_sig.setdefault(key, []).append(
            (num("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
             num("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")))
    return {k: (sum(a for a, _ in v) / len(v), sum(b for _, b in v) / len(v), len(v))
            for k, v in by_sig.items()}


def Short(name):
    """ncu shortens template kernels' names: compare the first 40 characters, "void " off."""
    name = name[5:] if name.startswith("void ") else name
    return name[:40]


def Dim(s):
    return tuple(int(x) for x in s.strip("() ").split(",")) if s.strip() else ()


def Key(row):
    return (Short(row["name"]), tuple(row["grid"]), tuple(row["block"])) if isinstance(
        row["grid"], list) else (Short(row["name"]), tuple(row["grid"][k] for k in "xyz"),
                                 tuple(row["block"][k] for k in "xyz"))


def NcuClass(sm, mem):
    """ncu's SOLBottleneck rule (60/80/10), its High Throughput split by the 10 points."""
    if sm < 80 and mem < 80 and sm < 60 and mem < 60:
        return "latency"
    if abs(sm - mem) >= 10:
        return "compute" if sm > mem else "memory"
    return "balanced"


def Sol(row):
    s = row.get("sol") or {}
    m = row.get("metrics", {})
    sm = m.get("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    mem = m.get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    return (sm if sm is not None else s.get("sm_pct"), mem if mem is not None else s.get("memory_pct"))


def Tensor(row):
    best = None
    for key, v in row.get("precisions", {}).items():
        if key.startswith("tensor_") and v["flops"] > 0 and (best is None or v["flops"] > best[1]):
            best = (key, v["flops"])
    return best


def compare(label, rows, ncu_sigs):
    print(f"\n## {label}: cuscope --metrics=roofline,sol against ncu SpeedOfLight\n")
    print("| kernel | grid | cuscope SM % | ncu SM % | cuscope mem % | ncu mem % | cuscope class "
          "| ncu class | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    n = close = agree = 0
    for row in rows:
        k = Key(row)
        if k not in ncu_sigs:
            continue
        sm, mem = Sol(row)
        if sm is None or mem is None:
            continue
        nsm, nmem, _ = ncu_sigs[k]
        n += 1
        ok_pts = abs(sm - nsm) <= POINTS and abs(mem - nmem) <= POINTS
        ok_cls = row.get("sol_class") == NcuClass(nsm, nmem)
        close += ok_pts
        agree += ok_cls
        print(f"| {row['name'][:60]} | {k[1]} | {sm:.1f} | {nsm:.1f} | {mem:.1f} | {nmem:.1f} | "
              f"{row.get('sol_class')} | {NcuClass(nsm, nmem)}{'' if ok_cls else ' **X**'} | "
              f"{row['verdict']} |")
    results.append((f"{label}: SM % and memory % within {POINTS:.0f} points of ncu",
                    n > 0 and close == n, f"{close}/{n} kernels"))
    results.append((f"{label}: same SOL class as ncu", n > 0 and agree == n, f"{agree}/{n} kernels"))


def gemms(runs):
    print("\n## GEMMs: tensor ops and verdicts (first run)\n")
    print("| kernel | precision | tensor ops / 2n^3 | % of roof | SM % | class | verdict | reason |")
    print("|---|---|---|---|---|---|---|---|")
    in_range = total = bound_ok = large = 0
    for row in runs[0]:
        t = Tensor(row)
        if t is None:
            continue
        key, flops = t
        n = 4096 if flops < 5e11 else 8192
        ratio = flops / (2.0 * n ** 3)
        total += 1
        in_range += 1.0 <= ratio <= 1.05
        if n == 8192:
            large += 1
            want = "memory-bound" if key == "tensor_int8" else "compute-bound"
            prec = key.split("_")[1].upper()
            ok = row["verdict"] == want and (want != "compute-bound" or f"tensor pipe ({prec})" in row["reason"])
            bound_ok += ok
        pct = row["precisions"][key]["pct_of_peak"]
        print(f"| {row['name'][:50]} | {key} | {ratio:.4f} | {pct:.1f} | {Sol(row)[0] or 0:.1f} | "
              f"{row.get('sol_class')} | {row['verdict']} | {row['reason'][:90]} |")
    results.append(("GEMMs: tensor ops within [1.00, 1.05] x 2n^3", total > 0 and in_range == total,
                    f"{in_range}/{total}"))
    results.append(("GEMMs 8192: compute-bound on the tensor pipe of their precision (INT8's "
                    "sm80 wmma kernel: memory-bound, as ncu's rule)", large > 0 and bound_ok == large,
                    f"{bound_ok}/{large}"))


def stability(runs):
    verdicts = {}
    for rows in runs:
        for row in rows:
            if row.get("duration_ns", 0) > 20000:
                verdicts.setdefault(Key(row), []).append(row["verdict"])
    unstable = {k: v for k, v in verdicts.items() if len(set(v)) > 1}
    print(f"\n## Verdict stability over {len(runs)} runs (kernels over 20 us)\n")
    for k, v in unstable.items():
        print(f"- {k[0]} {k[1]}: {v}")
    if not unstable:
        print("every kernel over 20 us got the same verdict in every run")
    results.append((f"same verdict in {len(runs)} runs for every kernel over 20 us",
                    bool(verdicts) and not unstable, f"{len(verdicts) - len(unstable)}/{len(verdicts)}"))


def main():
    t0 = time.perf_counter()
    print("# Verdicts against ncu (bench/device/verdicts.py)")
    runs = [cuscope_rows(f"gemm-{i}", GEMM) for i in range(RUNS)]
    ncu_gemm = ncu_rows("gemm-ncu", GEMM)
    gemms(runs)
    compare("GEMMs", runs[0], ncu_gemm)
    stability(runs)
    gpt2 = cuscope_rows("gpt2", GPT2)
    ncu_gpt2 = ncu_rows("gpt2-ncu", GPT2, ["--launch-count", "400"])
    compare("GPT-2 step", gpt2, ncu_gpt2)
    print(f"\n## Result ({time.perf_counter() - t0:.0f} s)\n")
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'}: {name} ({detail})")


if __name__ == "__main__":
    main()
