#!/usr/bin/env python3
"""Which few sub-metrics of ncu's speed-of-light breakdown give ncu's SOL class (issue 32).

    python3 bench/device/sol_subset.py CSV.gz [CSV.gz ...] [--chip GH100] [--cuscope PATH]
        [--target 98] [--steps 10] [--max-passes 1,2] [--worst 5] [--subset M1,M2,...]

Runs anywhere (no GPU) on the CSVs of bench/device/sol_breakdown.py (one warm training
step per model under ncu). Per launch: ncu's SM % and memory %, their SOL class (ncu's
SOLBottleneck rule, lib/analysis/verdict.h: both under 60 and neither at 80: latency;
else the side 10 or more points above the other: compute or memory; else balanced) and
its duration. The class is then drawn from max(subset) of the breakdown sub-metrics on
each side; subsets grow by greedy forward selection (per side with the other side
exact, both sides, both sides under a pass budget). A subset's score: its agreement
with ncu's class by GPU time in the worst model, then by GPU time and by launches over
all models (one more run scores by closeness: the time-weighted mean abs difference
from ncu's two values); equal scores go to fewer passes. Passes: `cuscope metrics --chip=CHIP
--set=<names> --format=json` (sets[].passes; `roofline` expanded to its metric names,
one configuration, as `cuscope run --metrics=roofline,<names>` collects them).
Prints markdown: the inputs, which sub-metric is the max (share of GPU time), the greedy
tables (agreement %, passes, |max(subset) - ncu| median and p95 in points) and the worst
disagreeing kernels of the first row at or above --target in every model.

Assumed CSV layout (ncu --csv --page raw --print-units base, or --import of a report
with those flags; gzip or plain; lines before the header are skipped):
  - a header row whose first field is "ID", with "Kernel Name", "Grid Size",
    "Block Size" and one column per metric under its full name;
  - a units row (empty "ID"): "%" for percentages; "ns" (usecond, msecond and second
    are scaled to ns) for gpu__time_duration.sum;
  - one row per launch, ID an integer; numbers may carry thousands separators
    ("1,234.5"); "n/a" or empty when not collected.
Targets: sm__throughput.avg.pct_of_peak_sustained_elapsed and
gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed. Candidates: the
other `*.avg.pct_of_peak_sustained_elapsed` columns, less those above their side's
value on some launch (not in the breakdown: lts__throughput); the SM side is sm__,
smsp__ and idc__, the memory side the rest. `<gpu>-<model>-ncu...` file names give the
model, else the file's stem.
"""
import argparse
import csv
import gzip
import io
import json
import os
import re
import subprocess
import sys
from collections import namedtuple

SM_TARGET = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEM_TARGET = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DURATION = "gpu__time_duration.sum"
SUFFIX = ".avg.pct_of_peak_sustained_elapsed"
SM_PREFIXES = ("sm__", "smsp__", "idc__")
TIME_UNITS = {"ns": 1.0, "nsecond": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6,
              "ms": 1e6, "second": 1e9, "s": 1e9}
MAX_TIE = 0.05  # points: a sub-metric within this of the side's max "is the max"
EXCESS = 0.5  # points above ncu's value: not a member of the breakdown (rounding aside)

Launch = namedtuple("Launch", "model id name grid block ns sm mem subs")


def number(text):
    """A CSV cell as a float ("1,234.5" -> 1234.5); None for "", "n/a" and text."""
    text = text.strip().replace(",", "")
    return float(text) if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text) else None


def model_of(path):
    base = os.path.basename(path)
    m = re.match(r"^[a-z]\d+[a-z]*-(.+?)-ncu", base)
    return m.group(1) if m else base.split(".")[0]


