#!/usr/bin/env bash
# Configures and builds cuscope (Release) into ${BUILD:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
BUILD=${BUILD:-build}
# A compiler cache where the machine has one (CI's fresh machines have none).
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j"$(nproc)"
git rev-parse --short HEAD >"$BUILD/COMMIT" 2>/dev/null || true
