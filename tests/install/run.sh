#!/usr/bin/env bash
# Installs cuscope from BUILD_DIR into a temporary prefix, builds the consumer
# project against the installed package and runs it.
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/cuscope"
test -f "$work/prefix/include/cuscope/cuscope.h"
test -f "$work/prefix/include/cuscope/cuscope_c.h"
cmake -S "$src/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
# The installed command finds the installed library.
"$work/prefix/bin/cuscope" run -- sh -c 'test -f "$CUDA_INJECTION64_PATH" && echo "run: $CUDA_INJECTION64_PATH"' | grep -q "$work/prefix/lib"
echo "install test passed"
