#!/usr/bin/env python3
"""Probe (issue 10): why short GPT-2 kernels read DRAM throughput 3-25 points above ncu's.

    python3 bench/device/dram_probe.py BUILD_DIR OUT_DIR

The GPT-2 step (bench/device/gpt2_step.py, 2 steps) under
  A  cuscope --metrics=<DRAM read/write, L2 bytes, duration>   (one pass: no memory restore)
  B  cuscope --metrics=roofline,sol,<the same>                  (16 passes, kernel replay)
  N  ncu --metrics <the same> --cache-control none --clock-control none
  F  ncu --metrics <the same> --cache-control all  --clock-control none
launch by launch (cuscope's measured launch k against ncu's launch ID k, as
bench/device/verdicts.py matches them). If A matches ncu and B does not, the extra DRAM
traffic comes from the passes after CUPTI's memory restore. VERDICTS_OFFLINE=1 reuses OUT.
"""
import csv
import io
import os
import sqlite3
import subprocess
import sys
import time

build, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
cuscope = os.path.join(build, "bin", "cuscope")
GPT2 = ["python3", os.path.join(here, "gpt2_step.py"), "2"]
METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "gpu__time_duration.sum"]
LAUNCHES = os.environ.get("NCU_LAUNCHES", "300")
OFFLINE = os.environ.get("VERDICTS_OFFLINE") == "1"
os.makedirs(out, exist_ok=True)


def run(cmd, log):
    t0 = time.perf_counter()
    if not OFFLINE:
        with open(os.path.join(out, log), "w") as f:
            subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=400)
    print(f"<!-- {log}: {time.perf_counter() - t0:.0f} s -->", flush=True)


def cuscope_values(name, metrics):
    """launch ordinal -> {metric: value} for the launches cuscope measured."""
    path = os.path.join(out, name + ".sqlite")
    if not OFFLINE and os.path.exists(path):
        os.remove(path)
    run([cuscope, "run", f"--output={path}", f"--metrics={metrics}", "--report=none", "--"] + GPT2,
        name + ".log")
    db = sqlite3.connect(path)
    order = {cid: i for i, (cid,) in enumerate(
        db.execute("SELECT correlation_id FROM kernels ORDER BY correlation_id"))}
    values = {}
    for sid, cid, passes in db.execute(
            "SELECT l.set_id, l.correlation_id, c.passes FROM counter_launches l "
            "JOIN counter_sets c ON c.id = l.set_id"):
        if cid in order:
            v = dict(db.execute("SELECT s.text, value FROM counter_values v JOIN strings s "
                                "ON s.id = v.metric_id WHERE set_id = ?", (sid,)))
            v["passes"] = passes
            values[order[cid]] = v
    return values


def ncu_values(name, cache):
    path = os.path.join(out, name + ".csv")
    if not OFFLINE:
        t0 = time.perf_counter()
        with open(path, "w") as f:
            subprocess.run(["/usr/local/cuda/bin/ncu", "--metrics", ",".join(METRICS), "--csv",
                            "--page", "raw", "--cache-control", cache, "--clock-control", "none",
                            "--launch-count", LAUNCHES] + GPT2,
                           stdout=f, stderr=subprocess.DEVNULL, timeout=400)
        print(f"<!-- {name}: {time.perf_counter() - t0:.0f} s -->", flush=True)
    text = open(path).read()
    start = text.find('"ID"')
    rows = list(csv.reader(io.StringIO(text[start:]))) if start >= 0 else []
    if len(rows) < 3:
        return {}
    ix = {h: i for i, h in enumerate(rows[0])}
    got = {}
    for r in rows[2:]:
        if len(r) != len(rows[0]):
            continue
        got[int(r[ix["ID"]])] = dict({m: float(r[ix[m]].replace(",", "")) for m in METRICS if m in ix},
                                     name=r[ix["Kernel Name"]])
    return got


def main():
    a = cuscope_values("dram-a", ",".join(METRICS))
    b = cuscope_values("dram-b", "roofline,sol," + ",".join(METRICS))
    n = ncu_values("dram-ncu-none", "none")
    f = ncu_values("dram-ncu-all", "all")
    print("\n| launch | kernel | dur us A/B/N/F | DRAM rd MB A/B/N/F | DRAM wr MB A/B/N/F | "
          "L2 MB A/B/N/F | passes A/B |")
    print("|---|---|---|---|---|---|---|")
    ratios = {"A": [], "B": []}
    for launch in sorted(set(a) | set(b)):
        if launch not in n:
            continue
        cols = [a.get(launch, {}), b.get(launch, {}), n.get(launch, {}), f.get(launch, {})]

        def cell(metric, scale):
            return "/".join(f"{c[metric] * scale:.2f}" if metric in c else "-" for c in cols)

        print(f"| {launch} | {n[launch]['name'][:50]} | {cell('gpu__time_duration.sum', 1e-3)} | "
              f"{cell('dram__bytes_read.sum', 1e-6)} | {cell('dram__bytes_write.sum', 1e-6)} | "
              f"{cell('lts__t_bytes.sum', 1e-6)} | {cols[0].get('passes', '-')}/{cols[1].get('passes', '-')} |")
        ref = n[launch]["dram__bytes_read.sum"] + n[launch]["dram__bytes_write.sum"]
        for key, c in (("A", cols[0]), ("B", cols[1])):
            if "dram__bytes_read.sum" in c and ref > 1e6:
                ratios[key].append((c["dram__bytes_read.sum"] + c["dram__bytes_write.sum"]) / ref)
    for key, r in ratios.items():
        if r:
            r.sort()
            print(f"\n{key}: DRAM bytes / ncu(none) over {len(r)} launches of > 1 MB: median "
                  f"{r[len(r) // 2]:.3f}, min {r[0]:.3f}, max {r[-1]:.3f}")


if __name__ == "__main__":
    main()
