#!/usr/bin/env bash
# Builds cuscope and runs every test. GPU tests (label `gpu`) skip, saying why,
# where there is no GPU; tests/gpu/run.sh runs them on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
BUILD=${BUILD:-build}
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)"
