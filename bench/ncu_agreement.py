#!/usr/bin/env python3
"""How often cuscope's verdict class, as measured in a profile, agrees with ncu's
speed-of-light class on the same workload's launches, weighted by ncu's GPU time. No GPU:

    python3 bench/ncu_agreement.py NCU_CSV.gz PROFILE.sqlite [CUSCOPE=build/bin/cuscope]

NCU_CSV: ncu's raw page of one warm step (bench/device/sol_breakdown.py); PROFILE: a
cuscope profile of the same script on the same GPU model. Each ncu launch is matched to
cuscope's signature (kernel name without namespaces, casts and literal suffixes, grid,
block): cuscope gives one verdict per signature, or one per launch size where the
signature has sizes (docs/counters.md, "Launch sizes"): then the size whose durations
hold or are nearest ncu's duration of the launch (log scale). ncu gives one class per
launch. Prints the agreement, the best one class per signature could reach, and the
largest misses.
"""
import collections
import csv
import gzip
import json
import math
import re
import subprocess
import sys


def norm(name):
    n = name.replace("(anonymous namespace)", "<unnamed>")
    n = re.sub(r"\((\w+::)*\w+\)(?=-?\d)", "", n)  # casts: (at::native::ADAM_MODE)1
    n = n.split("(")[0]
    n = re.sub(r"\bfalse\b", "0", n)
    n = re.sub(r"\btrue\b", "1", n)
    n = re.sub(r"\b(\d+)(ull|ul|u|l)\b", r"\1", n)
    n = re.sub(r"\bvoid\b", "", n)
    n = re.sub(r"\bconst\b", "", n)
    return re.sub(r"(\w+|<unnamed>)::", "", n).replace(" ", "")


def num(text):
    return float(text.replace(",", ""))


def ncu_class(sm, mem):  # lib/analysis/verdict.cc, ClassifySol
    if sm < 60 and mem < 60 and sm < 80 and mem < 80:
        return "latency"
    if abs(sm - mem) >= 10:
        return "compute" if sm > mem else "memory"
    return "balanced"


def class_of(row, ns):
    """cuscope's class for a launch of `ns` of the signature `row` (a JSON counters row)."""
    sizes = row.get("sizes") or []
    if not sizes:
        return row.get("sol_class", "not measured")
    x = math.log(max(ns, 1.0))

    def distance(s):
        lo, hi = math.log(s["min_duration_ns"]), math.log(s["max_duration_ns"])
        return lo - x if x < lo else x - hi if x > hi else 0.0
    return min(sizes, key=distance)["sol_class"]


def main():
    rows = list(csv.DictReader(gzip.open(sys.argv[1], "rt")))[1:]  # row 2: units
    cuscope = sys.argv[3] if len(sys.argv) > 3 else "build/bin/cuscope"
    out = subprocess.run([cuscope, "report", sys.argv[2], "--format=json", "--top=0"],
                         capture_output=True, text=True, check=True).stdout
    verdicts = {}
    for r in json.loads(out)["kernel_counters"]["rows"]:
        if r["region"]:
            continue
        g, b = r["grid"], r["block"]
        verdicts[(norm(r["name"]), "(%d, %d, %d)" % tuple(g), "(%d, %d, %d)" % tuple(b))] = r
    total = agree = 0.0
    agreeing = 0
    misses = collections.Counter()
    per_sig = collections.defaultdict(collections.Counter)
    for r in rows:
        ns = num(r["gpu__time_duration.sum"])
        sm = num(r["sm__throughput.avg.pct_of_peak_sustained_elapsed"])
        mem = num(r["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"])
        key = (norm(r["Kernel Name"]), r["Grid Size"], r["Block Size"])
        theirs = ncu_class(sm, mem)
        per_sig[key][theirs] += ns
        mine = class_of(verdicts[key], ns) if key in verdicts else "not measured"
        total += ns
        if mine == theirs:
            agree += ns
            agreeing += 1
        else:
            misses[(key[0][:60], theirs, round(sm), round(mem), mine)] += ns
    best = sum(max(c.values()) for c in per_sig.values())
    print("class agrees on %.2f%% of GPU time, %d of %d launches (one class per signature "
          "could reach %.2f%%)" % (100 * agree / total, agreeing, len(rows), 100 * best / total))
    for (name, theirs, sm, mem, mine), ns in misses.most_common(10):
        print("  %.2f%%  %s: ncu %s (SM %d%%, memory %d%%), cuscope %s"
              % (100 * ns / total, name, theirs, sm, mem, mine))
    pairs = collections.Counter()
    for (_, theirs, _, _, mine), ns in misses.items():
        pairs[(theirs, mine)] += ns
    print("misses by class: " + ", ".join(
        "ncu %s, cuscope %s %.2f%%" % (theirs, mine, 100 * ns / total)
        for (theirs, mine), ns in pairs.most_common()))


if __name__ == "__main__":
    main()
