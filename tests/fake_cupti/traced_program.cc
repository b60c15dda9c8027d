// A program traced by the session on the fake CUPTI, for `cuscope run` without a GPU
// (tests/unit/run_end_test.cc): the session started as the injection starts it (the
// environment's settings), N launches (an API record and a kernel record each), then
// exit with the given code, which ends the run from the session's atexit hook.
//
//   traced_program LAUNCHES EXIT_CODE
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lib/inject/session.h"
#include "tests/fake_cupti/fake_cupti.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: traced_program LAUNCHES EXIT_CODE\n");
    return 2;
  }
  const uint64_t launches = std::strtoull(argv[1], nullptr, 10);
  absl::Status st = cuscope::inject::TheSession().Start(
      [](const char* name) -> const char* { return std::getenv(name); });
  if (!st.ok()) {
    std::fprintf(stderr, "traced_program: %s\n", std::string(st.message()).c_str());
    return 2;
  }
  for (uint64_t i = 1; i <= launches; ++i) {
    fake_cupti::Emit(fake_cupti::Kind::kRuntimeApi, static_cast<uint32_t>(i));
    fake_cupti::Emit(fake_cupti::Kind::kKernel, static_cast<uint32_t>(i));
  }
  fake_cupti::WaitIdle();
  return std::atoi(argv[2]);
}