def parse(path):
    """The launches of one ncu raw CSV, and its candidate columns."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", errors="replace") as f:
        text = f.read()
    m = re.search(r'^"ID",', text, re.M)
    if not m:
        sys.exit(f"{path}: no ncu raw CSV header (a line starting with \"ID\")")
    rows = csv.reader(io.StringIO(text[m.start():]))
    header = next(rows)
    ix = {h: i for i, h in enumerate(header)}
    for need in (SM_TARGET, MEM_TARGET, DURATION, "Kernel Name", "Grid Size", "Block Size"):
        if need not in ix:
            sys.exit(f"{path}: column {need} missing")
    cands = [h for h in header if h.endswith(SUFFIX) and h not in (SM_TARGET, MEM_TARGET)]
    model, scale, out, skipped = model_of(path), 1.0, [], 0
    for r in rows:
        if len(r) != len(header):
            continue
        if not r[0].strip().isdigit():
            if r[0].strip() == "":  # the units row
                scale = TIME_UNITS.get(r[ix[DURATION]].strip(), 1.0)
            continue
        ns, sm, mem = (number(r[ix[k]]) for k in (DURATION, SM_TARGET, MEM_TARGET))
        if ns is None or sm is None or mem is None:
            skipped += 1
            continue
        subs = {c: v for c in cands if (v := number(r[ix[c]])) is not None}
        out.append(Launch(model, int(r[0]), r[ix["Kernel Name"]], r[ix["Grid Size"]],
                          r[ix["Block Size"]], ns * scale, sm, mem, subs))
    if skipped:
        print(f"<!-- {path}: {skipped} launches without SM %, memory % or duration skipped -->")
    return out, cands


def sol_class(sm, mem):
    """ncu's SOLBottleneck rule, as lib/analysis/verdict.cc ClassifySol."""
    high = sm >= 80.0 or mem >= 80.0
    if not high and sm < 60.0 and mem < 60.0:
        return "latency"
    if abs(sm - mem) >= 10.0:
        return "compute" if sm > mem else "memory"
    return "balanced"


def side_of(metric):
    return "sm" if metric.startswith(SM_PREFIXES) else "mem"


def short_name(name, width=48):
    """A kernel's name without return type, parameters and namespaces; template
    arguments cut to fit `width`."""
    name = name[5:] if name.startswith("void ") else name
    depth, cut, last_scope = 0, len(name), 0
    for i, ch in enumerate(name):
        if ch in "<([":
            if ch == "(" and depth == 0:
                cut = i
                break
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == ":" and depth == 0 and name[i:i + 2] == "::":
            last_scope = i + 2
    name = name[last_scope:cut]
    return name if len(name) <= width else name[:width - 3] + "..."


def percentile(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100.0 * (len(s) - 1))))]


