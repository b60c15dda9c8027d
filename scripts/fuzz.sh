#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan, into
# ${BUILD:-build-san}, the build scripts/sanitize.sh shares: scripts/clang_san_build.sh)
# and runs each for SECONDS seconds (default 60), JOBS targets at a time (default: the
# cores), on a seed corpus made from tests/data (tests/fuzz/make_seeds.py). A crash, hang (over 10 s
# for one input), sanitizer report, leak or output that fails to parse stops the
# run and leaves the input in $BUILD/artifacts/; the script then exits non-zero.
#   scripts/fuzz.sh 60             CI's short run
#   scripts/fuzz.sh 600            the longer run (10 minutes per target)
#   TARGETS="json diff" scripts/fuzz.sh 300
# Reproduce a finding: $BUILD/tests/fuzz/<target>_fuzz <artifact file>.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
TARGETS=${TARGETS:-load text csv json diff trace settings}
JOBS=${JOBS:-$(nproc)}
source scripts/deps.sh
source scripts/clang_san_build.sh
cmake --build "$BUILD" -j"$JOBS" --target $(for t in $TARGETS; do echo "${t}_fuzz"; done)

seeds=$BUILD/seeds
rm -rf "$seeds" && python3 tests/fuzz/make_seeds.py "$seeds" >/dev/null
rm -rf "$BUILD/artifacts" && mkdir -p "$BUILD/artifacts"  # this run's findings only
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/sanitizers/ubsan.supp}
# One target's run; its exit status says whether it found something.
fuzz_one() {
  local t=$1 corpus=$BUILD/corpus/$1 log=$BUILD/$1.log
  mkdir -p "$corpus"
  # The settings target reads words and values, not profiles: its own seeds and dictionary.
  local extra=("$seeds")
  [[ $t == settings ]] && extra=(tests/fuzz/settings_seeds -dict=tests/fuzz/settings.dict)
  "$BUILD/tests/fuzz/${t}_fuzz" "$corpus" "${extra[@]}" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=4096 -max_len=200000 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$t-" >"$log" 2>&1
}
status=0
targets=($TARGETS)
for ((i = 0; i < ${#targets[@]}; i += JOBS)); do
  batch=("${targets[@]:i:JOBS}")
  pids=()
  for t in "${batch[@]}"; do
    echo "fuzz: $t for ${seconds}s (log: $BUILD/$t.log)"
    fuzz_one "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    t=${batch[$k]}
    if ! wait "${pids[$k]}"; then
      echo "fuzz: $t FAILED; the end of its log:"
      tail -40 "$BUILD/$t.log"
      status=1
    else
      grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$BUILD/$t.log" | tr '\n' ' '
      echo "($(ls "$BUILD/corpus/$t" | wc -l) inputs in its corpus)"
    fi
  done
done
exit $status
