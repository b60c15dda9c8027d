#!/usr/bin/env bash
# Golden reports: every writer's output for the recorded H200 profiles in tests/data
# must stay byte-identical. `run.sh BUILD_DIR` compares; `run.sh BUILD_DIR --update`
# rewrites the expected files (review the diff before committing them).
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [--update]}
mode=${2:-check}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
cli=$build/bin/cuscope
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for p in "$data"/*.sqlite; do
  n=$(basename "$p" .sqlite)
  "$cli" report "$p" >"$out/$n.txt"
  "$cli" report "$p" --top 0 >"$out/$n.all.txt"
  "$cli" report "$p" --top 0 --format json >"$out/$n.json"
  "$cli" report "$p" --top 0 --format csv >"$out/$n.csv"
  "$cli" export "$p" --chrome -o "$out/$n.trace.json" 2>/dev/null
  if "$cli" report "$p" --roofline "$out/$n.svg" >/dev/null 2>&1; then :; fi
done
# Relative paths: the diff prints them, and the output must not depend on the checkout.
cli=$(cd "$(dirname "$cli")" && pwd)/cuscope
cd "$data"
"$cli" diff h200-timeline-demo.sqlite h200-torch-loop.sqlite >"$out/diff-timeline-torch.txt" \
  --html "$out/diff-timeline-torch.html" 2>/dev/null
"$cli" diff h200-timeline-demo.sqlite h200-torch-loop.sqlite --format json >"$out/diff-timeline-torch.json"
"$cli" diff h200-counters-demo.sqlite h200-torch-loop.sqlite --top 0 >"$out/diff-counters-torch.txt"
"$cli" diff h200-counters-demo.sqlite h200-torch-loop.sqlite --top 0 --format json >"$out/diff-counters-torch.json"

if [[ $mode == --update ]]; then
  rm -rf "$here/expected"; mkdir -p "$here/expected"
  cp "$out"/* "$here/expected/"
  echo "golden: wrote $(ls "$here/expected" | wc -l) files to $here/expected"
  exit 0
fi
status=0
for f in "$here"/expected/*; do
  n=$(basename "$f")
  if ! cmp -s "$f" "$out/$n"; then
    echo "golden: $n differs from tests/golden/expected/$n:"
    diff -u "$f" "$out/$n" | head -40 || true
    status=1
  fi
done
for f in "$out"/*; do
  [[ -e $here/expected/$(basename "$f") ]] || { echo "golden: $(basename "$f") has no expected file"; status=1; }
done
[[ $status == 0 ]] && echo "golden: $(ls "$here/expected" | wc -l) outputs byte-identical"
exit $status
