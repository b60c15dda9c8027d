#!/usr/bin/env bash
# Runs cuscope's GPU tests (and, with `all`, the overhead benchmark) on the GPU
# machine, from a build made elsewhere and carried along (shared/device/README.md).
#
#   tests/gpu/run.sh [tests|faults|advisor|sampling|source|rotate|overhead|counters|all]   logs and profiles go
#                                                                   to $OUT (default
#                                                                   /tmp/cuscope-gpu)
# tests: gpu_test, then fault_test, advisor_test and the source tests; source: the PC
# sampling tests alone (source_test, source_triton_test.py); faults: fault_test alone;
# advisor: advisor_test alone (the examples of examples/advisor/, profiles in
# $OUT/advisor/); ADVISOR_CASES=rule,rule runs only those cases. sampling: GPU metrics
# (docs/gpu-metrics.md): its gpu_test case, then the training step unprofiled and sampled
# every 10 and 2 us (bench/device/train_step.py, 2 rounds, no ncu). rotate: the
# training step under rotate with one sample per
# signature (sol and roofline, 1 round of 16 steps) with its counters.host_ms. PROBES=1:
# first the counter image probes (tests/gpu/probes/image_{reinit,size}_probe,
# replay_switch_probe and launch_cost_probe, built by
# hand with nvcc into $BUILD/tests/gpu). CUSCOPE_INTERNAL_IMAGE_SIZING=0 reaches the
# profiled step: rotate's counter images of the window limit's size (not sized per set).
#
# Prints a short table last: the GPU, the commit, each test's result.
set -u
cd "$(dirname "$0")/../.."
what=${1:-tests}
BUILD=${BUILD:-build}
OUT=${OUT:-/tmp/cuscope-gpu}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$BUILD/device-libs:${LD_LIBRARY_PATH:-}
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
commit=$(cat "$BUILD/COMMIT" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  gpu: ${gpu:-none}  commit: $commit" | tee "$OUT/summary.txt"
rc=0
# Faults in the profiled process (tests/gpu/fault_test.cc); mounts a tmpfs (root).
run_fault_tests() {
  "$BUILD/tests/gpu/fault_test" --gtest_output="xml:$OUT/fault_test.xml" >"$OUT/fault_test.log" 2>&1 || rc=1
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST' "$OUT/fault_test.log" | sort -u | tee -a "$OUT/summary.txt"
  grep -E '^(SIGKILL|SIGSEGV|full disk|vanished directory|64 threads|tiny buffers)' "$OUT/fault_test.log" | tee -a "$OUT/summary.txt"
}
# The advisor's examples (tests/gpu/advisor_test.cc): one "advisor:" line per case.
run_advisor_tests() {
  local filter='*'
  [ -n "${ADVISOR_CASES:-}" ] && filter="*/${ADVISOR_CASES//,/:*/}"
  CUSCOPE_ADVISOR_OUT="$OUT/advisor" "$BUILD/tests/gpu/advisor_test" --gtest_filter="$filter" \
    --gtest_output="xml:$OUT/advisor_test.xml" >"$OUT/advisor_test.log" 2>&1 || rc=1
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST' "$OUT/advisor_test.log" | sort -u | tee -a "$OUT/summary.txt"
  grep -E '^advisor:' "$OUT/advisor_test.log" | tee -a "$OUT/summary.txt"
}
if [ "$what" = faults ]; then
  run_fault_tests
fi
if [ "$what" = advisor ]; then
  run_advisor_tests
fi
if [ "$what" = sampling ]; then
  "$BUILD/tests/gpu/gpu_test" --gtest_filter='*GpuMetrics*' --gtest_output="xml:$OUT/gpu_metrics.xml" \
    >"$OUT/gpu_metrics.log" 2>&1 || rc=1
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST|samples|sampled metrics|left out|: [0-9]+ samples' \
    "$OUT/gpu_metrics.log" | tee -a "$OUT/summary.txt"
  TRAIN_STEP_MODES="gpu metrics" TRAIN_STEP_NCU=0 python3 bench/device/train_step.py "$BUILD" \
    "$OUT/train_step" 2 24 >"$OUT/train_step.md" 2>"$OUT/train_step.err" || rc=1
  cat "$OUT/train_step.md"
fi
# PC sampling (issue 36): source_test (examples/source_hotspots), then the Triton kernel's
# Python lines (tests/gpu/source_triton_test.py; skipped without PyTorch and Triton).
run_source_tests() {
  "$BUILD/tests/gpu/source_test" --gtest_output="xml:$OUT/source_test.xml" >"$OUT/source_test.log" 2>&1 || rc=1
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST|^mixed_kernel:' "$OUT/source_test.log" | sort -u | tee -a "$OUT/summary.txt"
  python3 tests/gpu/source_triton_test.py "$BUILD" >"$OUT/source_triton.log" 2>&1
  local t=$?
  [ $t -ne 0 ] && [ $t -ne 77 ] && rc=1
  echo "source_triton: rc=$t $(tail -1 "$OUT/source_triton.log")" | tee -a "$OUT/summary.txt"
}
if [ "$what" = source ]; then
  run_source_tests
fi
if [ "$what" = rotate ]; then
  if [ "${PROBES:-0}" = 1 ]; then
    for probe in image_reinit_probe image_size_probe replay_switch_probe launch_cost_probe; do
      [ -x "$BUILD/tests/gpu/$probe" ] || continue
      "$BUILD/tests/gpu/$probe" 2>&1 | tee "$OUT/$probe.log" | tee -a "$OUT/summary.txt"
    done
    # The switches on one object, last and apart (they crashed the process once).
    [ -x "$BUILD/tests/gpu/replay_switch_probe" ] &&
      { "$BUILD/tests/gpu/replay_switch_probe" one-object 2>&1; echo "one-object rc=$?"; } |
      tee "$OUT/replay_switch_one_object.log" | tee -a "$OUT/summary.txt"
  fi
  TRAIN_STEP_MODES="1 per signature" TRAIN_STEP_NCU=0 python3 bench/device/train_step.py "$BUILD" \
    "$OUT/train_step" 1 16 >"$OUT/train_step.md" 2>"$OUT/train_step.err" || rc=1
  cat "$OUT/train_step.md"
fi
if [ "$what" = tests ] || [ "$what" = all ]; then
  "$BUILD/tests/gpu/gpu_test" --gtest_output="xml:$OUT/gpu_test.xml" >"$OUT/gpu_test.log" 2>&1 || rc=1
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST' "$OUT/gpu_test.log" | sort -u | tee -a "$OUT/summary.txt"
  run_fault_tests
  run_advisor_tests
  run_source_tests
  # The recorded source hotspots profile (tests/data/real/<gpu>-source-hotspots.sqlite).
  "$BUILD/bin/cuscope" run --source --output="$OUT/source-hotspots.sqlite" --report=none -- \
    "$BUILD/examples/source_hotspots" 20 >/dev/null 2>&1
  # Real profiles for tests/data and the README's demo.
  CUDA_INJECTION64_PATH=$PWD/$BUILD/lib/libcuscope.so NVTX_INJECTION64_PATH=$PWD/$BUILD/lib/libcuscope.so \
    CUSCOPE_OUTPUT="$OUT/h200-timeline-demo.sqlite" CUSCOPE_REPORT=none "$BUILD/examples/timeline_demo" >/dev/null 2>&1
  "$BUILD/bin/cuscope" run --output="$OUT/h200-torch-loop.sqlite" --report=none -- python3 examples/python/torch_loop.py 10 >/dev/null 2>&1
  cp "$(dirname "$(mktemp -u)")"/transformer_*.sqlite "$OUT/" 2>/dev/null
  cp "$(dirname "$(mktemp -u)")"/counters_roofline.sqlite "$OUT/h200-counters-demo.sqlite" 2>/dev/null
  "$BUILD/bin/cuscope" report "$OUT/h200-timeline-demo.sqlite" >"$OUT/timeline-demo-report.txt" 2>&1
  tail -n 40 "$OUT/timeline-demo-report.txt"
fi
if [ "$what" = overhead ] || [ "$what" = all ]; then
  python3 bench/device/overhead.py "$BUILD" "${ROUNDS:-5}" >"$OUT/overhead.md" 2>"$OUT/overhead.err" || rc=1
  cat "$OUT/overhead.md"
fi
if [ "$what" = counters ] || [ "$what" = all ]; then
  python3 bench/device/counters.py "$BUILD" "$OUT" >"$OUT/counters.md" 2>"$OUT/counters.err" || rc=1
  cat "$OUT/counters.md"; tail -5 "$OUT/counters.err"
fi
cat "$OUT/summary.txt"
exit $rc
