#!/usr/bin/env bash
# The CPU unit tests under a sanitizer build. `scripts/sanitize.sh asan` builds with
# clang into ${BUILD:-build-san} with AddressSanitizer + UndefinedBehaviorSanitizer
# (every UB check fatal; LeakSanitizer on), the build that scripts/fuzz.sh shares
# (scripts/clang_san_build.sh), and runs `ctest -L cpu`, less the exclusions below,
# each with its reason. UBSan's one third-party suppression is in
# tests/sanitizers/ubsan.supp.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:-asan}
[[ $kind == asan ]] || { echo "usage: scripts/sanitize.sh asan" >&2; exit 2; }
source scripts/deps.sh
source scripts/clang_san_build.sh
cmake --build "$BUILD" -j"$JOBS"

# allocator_may_return_null: a failed nothrow new is null, as without ASan
# (UninitializedBuffer.AFailedAllocationIsAResult asks for SIZE_MAX / 2 bytes).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$PWD/tests/sanitizers/ubsan.supp}
# Tests that cannot run under ASan, each with its reason. LSan needs no suppression.
excluded=(
  # CUPTI's libnvperf_host.so is dlopen'ed with RTLD_DEEPBIND, which ASan's
  # interposition of malloc & co. does not support: the sanitizer runtime refuses
  # the dlopen and aborts (google/sanitizers#611).
  # Every test that reaches the Host API (per-chip metric resolution, `cuscope metrics`,
  # `cuscope run --metrics` checking its names, the C ABI's metric functions) for the
  # same reason.
  MetricHostTest\. MetricHost\. Chips\. MetricsCommand\. RunChecksMetrics\.
  Cli\.RunAcceptsEverySettingAsAFlag '^c_abi$'
  # An ASan-built libcuscope.so injected into (or loaded by ctypes into) a program built
  # without ASan: "ASan runtime does not come first in initial library list".
  # The same code runs in-process, instrumented, in the other cli_test cases.
  Library\.InjectionWithoutAGpuIsOneLineAndReturns Library\.StartSettingsKeepASemicolonInAValue
  install_and_consume
  # Not compiled code: the structure lint runs in scripts/test.sh.
  '^structure$' '^format$'
)
exclude=$(IFS='|'; echo "${excluded[*]}")
ctest --test-dir "$BUILD" -L cpu --output-on-failure -j"$JOBS" ${exclude:+-E "$exclude"}
