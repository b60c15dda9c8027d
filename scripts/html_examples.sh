#!/usr/bin/env bash
# Writes the HTML report of each recorded profile in tests/data into docs/examples/
# (docs/reports.md, "HTML report"). usage: scripts/html_examples.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p docs/examples
for p in tests/data/*.sqlite; do
  n=$(basename "$p" .sqlite)
  "$build/bin/cuscope" report "$p" --html "docs/examples/$n.html" >/dev/null
done
