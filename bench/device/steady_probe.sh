#!/bin/bash
# What the default (counters on) costs in steady state against the trace alone, on
# launch-bound loops with one kernel signature (measured at its first launch, then
# nothing left to measure): examples/launch_loop (100,000 launches) and
# examples/python/add_loop.py (20,000 add_, median of 5 loops), unprofiled (u), traced
# (t: CUSCOPE_METRICS=none), default (d), default with the launch callbacks kept on (d0),
# interleaved ROUNDS rounds on CPUs 2-5. Prints "mode workload us/op" lines.
#   bash bench/device/steady_probe.sh BUILD_DIR [ROUNDS=2]
set -u
build=$(cd "$1" && pwd); rounds=${2:-2}
lib=$build/lib/libcuscope.so
here=$(cd "$(dirname "$0")/../.." && pwd)
for r in $(seq "$rounds"); do
  for m in u t d d0; do
    e=()
    case $m in
      t) e=(CUDA_INJECTION64_PATH=$lib CUSCOPE_METRICS=none) ;;
      d) e=(CUDA_INJECTION64_PATH=$lib) ;;
      d0) e=(CUDA_INJECTION64_PATH=$lib CUSCOPE_IDLE_LAUNCHES=0) ;;
    esac
    e+=(CUSCOPE_REPORT=none CUSCOPE_OUTPUT=/tmp/steady-%p.sqlite)
    c=$(env "${e[@]}" taskset -c 2-5 "$build/examples/launch_loop" 100000 2>/dev/null | awk '/^LOOP/{print $3}')
    p=$(env "${e[@]}" taskset -c 2-5 python3 "$here/examples/python/add_loop.py" 20000 5 2>/dev/null | awk '/^TORCH/{print $3}')
    echo "round $r $m launch_loop $c add_loop $p"
    rm -f /tmp/steady-*.sqlite
  done
done
