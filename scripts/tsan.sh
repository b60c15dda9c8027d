#!/usr/bin/env bash
# The tests that drive the collector's threads under ThreadSanitizer: builds them
# into ${BUILD:-build-tsan} with -fsanitize=thread and runs them with
# halt_on_error=1 (any report fails). collector_threads_test runs lib/collect's
# activity tracer, its buffer pool, the periodic flush and user scopes against a
# fake CUPTI (tests/fake_cupti); session_threads_test the whole session with its
# background thread, the profile writer and capture windows against the same fake;
# gpu_sampler_test the GPU sampler's thread against the fake PM sampling; scopes_test
# runs scopes from many threads; flush_thread_test the background thread and its nudge;
# pc_sampler_threads_test the PC sampler's callbacks, drains and takes at once.
# Suppressions (third-party code only, each explained): tests/sanitizers/tsan.supp.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-tsan}
JOBS=${JOBS:-$(nproc)}
source scripts/deps.sh
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
tests=(collector_threads_test session_threads_test gpu_sampler_test scopes_test flush_thread_test
  pc_sampler_threads_test)
flags="-fsanitize=thread -fno-omit-frame-pointer -g"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread \
  -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread -DCUSCOPE_BUILD_BENCH=OFF \
  -DCUSCOPE_BUILD_EXAMPLES=OFF "${launcher[@]}" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target "${tests[@]}"

export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$PWD/tests/sanitizers/tsan.supp}
# Each test twice over: a race shows on some interleavings only.
for t in "${tests[@]}"; do
  echo "tsan: $t"
  "$BUILD/tests/$t" --gtest_repeat=2 --gtest_brief=1
done