class Passes:
    """Pass counts on the chip from `cuscope metrics` (cached)."""

    def __init__(self, cuscope, chip):
        self.cuscope, self.chip, self.cache = cuscope, chip, {}
        d = self.query(["roofline"])
        self.roofline = [m["name"] for m in d["sets"][0]["metrics"]] if d else []

    def query(self, names):
        p = subprocess.run([self.cuscope, "metrics", f"--chip={self.chip}",
                            "--set=" + ",".join(names), "--format=json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            return None
        return json.loads(p.stdout)

    def count(self, names, roofline=False):
        names = sorted(set(names) | (set(self.roofline) if roofline else set()))
        if not names:
            return 0
        key = tuple(names)
        if key not in self.cache:
            d = self.query(names)
            self.cache[key] = sum(s["passes"] for s in d["sets"]) if d else None
        return self.cache[key]


def fmt_passes(p):
    return "?" if p is None else str(p)


def agreement(launches, sm_vals, mem_vals, models):
    """{model or "all": (% of GPU time, % of launches)} whose class equals ncu's."""
    acc = {m: [0.0, 0.0, 0, 0] for m in models + ["all"]}
    for l, s, m in zip(launches, sm_vals, mem_vals):
        ok = sol_class(s, m) == sol_class(l.sm, l.mem)
        for a in (acc[l.model], acc["all"]):
            a[0], a[1], a[2], a[3] = a[0] + (l.ns if ok else 0.0), a[1] + l.ns, a[2] + ok, a[3] + 1
    return {k: (100.0 * a[0] / a[1] if a[1] else 0.0, 100.0 * a[2] / a[3] if a[3] else 0.0)
            for k, a in acc.items()}


def raise_side(cur, launches, metric):
    return [max(v, l.subs.get(metric, 0.0)) for v, l in zip(cur, launches)]


class Greedy:
    """Forward selection over candidate sub-metrics. `sides`: the sides it may add to;
    the other side (if any) keeps ncu's exact value. `limit`: the most passes the SM
    and memory subsets may need together (None: no limit). The score: agreement (the
    worst model's % of GPU time, then all models' by time and by launches), or with
    `closeness`, -(time-weighted mean of abs(SM - ncu) + abs(memory - ncu))."""

    def __init__(self, launches, models, cands, passes, sides=("sm", "mem"), limit=None,
                 closeness=False):
        self.launches, self.models, self.passes, self.limit = launches, models, passes, limit
        self.cands, self.closeness = [c for c in cands if side_of(c) in sides], closeness
        zero = [0.0] * len(launches)
        self.cur = {"sm": zero if "sm" in sides else [l.sm for l in launches],
                    "mem": zero if "mem" in sides else [l.mem for l in launches]}
        self.chosen = {"sm": [], "mem": []}
        self.exact = [s for s in ("sm", "mem") if s not in sides]
        self.total = sum(l.ns for l in launches)

    def score(self, vals):
        if self.closeness:
            return (-sum(l.ns * (abs(s - l.sm) + abs(m - l.mem)) for l, s, m in
                         zip(self.launches, vals["sm"], vals["mem"])) / self.total,)
        a = agreement(self.launches, vals["sm"], vals["mem"], self.models)
        return (min(a[m][0] for m in self.models), a["all"][0], a["all"][1])

    def trial(self, metric):
        vals = dict(self.cur)
        vals[side_of(metric)] = raise_side(self.cur[side_of(metric)], self.launches, metric)
        return self.score(vals), vals

    def step(self, base_score):
        """The next metric: the best strict improvement of the score that fits the
        pass limit; among equal scores, the fewest passes."""
        chosen = self.chosen["sm"] + self.chosen["mem"]
        trials = [(self.trial(c), c) for c in self.cands if c not in chosen]
        if self.closeness:  # a metric must cut the mean abs diff by 0.01 points or more
            base_score = (base_score[0] + 0.01,)
        trials = sorted((t for t in trials if t[0][0] > base_score),
                        key=lambda t: t[0][0], reverse=True)
        i = 0
        while i < len(trials):
            group = [t for t in trials[i:] if t[0][0] == trials[i][0][0]]
            i += len(group)
            options = []
            for t in group[:24]:
                p = self.passes.count(chosen + [t[1]])
                if self.limit is None or (p is not None and p <= self.limit):
                    options.append((999 if p is None else p, t))
            if options:
                return min(options, key=lambda o: o[0])[1]
        return None

    def run(self, steps):
        """Up to `steps` rows, until every model agrees on all its GPU time."""
        rows, score = [], self.score(self.cur)
        for _ in range(steps):
            pick = self.step(score)
            if pick is None:
                break
            (score, self.cur), metric = pick
            self.chosen[side_of(metric)].append(metric)
            rows.append(self.row(metric))
            if not self.closeness and min(rows[-1]["agree"][m][0] for m in self.models) >= 100:
                break
        return rows

    def row(self, metric):
        sm, mem = self.chosen["sm"], self.chosen["mem"]
        return {"added": metric, "sm": list(sm), "mem": list(mem), "exact": self.exact,
                "vals": dict(self.cur),
                "passes": (self.passes.count(sm), self.passes.count(mem),
                           self.passes.count(sm + mem), self.passes.count(sm + mem, True)),
                "agree": agreement(self.launches, self.cur["sm"], self.cur["mem"], self.models)}


def given_row(ctx, names):
    """The row of a subset named on the command line (either side, any order)."""
    g = Greedy(ctx.launches, ctx.models, [], ctx.passes)
    for metric in names:
        side = side_of(metric)
        g.cur[side] = raise_side(g.cur[side], ctx.launches, metric)
        g.chosen[side].append(metric)
    return g.row(None)


def closeness(launches, vals, side):
    ref = [l.sm if side == "sm" else l.mem for l in launches]
    d = [abs(a - b) for a, b in zip(vals, ref)]
    return f"{percentile(d, 50):.1f} / {percentile(d, 95):.1f}"


def worst(launches, vals, n):
    """The kernels (model, short name) whose class disagrees, by share of their model's
    GPU time, largest first: (model, name, share %, launches, longest launch, its
    subset SM %, its subset memory %)."""
    total, groups = {}, {}
    for i, l in enumerate(launches):
        total[l.model] = total.get(l.model, 0.0) + l.ns
        if sol_class(vals["sm"][i], vals["mem"][i]) != sol_class(l.sm, l.mem):
            g = groups.setdefault((l.model, short_name(l.name)), [0.0, 0, i])
            g[0], g[1] = g[0] + l.ns, g[1] + 1
            g[2] = i if l.ns > launches[g[2]].ns else g[2]
    out = [(model, name, 100.0 * ns / total[model], count, launches[i], vals["sm"][i],
            vals["mem"][i]) for (model, name), (ns, count, i) in groups.items()]
    return sorted(out, key=lambda w: -w[2])[:n]


def short_metric(metric):
    return metric[:-len(SUFFIX)] if metric.endswith(SUFFIX) else metric


def print_table(title, rows, ctx):
    print(f"\n## {title}\n")
    if not rows:
        print("(no sub-metric improves the agreement)")
        return
    launches, models = ctx.launches, ctx.models
    per_model = " | ".join(f"{m}: time / launches %" for m in models)
    print("| k | added | SM / mem metrics | passes SM | passes mem | passes both | "
          f"both + roofline | all: time % | all: launches % | {per_model} | "
          "SM abs diff med / p95 | mem abs diff med / p95 | worst: time % of its model: "
          "ncu SM/mem -> subset SM/mem |")
    print("|" + "---|" * (12 + len(models)))  # abs diffs: points, median / p95 over launches
    for k, r in enumerate(rows, 1):
        a = r["agree"]
        p = [fmt_passes(x) for x in r["passes"]]
        for i, side in enumerate(("sm", "mem")):
            if side in r["exact"]:
                p[i], p[2], p[3] = "ncu", "-", "-"
        cells = " | ".join(f"{a[m][0]:.2f} / {a[m][1]:.1f}" for m in models)
        w = worst(launches, r["vals"], 2)
        wtext = "; ".join(f"`{name}` ({model}) {share:.2f}: {l.sm:.0f}/{l.mem:.0f} -> "
                          f"{sm:.0f}/{mem:.0f}" for model, name, share, _, l, sm, mem in w)
        added = f"{side_of(r['added'])}: `{short_metric(r['added'])}`" if r["added"] else "given"
        print(f"| {k} | {added} | "
              f"{len(r['sm'])} / {len(r['mem'])} | {p[0]} | {p[1]} | {p[2]} | {p[3]} | "
              f"{a['all'][0]:.2f} | {a['all'][1]:.1f} | "
              f"{cells} | {closeness(launches, r['vals']['sm'], 'sm')} | "
              f"{closeness(launches, r['vals']['mem'], 'mem')} | {wtext or '-'} |")
    first = next((r for r in rows if min(r["agree"][m][0] for m in models) >= ctx.target),
                 rows[-1])
    print_worst(first, ctx)


def print_worst(row, ctx):
    names = lambda side: ", ".join(short_metric(m) for m in row[side]) or "ncu exact or none"
    print(f"\nWorst disagreeing kernels with SM: {names('sm')}; memory: {names('mem')}\n")
    print("| model | kernel | time % | launches | ncu SM / mem % (class) | "
          "subset SM / mem % (class) | grid, block (longest launch) |")
    print("|---|---|---|---|---|---|---|")
    rows = worst(ctx.launches, row["vals"], ctx.n_worst)
    if not rows:
        print("| - | none: every launch agrees | | | | | |")
    for model, name, share, count, l, s, m in rows:
        print(f"| {model} | `{name}` | {share:.2f} | {count} | {l.sm:.1f} / {l.mem:.1f} "
              f"({sol_class(l.sm, l.mem)}) | {s:.1f} / {m:.1f} ({sol_class(s, m)}) | "
              f"{l.grid}, {l.block} |")


def print_max_share(ctx, side):
    """Per sub-metric of a side: the share of GPU time and of launches where it is the
    side's max (within MAX_TIE points; ties count for each), its passes alone, and
    |metric - ncu| by GPU time."""
    cands = [c for c in ctx.cands if side_of(c) == side]
    time, count, diff = ({c: 0.0 for c in cands} for _ in range(3))
    total = sum(l.ns for l in ctx.launches)
    for l in ctx.launches:
        ref = l.sm if side == "sm" else l.mem
        vals = {c: l.subs.get(c, 0.0) for c in cands}
        top = max(vals.values(), default=0.0)
        for c, v in vals.items():
            diff[c] += abs(v - ref) * l.ns
            if v >= top - MAX_TIE:
                time[c] += l.ns
                count[c] += 1
    label = "SM" if side == "sm" else "memory"
    print(f"\n## Which {label} sub-metric is the max\n")
    print(f"| metric | passes alone | is the max: % of GPU time | % of launches | "
          f"abs(metric - ncu {label} %), time-weighted mean |")
    print("|---|---|---|---|---|")
    n = len(ctx.launches)
    for c in sorted(cands, key=lambda c: -time[c]):
        print(f"| `{short_metric(c)}` | {fmt_passes(ctx.passes.count([c]))} | "
              f"{100.0 * time[c] / total:.2f} | {100.0 * count[c] / n:.1f} | "
              f"{diff[c] / total:.1f} |")


def class_mix(launches):
    mix, total = {}, sum(l.ns for l in launches)
    for l in launches:
        c = sol_class(l.sm, l.mem)
        mix[c] = mix.get(c, 0.0) + l.ns
    return ", ".join(f"{c} {100.0 * t / total:.1f}%" for c, t in sorted(mix.items(),
                                                                      key=lambda kv: -kv[1]))


def print_inputs(ctx):
    print(f"# The SOL class from a subset of ncu's breakdown ({ctx.chip})\n")
    print("| model | file | launches | GPU time (ms) | ncu's class by GPU time |")
    print("|---|---|---|---|---|")
    for m in ctx.models:
        ls = [l for l in ctx.launches if l.model == m]
        files = ", ".join(sorted({os.path.basename(f) for f, mm in ctx.files if mm == m}))
        print(f"| {m} | {files} | {len(ls)} | {sum(l.ns for l in ls) / 1e6:.2f} | "
              f"{class_mix(ls)} |")
    full = {s: [c for c in ctx.cands if side_of(c) == s] for s in ("sm", "mem")}
    vals = {s: [max([l.subs.get(c, 0.0) for c in full[s]], default=0.0) for l in ctx.launches]
            for s in full}
    agree = agreement(ctx.launches, vals["sm"], vals["mem"], ctx.models)
    p = ctx.passes
    print(f"\nncu's two throughputs: {fmt_passes(p.count([SM_TARGET, MEM_TARGET]))} passes "
          f"({fmt_passes(p.count([SM_TARGET, MEM_TARGET], True))} with roofline); the roofline "
          f"set alone: {fmt_passes(p.count([], True))}.")
    print(f"Every sub-metric ({len(full['sm'])} SM, {len(full['mem'])} memory): passes "
          f"{fmt_passes(p.count(full['sm']))} SM, {fmt_passes(p.count(full['mem']))} memory, "
          f"{fmt_passes(p.count(full['sm'] + full['mem']))} both; their max against ncu's "
          f"value, abs diff median / p95: SM {closeness(ctx.launches, vals['sm'], 'sm')}, "
          f"memory {closeness(ctx.launches, vals['mem'], 'mem')} points; class agreement "
          f"{agree['all'][0]:.2f}% of GPU time, {agree['all'][1]:.1f}% of launches.")
    if ctx.excluded:
        print("Left out (above ncu's value of their side on some launch, so not in its "
              "breakdown): " + ", ".join(f"`{short_metric(c)}` (up to +{e:.1f} points)"
                                        for c, e in sorted(ctx.excluded.items())) + ".")


def parse_args():
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(os.path.dirname(os.path.dirname(here)), "build", "bin", "cuscope")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+", help="ncu raw CSVs (gzip or plain) of sol_breakdown.py")
    ap.add_argument("--chip", default="GH100")
    ap.add_argument("--cuscope", default=built if os.path.exists(built) else "cuscope")
    ap.add_argument("--target", type=float, default=98.0,
                    help="agreement %% of GPU time (every model) whose worst kernels to list")
    ap.add_argument("--steps", type=int, default=10, help="most metrics a greedy run adds")
    ap.add_argument("--max-passes", default="1,2", help="pass budgets of the limited runs")
    ap.add_argument("--worst", type=int, default=5, help="kernels in a worst-kernel list")
    ap.add_argument("--subset", action="append", default=[],
                    help="also evaluate these metrics (comma separated, full names); repeatable")
    return ap.parse_args()


def outside_breakdown(launches, cands):
    """{metric: largest excess} for the candidates above their side's ncu value by more
    than EXCESS points on some launch: not members of the breakdown (a member never
    exceeds the max), e.g. lts__throughput, which the SpeedOfLight section also has."""
    out = {}
    for c in cands:
        excess = max((l.subs[c] - (l.sm if side_of(c) == "sm" else l.mem)
                      for l in launches if c in l.subs), default=0.0)
        if excess > EXCESS:
            out[c] = excess
    return out


class Context:
    def __init__(self, args):
        self.files, self.launches, self.cands = [], [], []
        for path in args.csv:
            launches, cands = parse(path)
            self.files.append((path, model_of(path)))
            self.launches += launches
            self.cands += [c for c in cands if c not in self.cands]
        if not self.launches:
            sys.exit("no launches with SM %, memory % and duration in the input")
        self.models = list(dict.fromkeys(l.model for l in self.launches))
        self.excluded = outside_breakdown(self.launches, self.cands)
        self.cands = [c for c in self.cands if c not in self.excluded]
        self.chip, self.target, self.n_worst = args.chip, args.target, args.worst
        self.passes = Passes(args.cuscope, args.chip)
        if not self.passes.roofline:
            print(f"<!-- {args.cuscope} metrics --chip={args.chip} failed: passes unknown -->")


def print_given(ctx, names):
    known = [n for n in names if n in ctx.cands or n in ctx.excluded]
    if len(known) < len(names):
        print(f"\n<!-- --subset: not in the CSVs: {', '.join(set(names) - set(known))} -->")
    if known:
        print_table(f"Given subset: {', '.join(short_metric(n) for n in known)}",
                    [given_row(ctx, known)], ctx)


def main():
    args = parse_args()
    ctx = Context(args)
    print_inputs(ctx)
    print_max_share(ctx, "sm")
    print_max_share(ctx, "mem")
    runs = [("Greedy, SM side (memory % exact from ncu)", dict(sides=("sm",))),
            ("Greedy, memory side (SM % exact from ncu)", dict(sides=("mem",))),
            ("Greedy, both sides", {}),
            ("Greedy, both sides, by closeness to ncu's values", dict(closeness=True))]
    for p in (int(x) for x in args.max_passes.split(",") if x.strip()):
        runs.append((f"Greedy, both sides, at most {p} pass{'es' if p > 1 else ''} together",
                     dict(limit=p)))
    for title, kw in runs:
        greedy = Greedy(ctx.launches, ctx.models, ctx.cands, ctx.passes, **kw)
        print_table(title, greedy.run(args.steps), ctx)
    for subset in args.subset:
        print_given(ctx, [n.strip() for n in subset.split(",") if n.strip()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
