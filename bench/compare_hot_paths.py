#!/usr/bin/env python3
"""The hot paths of two builds side by side (issue #31: medians within 3% or better).

    python3 bench/compare_hot_paths.py BEFORE_BUILD AFTER_BUILD [rounds=5]

Runs `collector_bench` (the launch callback, trace only and with the counter sampler
subscribed but nothing to measure; a completed activity buffer of 1,000 and 10,000
kernel records) and `store_bench` (records appended to the profile) of both builds,
alternating before/after each round so that both see the same machine, each case with
Google Benchmark's repetitions. Prints one markdown row per case: the median CPU time
per iteration of each build over all rounds' repetitions, and after/before.
"""
import json
import os
import statistics
import subprocess
import sys

before, after = (os.path.abspath(p) for p in sys.argv[1:3])
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
CASES = {
    "collector_bench": "BM_LaunchCallback_TraceOnly|BM_LaunchCallback_CountersOff|"
                       "BM_BufferCompleted_Kernels",
    "store_bench": "BM_StoreAppend_",
}


def run(build, binary, pattern):
    """{case: [cpu time per iteration (ns) of each repetition]} of one run."""
    out = subprocess.run(
        [os.path.join(build, "bench", binary), f"--benchmark_filter={pattern}",
         "--benchmark_repetitions=5", "--benchmark_format=json", "--benchmark_min_time=0.2"],
        capture_output=True, text=True, check=True).stdout
    times = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        times.setdefault(b["run_name"], []).append(b["cpu_time"] * scale)
    return times


def main():
    samples = {"before": {}, "after": {}}
    for r in range(rounds):
        order = [("before", before), ("after", after)]
        if r % 2:
            order.reverse()
        for side, build in order:
            for binary, pattern in CASES.items():
                for case, ts in run(build, binary, pattern).items():
                    samples[side].setdefault(case, []).extend(ts)
    print("| case | before (median) | after (median) | after / before |")
    print("| --- | --- | --- | --- |")
    worst = 0.0
    for case in samples["before"]:
        if case not in samples["after"]:
            continue
        b = statistics.median(samples["before"][case])
        a = statistics.median(samples["after"][case])
        worst = max(worst, a / b)
        print(f"| {case} | {b:,.0f} ns | {a:,.0f} ns | {a / b:.3f} |")
    print(f"\nworst after/before: {worst:.3f} ({rounds} rounds x 5 repetitions a side)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
