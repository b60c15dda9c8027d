#!/usr/bin/env python3
"""Counter collection against ncu on the GPU machine, in one run: speed and values.

    python3 bench/device/counters.py BUILD_DIR OUT_DIR > counters.md

1. The program of shared/device/measured.md (counters_demo: 5 SAXPY on 2^26 floats,
   3 naive SGEMM 2048, 1,000 1-block kernels), 6 metrics on every launch: ncu vs
   cuscope (rotate), wall time of the whole run.
2. The default signature mode (--metrics=roofline, one sample per signature): the
   whole profiled run against the unprofiled run plus start-up.
3. Values: cuscope's against ncu's for the same kernels and metrics (ncu with its
   default cache control: caches flushed before each replay pass).
"""
import csv
import io
import os
import sqlite3
import statistics
import subprocess
import sys
import time

build = os.path.abspath(sys.argv[1])
out = os.path.abspath(sys.argv[2])
src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
demo = [os.path.join(build, "examples", "counters_demo"), "5", "3", "1000"]
cuscope = os.path.join(build, "bin", "cuscope")
ncu = "/usr/local/cuda/bin/ncu"
SIX = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
       "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
       "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
       "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"]


def timed(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=580)
    return time.perf_counter() - t0, p


def median_time(cmd, n=3):
    times = []
    for _ in range(n):
        t, p = timed(cmd)
        if p.returncode != 0:
            raise RuntimeError(f"{cmd} failed: {p.stderr[-2000:]}")
        times.append(t)
    return statistics.median(times), times


def counters(path):
    db = sqlite3.connect(path)
    q = """SELECT s.id, n.text, m.text, v.value FROM counter_sets s
           JOIN strings n ON n.id = s.name_id JOIN counter_values v ON v.set_id = s.id
           JOIN strings m ON m.id = v.metric_id"""
    sets = {}
    for sid, name, metric, value in db.execute(q):
        sets.setdefault(sid, {"name": name})[metric] = value
    return list(sets.values())


def by_kernel(sets, prefix, metric):
    vals = [s[metric] for s in sets if s["name"].startswith(prefix) and metric in s]
    return statistics.median(vals) if vals else float("nan")


