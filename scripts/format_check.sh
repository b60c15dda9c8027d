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
bad=0
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "format: $f differs from clang-format's layout (scripts/format_check.sh --fix)"
    bad=$((bad + 1))
  fi
done
echo "format: ${#files[@]} files checked, $bad to reformat"
[[ $bad == 0 ]]
