#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan, into
# ${BUILD:-build-fuzz}) and runs each for SECONDS seconds (default 60) on a seed
# corpus made from tests/data (tests/fuzz/make_seeds.py). A crash, hang (over 10 s
# for one input), sanitizer report, leak or output that fails to parse stops the
# run and leaves the input in $BUILD/artifacts/; the script then exits non-zero.
#   scripts/fuzz.sh 60             CI's short run
#   scripts/fuzz.sh 600            the longer run (10 minutes per target)
#   TARGETS="json diff" scripts/fuzz.sh 300
# Reproduce a finding: $BUILD/tests/fuzz/<target>_fuzz <artifact file>.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
BUILD=${BUILD:-build-fuzz}
TARGETS=${TARGETS:-load text csv json diff trace settings}
JOBS=${JOBS:-$(nproc)}
source scripts/deps.sh
if ! command -v clang++ >/dev/null; then  # libFuzzer comes with Debian's clang
  echo "fuzz: installing clang"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang >/dev/null
fi
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# pointer-overflow stays recoverable so that its one suppression (RapidJSON, in
# tests/sanitizers/ubsan.supp) applies; halt_on_error still stops on any other.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
flags+=" -fsanitize-recover=pointer-overflow -g -O1"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
  -DCUSCOPE_BUILD_FUZZ=ON -DCUSCOPE_BUILD_TESTS=OFF -DCUSCOPE_BUILD_BENCH=OFF \
  -DCUSCOPE_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target $(for t in $TARGETS; do echo "${t}_fuzz"; done)

seeds=$BUILD/seeds
rm -rf "$seeds" && python3 tests/fuzz/make_seeds.py "$seeds" >/dev/null
rm -rf "$BUILD/artifacts" && mkdir -p "$BUILD/artifacts"  # this run's findings only
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/sanitizers/ubsan.supp}
status=0
for t in $TARGETS; do
  corpus=$BUILD/corpus/$t
  mkdir -p "$corpus"
  log=$BUILD/$t.log
  # The settings target reads words and values, not profiles: its own seeds and dictionary.
  extra=("$seeds")
  [[ $t == settings ]] && extra=(tests/fuzz/settings_seeds -dict=tests/fuzz/settings.dict)
  echo "fuzz: $t for ${seconds}s (log: $log)"
  if ! "$BUILD/tests/fuzz/${t}_fuzz" "$corpus" "${extra[@]}" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=4096 -max_len=200000 -print_final_stats=1 \
      -artifact_prefix="$BUILD/artifacts/$t-" >"$log" 2>&1; then
    echo "fuzz: $t FAILED; the end of its log:"
    tail -40 "$log"
    status=1
  else
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$log" | tr '\n' ' '
    echo "($(ls "$corpus" | wc -l) inputs in its corpus)"
  fi
done
exit $status