def ncu_csv(cmd):
    t, p = timed(cmd)
    rows = list(csv.reader(io.StringIO(p.stdout[p.stdout.find('"ID"'):])))
    header, data = rows[0], rows[1:]
    vals = {}
    for r in data:
        d = dict(zip(header, r))
        name = d.get("Kernel Name", "")
        try:
            v = float(d["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        vals.setdefault((name.split("(")[0], d["Metric Name"]), []).append(v)
    return t, {k: statistics.median(v) for k, v in vals.items()}, p


print("# Counters: cuscope against ncu (H200)\n")
plain, plain_all = median_time(demo)
print(f"- counters_demo unprofiled: {plain:.2f} s (runs {', '.join(f'{x:.2f}' for x in plain_all)})")
startup, _ = median_time([cuscope, "run", "--report=none", "--output=/tmp/c0.sqlite",
                          "--metrics=none", "--"] + demo)
print(f"- under cuscope, tracing only: {startup:.2f} s")

rot_path = os.path.join(out, "h200-counters-rotate.sqlite")
rot, rot_all = median_time([cuscope, "run", "--report=none", f"--output={rot_path}",
                            "--metrics=" + ",".join(SIX), "--per_signature=all", "--"] + demo)
print(f"- cuscope, 6 metrics on every launch (rotate): {rot:.2f} s (runs {', '.join(f'{x:.2f}' for x in rot_all)})")
sig_path = os.path.join(out, "h200-counters-roofline.sqlite")
sig, sig_all = median_time([cuscope, "run", "--report=none", f"--output={sig_path}",
                            "--metrics=roofline", "--"] + demo)
print(f"- cuscope, default signature mode, roofline set: {sig:.2f} s (runs {', '.join(f'{x:.2f}' for x in sig_all)})")
meta = {k[len("extra."):]: v for k, v in sqlite3.connect(sig_path).execute("SELECT key, value FROM meta") if k.startswith("extra.")}
sig_setup = float(meta.get("counters.setup_ms", "nan")) / 1e3
sig_measure = float(meta.get("counters.measure_ms", "nan")) / 1e3
print(f"  (of the last run: counter set-up {sig_setup:.3f} s, inside measured launches {sig_measure:.3f} s, "
      f"{meta.get('counters.launches_measured')} launches, {meta.get('counters.passes')} passes, "
      f"{meta.get('counters.strategy')})")
kr_path = "/tmp/c-kr.sqlite"
kr, _ = median_time([cuscope, "run", "--report=none", f"--output={kr_path}",
                     "--metrics=" + ",".join(SIX), "--per_signature=all", "--replay=kernel", "--"] + demo, 1)
print(f"- cuscope, 6 metrics on every launch, kernel replay: {kr:.2f} s")

ncu_t, ncu_vals, p = ncu_csv([ncu, "--csv", "--print-units", "base", "--clock-control", "none",
                              "--metrics", ",".join(SIX)] + demo)
print(f"- ncu, 6 metrics on every launch: {ncu_t:.1f} s (exit {p.returncode})\n")
print("| measure | value |\n| --- | --- |")
print(f"| ncu / cuscope rotate (every launch, 6 metrics) | {ncu_t / rot:.1f}x |")
print(f"| ncu / cuscope kernel replay (every launch, 6 metrics) | {ncu_t / kr:.1f}x |")
print(f"| signature mode / traced run | {sig / startup:.2f} |")
print(f"| signature mode / (traced run + counter set-up) | {sig / (startup + sig_setup):.2f} (target <= 2) |\n")

rsets = counters(rot_path)
ksets = counters(kr_path)
print("Values (median per kernel; cuscope rotate and kernel replay vs ncu, same launches):\n")
print("| kernel | metric | ncu | cuscope rotate | diff | cuscope kernel replay | diff |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for kern in ["saxpy", "sgemm_naive", "one_block"]:
    for m in SIX:
        nv = ncu_vals.get((kern, m), float("nan"))
        rv = by_kernel(rsets, kern, m)
        kv = by_kernel(ksets, kern, m)
        def d(v):
            return f"{(v - nv) / nv * 100:+.2f}%" if nv else ("0" if v == 0 else "-")
        print(f"| {kern} | {m} | {nv:.6g} | {rv:.6g} | {d(rv)} | {kv:.6g} | {d(kv)} |")

# bf16 GEMM 8192 through PyTorch: tensor ops and duration, ncu vs cuscope.
gemm = ["python3", os.path.join(src, "examples", "python", "bf16_gemm.py"), "8192", "2"]
TM = ["gpu__time_duration.sum", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum",
      "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", "dram__bytes.sum"]
g_path = os.path.join(out, "h200-bf16-gemm.sqlite")
t, p = timed([cuscope, "run", "--report=none", f"--output={g_path}", "--metrics=roofline",
              "--launch_skip=1", "--kernels=gemm|sm90|nvjet|cutlass", "--"] + gemm)
gsets = counters(g_path)
t2, gvals, p2 = ncu_csv([ncu, "--csv", "--print-units", "base", "--clock-control", "none",
                         "-k", "regex:gemm|sm90|nvjet|cutlass", "--launch-skip", "1", "--launch-count", "1",
                         "--metrics", ",".join(TM)] + gemm)
print(f"\nbf16 GEMM 8192 (cuscope {t:.1f} s, ncu {t2:.1f} s):\n")
print("| kernel | metric | ncu | cuscope | diff |\n| --- | --- | --- | --- | --- |")
for s in gsets[:1]:
    for m in TM:
        nv = statistics.median([v for (k, mm), v in gvals.items() if mm == m] or [float("nan")])
        cv = s.get(m, float("nan"))
        diff = f"{(cv - nv) / nv * 100:+.2f}%" if nv and nv == nv else "-"
        print(f"| {s['name'][:50]} | {m} | {nv:.6g} | {cv:.6g} | {diff} |")
    dur = s.get("gpu__time_duration.sum", 0)
    ops = s.get(TM[1], 0) + s.get(TM[2], 0)
    print(f"\n2n^3 = {2 * 8192 ** 3:.6g}; tensor ops counted {ops:.6g} (ratio {ops / (2 * 8192 ** 3):.3f}); "
          f"2n^3/duration = {2 * 8192 ** 3 / (dur * 1e-9) / 1e12:.1f} TFLOP/s")
