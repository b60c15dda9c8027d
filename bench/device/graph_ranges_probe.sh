#!/usr/bin/env bash
# Builds bench/device/graph_ranges_probe.cu into OUTDIR and runs it: every mode in one
# process (the table last), then, if that process failed, each mode in a process of its
# own so that a crash in one mode hides none of the others. Logs in OUTDIR.
#   bench/device/graph_ranges_probe.sh OUTDIR
set -u
cd "$(dirname "$0")/../.."
out=${1:?OUTDIR}; mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
cupti=$cuda/extras/CUPTI
export LD_LIBRARY_PATH=$cupti/lib64:$cuda/lib64:${LD_LIBRARY_PATH:-}
"$cuda/bin/nvcc" -std=c++17 -O2 -arch=sm_90 -I"$cupti/include" -L"$cupti/lib64" \
  -L"$cuda/lib64" -L"$cuda/lib64/stubs" bench/device/graph_ranges_probe.cu \
  -o "$out/graph_ranges_probe" -lcupti -lcuda || { echo "build failed"; exit 1; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
"$out/graph_ranges_probe" 2>&1 | tee "$out/all.log"
rc=${PIPESTATUS[0]}
echo "all modes in one process: rc=$rc"
[ "$rc" = 0 ] && exit 0
for mode in direct-auto-kernel graph-auto-kernel graph-auto-user graph-auto-user-x2 \
  graph-user-user direct-auto-user; do
  "$out/graph_ranges_probe" "$mode" >"$out/$mode.log" 2>&1
  echo "$mode alone: rc=$?"; sed -n '/^TABLE/,$p' "$out/$mode.log"
done
