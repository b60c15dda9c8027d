#!/bin/bash
# Peak memory of a program traced over 2,000,000 launches (issue #33), on the GPU machine:
# examples/launch_loop 2000000 unprofiled and traced by injection (counters off), its own
# peak (VmHWM of the program's process, polled every 20 ms: the run's end, which reads the
# profile back, runs in a `cuscope _end-run` child and is measured apart), and the sizes
# of the profile and of its Perfetto trace.
#   bash bench/device/rss_2m.sh BUILD_DIR [LAUNCHES=2000000]
set -u
build=$(cd "$1" && pwd); n=${2:-2000000}
peak_of() {  # LABEL ENV... : runs launch_loop, prints its exit code and own peak
  local label=$1; shift
  env "$@" "$build/examples/launch_loop" "$n" >/tmp/rss-$label.log 2>&1 &
  local pid=$! peak=0 v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null)
    [ -n "$v" ] && peak=$v
    sleep 0.02
  done
  wait "$pid"; local rc=$?
  echo "$label: rc=$rc peak $((peak / 1024)) MB $(grep -h '^LOOP' /tmp/rss-$label.log)"
}
peak_of unprofiled
rm -f /tmp/rss.sqlite
peak_of traced CUDA_INJECTION64_PATH="$build/lib/libcuscope.so" CUSCOPE_METRICS=none \
  CUSCOPE_OUTPUT=/tmp/rss.sqlite CUSCOPE_REPORT=none
echo "profile: $(du -m /tmp/rss.sqlite | cut -f1) MB; $(tail -2 /tmp/rss-traced.log | tr '\n' ' ')"
# The Perfetto trace of that profile (issue #33: no larger than 142 MB).
"$build/bin/cuscope" export /tmp/rss.sqlite --perfetto -o /tmp/rss.pftrace >/dev/null 2>&1
echo "pftrace: rc=$? $(du -m /tmp/rss.pftrace 2>/dev/null | cut -f1) MB"
rm -f /tmp/rss.pftrace
