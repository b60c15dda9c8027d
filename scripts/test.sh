#!/usr/bin/env bash
# Builds cuscope and runs every test. GPU tests (label `gpu`) skip, saying why,
# where there is no GPU; tests/gpu/run.sh runs them on the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
# The browser test (label `browser`) runs the HTML report in headless Chromium; it skips
# when none is installed, so a failed install only says so.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
      >/dev/null || echo "test: chromium could not be installed; the browser test will skip" >&2
  elif command -v sudo >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive sudo apt-get install -y -qq --no-install-recommends chromium \
      >/dev/null || echo "test: chromium could not be installed; the browser test will skip" >&2
  else
    echo "test: no chromium, and neither root nor sudo to install it (as root: apt-get install" \
         "chromium); the browser test will skip" >&2
  fi
fi
BUILD=${BUILD:-build}
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)"
