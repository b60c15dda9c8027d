#!/usr/bin/env bash
# The HTML report in a real browser: for every recorded profile in tests/data (and real/),
# `cuscope report --html` is opened in headless Chromium. Fails on any console message
# (an uncaught exception, a console.error), or when the DOM after the scripts ran lacks
# the findings section, the kernel table or the drawn timeline; takes a screenshot of
# each page (kept in SHOTS_DIR when set). The same for the comparison page (`cuscope diff
# FIRST P --html`) of the first profile against every other: its findings, its kernel
# table, and the mark its script sets once it ran. Exit 77 (skipped) when no Chromium
# is installed.
# usage: check_html.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: check_html.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
cli=$build/bin/cuscope
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$(command -v "$b"); break; fi
done
if [ -z "$browser" ]; then
  echo "SKIP: no chromium binary on PATH (apt-get install chromium)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
shots=${SHOTS_DIR:-$out}
mkdir -p "$shots"
flags=(--headless --disable-gpu --no-sandbox --enable-logging=stderr --v=0
       --user-data-dir="$out/profile" --window-size=1280,2000)
fail=0
# $1: a name; $2: the page; the rest: strings the DOM after the scripts ran must hold.
# The page's findings are checked separately (either a finding or the line saying none).
check_page() {
  local n=$1 page=$2 rc want page_fail=0
  shift 2
  timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page" >"$out/$n.dom" 2>"$out/$n.log"
  rc=$?
  if [ $rc -ne 0 ]; then echo "FAIL $n: chromium exited $rc"; tail -5 "$out/$n.log"; return 1; fi
  # Chromium logs each console message as "INFO:CONSOLE" or "ERROR:CONSOLE"; the page
  # writes none, so any is a failure (an uncaught exception is "... Uncaught ...").
  if grep -E "Uncaught|:CONSOLE" "$out/$n.log"; then
    echo "FAIL $n: console messages while loading the page"; page_fail=1
  fi
  if ! grep -qE 'class="finding |No finding' "$out/$n.dom"; then
    echo "FAIL $n: the page shows no findings section content"; page_fail=1
  fi
  for want in "$@"; do
    if ! grep -qF "$want" "$out/$n.dom"; then
      echo "FAIL $n: the page's DOM lacks $want"; page_fail=1
    fi
  done
  timeout 120 "$browser" "${flags[@]}" --screenshot="$shots/$n.png" "file://$page" \
    >/dev/null 2>"$out/$n.shot.log"
  if [ ! -s "$shots/$n.png" ]; then echo "FAIL $n: no screenshot"; return 1; fi
  [ $page_fail -eq 0 ] || return 1
  echo "ok $n: $(wc -c <"$page") bytes of HTML, screenshot $(wc -c <"$shots/$n.png") bytes"
}
profiles=("$data"/*.sqlite "$data"/real/*.sqlite)
for p in "${profiles[@]}"; do
  n=$(basename "$p" .sqlite)
  page=$out/$n.html
  if ! "$cli" report "$p" --html "$page" >/dev/null 2>"$out/$n.cli.log"; then
    echo "FAIL $n: cuscope report --html failed:"; cat "$out/$n.cli.log"; fail=1; continue
  fi
  # The kernel table, and the timeline canvas's data-lanes attribute, which only the
  # script sets once it drew.
  check_page "$n" "$page" '<section id="findings">' 'id="kernel-table"' 'data-lanes="' || fail=1
done
base=${profiles[0]}
for p in "${profiles[@]:1}"; do
  n=diff-$(basename "$base" .sqlite)-$(basename "$p" .sqlite)
  page=$out/$n.html
  if ! "$cli" diff "$base" "$p" --html "$page" >/dev/null 2>"$out/$n.cli.log"; then
    echo "FAIL $n: cuscope diff --html failed:"; cat "$out/$n.cli.log"; fail=1; continue
  fi
  # The diff page's script marks the body with the number of sortable tables it found.
  check_page "$n" "$page" '<section id="findings">' 'id="diff-kernels"' 'id="diff-api"' \
    'data-tables="' || fail=1
done
exit $fail
