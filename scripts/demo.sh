#!/usr/bin/env bash
# The main job: build cuscope, then profile the timeline demo on this machine's GPU,
# or, with no GPU here, report and export the profile recorded on an H200.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
BUILD=${BUILD:-build}
if [ -e /dev/nvidia0 ] && [ -x "$BUILD/examples/timeline_demo" ]; then
  profile=demo.sqlite
  "$BUILD/bin/cuscope" run --output="$profile" -- "$BUILD/examples/timeline_demo"
else
  echo "demo: no GPU here; reporting the profile recorded on an H200 (tests/data)."
  profile=tests/data/h200-timeline-demo.sqlite
  "$BUILD/bin/cuscope" report "$profile"
  echo
  echo "demo: and the hardware counters recorded on the H200 (counters_demo, --metrics=roofline):"
  "$BUILD/bin/cuscope" report tests/data/h200-counters-demo.sqlite --top=5 --roofline=demo-roofline.svg
fi
"$BUILD/bin/cuscope" export "$profile" --chrome -o demo.trace.json
echo "demo: open demo.trace.json in https://ui.perfetto.dev"
