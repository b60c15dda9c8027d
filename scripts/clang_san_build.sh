#!/usr/bin/env bash
# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: configures the one clang build that
# both use, into ${BUILD:-build-san}, with AddressSanitizer + UndefinedBehaviorSanitizer
# and libFuzzer's coverage (fuzzer-no-link) on every library, the unit tests and the
# fuzz targets (benchmarks and CUDA examples off). One configuration for both, so CI
# compiles the libraries once: the second script only builds what the first did not.
# Every UB check is fatal except pointer-overflow, whose one suppression (RapidJSON,
# tests/sanitizers/ubsan.supp) needs it recoverable.
BUILD=${BUILD:-build-san}
JOBS=${JOBS:-$(nproc)}
if ! command -v clang++ >/dev/null; then  # libFuzzer comes with Debian's clang
  echo "clang-san: installing clang"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if [ -n "$SUDO" ] && ! command -v sudo >/dev/null; then
    echo "clang-san: clang is missing and this user cannot install it; install Debian's clang" >&2
    exit 1
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang >/dev/null
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
san_launcher=()
command -v ccache >/dev/null &&
  san_launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
san_flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
san_flags+=" -fsanitize-recover=pointer-overflow -fno-omit-frame-pointer -g -O1"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="$san_flags" -DCMAKE_C_FLAGS="$san_flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCUSCOPE_BUILD_FUZZ=ON -DCUSCOPE_BUILD_TESTS=ON -DCUSCOPE_BUILD_BENCH=OFF \
  -DCUSCOPE_BUILD_EXAMPLES=OFF "${san_launcher[@]}" >/dev/null
