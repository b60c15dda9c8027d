#!/usr/bin/env bash
# Fails when a C, C++ or CUDA source differs from what clang-format (.clang-format,
# Google style at 100 columns) makes of it. `scripts/format_check.sh --fix` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null; then
  echo "format: clang-format is not installed (Debian package clang-format)" >&2
  exit 1
fi
mapfile -t files < <(git ls-files 'lib/*.cc' 'lib/*.h' 'include/*.h' 'tests/*.cc' 'tests/*.h' \
  'tests/*.c' 'bench/*.cc' 'examples/*.cu' 2>/dev/null || find lib include tests bench examples \
  \( -name '*.cc' -o -name '*.h' -o -name '*.c' -o -name '*.cu' \) -not -path 'tests/data/*')
if [[ ${1:-} == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# Batches of files per clang-format process, on every core: one process per file took
# 45 s of a 2-core machine and timed out (120 s) beside the other tests.
report=$(printf '%s\0' "${files[@]}" |
  xargs -0 -n 64 -P "$(nproc)" clang-format --dry-run --Werror 2>&1 >/dev/null || true)
mapfile -t differ < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$report" | cut -d: -f1 | sort -u)
for f in "${differ[@]}"; do
  echo "format: $f differs from clang-format's layout (scripts/format_check.sh --fix)"
done
if [[ ${#differ[@]} == 0 ]] && grep -q . <<<"$report"; then
  echo "format: clang-format failed: $(head -3 <<<"$report")"
  exit 1
fi
echo "format: ${#files[@]} files checked, ${#differ[@]} to reformat"
[[ ${#differ[@]} == 0 ]]
