#!/usr/bin/env bash
# Kernels that run only inside a CUDA graph (examples/graph_only.cu): cuscope's verdicts
# from GPU metrics samples against ncu's SpeedOfLight on the same kernels measured node
# by node (`--graph-profiling node`), in one call on one GPU. Prints one line a kernel.
#   bench/device/graph_verdicts.sh BUILD OUTDIR
set -u
build=$(cd "${1:?BUILD}" && pwd)
out=${2:?OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$build/device-libs:${LD_LIBRARY_PATH:-}
echo "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" \
  "commit: $(cat "$build/COMMIT" 2>/dev/null)"
"$build/bin/cuscope" run --output="$out/graph_only.sqlite" --gpu-metrics=1 -- \
  "$build/examples/graph_only" 3 >"$out/cuscope.log" 2>&1
echo "cuscope --gpu-metrics=1: rc=$?"
"$build/bin/cuscope" report "$out/graph_only.sqlite" --format=json --top=0 >"$out/report.json"
# Two graph launches, every node of each: 6 kernels.
timeout 300 /usr/local/cuda/bin/ncu --graph-profiling node --clock-control none \
  --section SpeedOfLight --print-units base --csv --page raw -c 6 \
  "$build/examples/graph_only" 0 >"$out/ncu.csv" 2>"$out/ncu.err"
echo "ncu --graph-profiling node: rc=$?, $(grep -c '^"' "$out/ncu.csv") csv rows"
python3 - "$out/report.json" "$out/ncu.csv" "$here/.." <<'PY'
import csv, json, sys
sys.path.insert(0, sys.argv[3])
from ncu_agreement import ncu_class  # ncu's class, as lib/analysis/verdict.cc draws it

rows = json.load(open(sys.argv[1])).get("gpu_metrics", {}).get("kernels", {}).get("rows", [])
mine = {r["name"].split("(")[0]: r for r in rows}
lines = [l for l in open(sys.argv[2]) if l.startswith('"')]
ncu = list(csv.DictReader(lines))[1:]

seen = set()
agree = 0
for r in ncu:
    name = r["Kernel Name"].split("(")[0]
    if name in seen:
        continue
    seen.add(name)
    sm = float(r["sm__throughput.avg.pct_of_peak_sustained_elapsed"].replace(",", ""))
    mem = float(r["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"].replace(",", ""))
    theirs = ncu_class(sm, mem)
    m = mine.get(name)
    v = m.get("verdict") if m else None
    ours = v["sol_class"] if v else "none"
    agree += ours == theirs
    print("%-12s ncu %-8s (SM %5.1f%%, memory %5.1f%%)  cuscope %-8s %s"
          % (name, theirs, sm, mem, ours,
             "(%d samples: %s)" % (m["samples"], v["reason"]) if v else ""))
print("graph kernels whose sampled class agrees with ncu's: %d of %d" % (agree, len(seen)))
PY
