#!/usr/bin/env bash
# Reports fit their width: every recorded profile in tests/data and tests/data/real,
# as a text report with every row (--top 0), and diffs of them, rendered at 100 and 80
# columns (and the narrowest, 60): no line may be longer. `width.sh BUILD_DIR`.
set -euo pipefail
build=${1:?usage: width.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
cli=$build/bin/cuscope
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
profiles=("$data"/*.sqlite "$data"/real/*.sqlite)
status=0
checked=0
# $1: the width; $2: a label; the command's output on stdin.
check() {
  local long
  long=$(awk -v w="$1" 'length($0) > w { printf "%d: %d columns: %s\n", NR, length($0), $0 }')
  checked=$((checked + 1))
  if [[ -n $long ]]; then
    echo "width: $2 has lines over $1 columns:"
    echo "$long" | head -5
    status=1
  fi
}
for w in 100 80 60; do
  for p in "${profiles[@]}"; do
    n=${p#"$data"/}
    "$cli" report "$p" --top 0 --width "$w" >"$out/r.txt"
    check "$w" "report $n --width $w" <"$out/r.txt"
    "$cli" diff "${profiles[0]}" "$p" --top 0 --width "$w" >"$out/d.txt"
    check "$w" "diff ${profiles[0]#"$data"/} $n --width $w" <"$out/d.txt"
  done
  "$cli" report "${profiles[@]}" --top 0 --width "$w" >"$out/ranks.txt"
  check "$w" "report of ${#profiles[@]} profiles (ranks) --width $w" <"$out/ranks.txt"
done
# The check can fail: without a width (0) some lines of these reports are longer.
"$cli" report "${profiles[0]}" --top 0 --width 0 >"$out/wide.txt"
if ! awk 'length($0) > 100 { found = 1 } END { exit !found }' "$out/wide.txt"; then
  echo "width: --width 0 printed no line over 100 columns: the check above proves nothing"
  status=1
fi
[[ $status == 0 ]] && echo "width: $checked outputs fit their width"
exit $status
