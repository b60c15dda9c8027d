#!/usr/bin/env bash
# Configures and builds cuscope (Release) into ${BUILD:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
BUILD=${BUILD:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
git rev-parse --short HEAD >"$BUILD/COMMIT" 2>/dev/null || true
