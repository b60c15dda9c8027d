#!/usr/bin/env bash
# Writes the HTML report of each recorded profile in tests/data into docs/examples/,
# and the comparison page of two of them (docs/reports.md, "HTML report" and
# "Comparing two runs"). usage: scripts/html_examples.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
mkdir -p docs/examples
for p in tests/data/*.sqlite; do
  n=$(basename "$p" .sqlite)
  "$build/bin/cuscope" report "$p" --html "docs/examples/$n.html" >/dev/null
done
# Relative paths: the page names the profiles as given.
cli=$(cd "$build/bin" && pwd)/cuscope
examples=$(pwd)/docs/examples
(cd tests/data && "$cli" diff h200-timeline-demo.sqlite h200-torch-loop.sqlite \
  --html "$examples/diff-timeline-torch.html" >/dev/null 2>&1)
