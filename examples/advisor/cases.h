// The advisor examples' cases, in one table (README.md here explains each example):
// the rule each example triggers (its name), the `cuscope run` flags it is run with
// (the counter sets its rule needs), and, where the acceptance compares the rule's
// estimated gain with what the fixed variant actually saves, the quantity measured in
// both profiles whose difference is that saving. tests/gpu/advisor_test.cc runs every
// case: the example and its fixed variant, each under
//   cuscope run --output=P --report=none FLAGS -- build/examples/advisor/RULE [fixed]
// Plain data, no CUDA: included by the test (C++17).
#ifndef CUSCOPE_EXAMPLES_ADVISOR_CASES_H_
#define CUSCOPE_EXAMPLES_ADVISOR_CASES_H_

namespace cuscope::advisor_examples {

// What the fixed variant is checked for.
enum class FixedCheck {
  kSilent,         // no finding of the rule
  kNotSameReason,  // dominant_stall: no finding for the same stall reason (README.md)
};

struct Case {
  const char* rule;   // the rule id, and the example's name
  const char* flags;  // `cuscope run` flags, space separated; "" for none
  // The saving to compare with the estimated gain (within 30%), "" when not compared:
  //   "htod_copy_time"   total duration of the host-to-device copies
  //   "kernel_time:NAME" the total time of the kernel signature whose name contains
  //                      NAME (measured launches are slowed by collection: the mean of
  //                      the others x all launches, as the kernel rules' gain uses)
  const char* saving;
  FixedCheck fixed_check;
};

// clang-format off
inline constexpr Case kCases[] = {
    // Timeline rules: tracing alone (counters, on by default, turned off).
    {"gpu_idle_gaps",             "--metrics=none", "", FixedCheck::kSilent},
    {"low_gpu_utilization",       "--metrics=none", "", FixedCheck::kSilent},
    {"sync_stalls",               "--metrics=none", "", FixedCheck::kSilent},
    {"small_dtoh_reads",          "--metrics=none", "", FixedCheck::kSilent},
    {"pageable_copies",           "--metrics=none", "htod_copy_time", FixedCheck::kSilent},
    {"launch_bound",              "--metrics=none", "", FixedCheck::kSilent},
    {"first_iteration",           "--metrics=none", "", FixedCheck::kSilent},  // NVTX ranges
    {"default_stream",            "--metrics=none", "", FixedCheck::kSilent},
    // Kernel rules: counters of the example's kernel alone (--kernels), one launch
    // measured (kernel replay, the default --per-signature=1).
    {"shared_bank_conflicts",     "--metrics=memory,sol --kernels=tile_abt",
                                  "kernel_time:tile_abt", FixedCheck::kSilent},
    {"uncoalesced_access",        "--metrics=memory --kernels=transpose", "", FixedCheck::kSilent},
    {"low_occupancy",             "--metrics=occupancy --kernels=staged_sum", "",
                                  FixedCheck::kSilent},
    {"small_grid",                "--metrics=occupancy --kernels=heavy_map", "",
                                  FixedCheck::kSilent},
    {"tail_wave",                 "--metrics=occupancy --kernels=chunk_work", "",
                                  FixedCheck::kSilent},
    {"fp32_without_tensor_cores", "--metrics=roofline,sol --kernels=gemm", "",
                                  FixedCheck::kSilent},
    {"fp64_in_fp32_program",      "--metrics=roofline,sol --kernels=poly", "",
                                  FixedCheck::kSilent},
    {"dominant_stall",            "--metrics=stalls,sol --kernels=block_sum", "",
                                  FixedCheck::kNotSameReason},
    // cuBLAS's GEMM kernels, whichever it picks ("gemm" in CUTLASS's names, nvjet):
    // the saving is every measured kernel's time ("kernel_time:" matches all).
    {"misaligned_gemm",           "--metrics=roofline --kernels=gemm|nvjet", "kernel_time:",
                                  FixedCheck::kSilent},
};
// clang-format on

}  // namespace cuscope::advisor_examples

#endif  // CUSCOPE_EXAMPLES_ADVISOR_CASES_H_
