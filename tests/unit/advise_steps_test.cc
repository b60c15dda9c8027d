// The advisor on a training loop (lib/analysis/advise.h): with steps, findings about the
// steps rank above start-up and start-up findings say so; GEMM kernels whose names say
// they are misaligned or of an older design are found without counters. On the shipped
// GPT-2 trace (4 steps, no counters) and on synthetic profiles.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/advise.h"
#include "lib/analysis/steps.h"
#include "lib/store/reader.h"
#include "tests/unit/builders.h"

namespace cuscope {
namespace {

using model::Finding;
using model::MemcpyKind;
using model::MemoryKind;
using ::testing::HasSubstr;
using testing::ProfileBuilder;
using ::testing::StartsWith;

constexpr uint64_t kMs = 1000 * 1000;
constexpr uint64_t kT0 = 1'000'000'000;

std::optional<Finding> Find(const std::vector<Finding>& f, const std::string& rule) {
  for (const Finding& x : f) {
    if (x.rule == rule) return x;
  }
  return std::nullopt;
}

std::vector<Finding> GptTrace() {
  auto p =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h200-gpt2-step-trace.sqlite");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? analysis::Advise(*p, {}) : std::vector<Finding>{};
}

TEST(AdviseSteps, GptTraceRanksTheStepsGemmsAboveStartup) {
  const std::vector<Finding> f = GptTrace();
  ASSERT_GE(f.size(), 6u);
  // The three cuBLAS GEMMs of the output layer (38.5% of the GPU time), by name.
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(f[i].rule, "misaligned_gemm") << i;
    EXPECT_THAT(f[i].kernel, HasSubstr("cutlass_75_tensorop_bf16_s1688gemm_bf16_")) << i;
    EXPECT_THAT(f[i].summary, HasSubstr("by its name")) << i;
    EXPECT_THAT(f[i].summary, HasSubstr("counters would confirm it")) << i;
    EXPECT_FALSE(analysis::IsStartupFinding(f[i])) << i;
  }
  EXPECT_EQ(f[0].summary,
            "BF16 GEMM in a kernel for operands aligned to 1 element (2 bytes), a design for "
            "sm_75 on this sm_90 GPU (mma.sync, no TMA), by its name: 13.48 ms in 4 launches "
            "(16% of GPU kernel time); the gain assumes half of it (no counters: counters would "
            "confirm it, cuscope run --metrics=roofline "
            "--kernels=cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_tn_align1)");
  // The pageable copies, the idle gaps and the first step's warm-up all end before the
  // loop runs: start-up, said and ranked last.
  for (const char* rule : {"pageable_copies", "gpu_idle_gaps", "first_iteration"}) {
    std::optional<Finding> s = Find(f, rule);
    ASSERT_TRUE(s.has_value()) << rule;
    EXPECT_TRUE(analysis::IsStartupFinding(*s)) << rule;
    EXPECT_THAT(s->summary, StartsWith("Start-up (")) << rule;
  }
  EXPECT_THAT(Find(f, "pageable_copies")->summary,
              StartsWith("Start-up (before the first 'step'): 326 MB copied to the GPU from "
                         "pageable memory in 76 copies"));
  EXPECT_THAT(Find(f, "pageable_copies")->advice,
              HasSubstr("It is paid once, before the loop: it does not slow the 4 steps."));
  bool startup = false;
  for (const Finding& x : f) {
    if (startup) {
      EXPECT_TRUE(analysis::IsStartupFinding(x)) << x.rule << " after start-up";
    }
    startup = startup || analysis::IsStartupFinding(x);
  }
}

// A pageable copy before the loop and a smaller one in it: two findings, the loop's
// first.
model::Profile CopiesAroundTheLoop(const std::string& step) {
  ProfileBuilder b;
  b.profile().run.start_ns = kT0;
  b.profile().run.end_ns = kT0 + 200 * kMs;
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 128 << 20, kT0 + kMs, kT0 + 21 * kMs);
  for (int i = 0; i < 3; ++i) {
    const uint64_t t = kT0 + (50 + 40 * i) * kMs;
    b.Range(step == "ProfilerStep#" ? step + std::to_string(i + 1) : step, t, t + 30 * kMs);
    b.Kernel("k", t + kMs, t + 2 * kMs);
    b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 32 << 20, t + 3 * kMs, t + 8 * kMs);
    b.Kernel("k", t + 8 * kMs, t + 29 * kMs);
  }
  return b.Take();
}

TEST(AdviseSteps, StartupCopiesRankAfterTheLoopsAndSaySo) {
  for (const std::string step : {"step", "ProfilerStep#"}) {
    const std::vector<Finding> f = analysis::Advise(CopiesAroundTheLoop(step), {});
    std::vector<const Finding*> copies;
    for (const Finding& x : f) {
      if (x.rule == "pageable_copies") copies.push_back(&x);
    }
    ASSERT_EQ(copies.size(), 2u) << step;
    EXPECT_FALSE(analysis::IsStartupFinding(*copies[0])) << step;
    EXPECT_THAT(copies[0]->summary, StartsWith("101 MB copied to the GPU")) << step;
    EXPECT_TRUE(analysis::IsStartupFinding(*copies[1])) << step;
    EXPECT_GT(copies[1]->gain_ns, copies[0]->gain_ns) << step;  // ranked after all the same
    EXPECT_THAT(
        copies[1]->summary,
        StartsWith("Start-up (before the first '" +
                   std::string(step == "step" ? "step" : "ProfilerStep#N") + "'): 134 MB copied"))
        << step;
  }
}

TEST(AdviseSteps, WithoutStepsNothingIsStartup) {
  model::Profile p = CopiesAroundTheLoop("forward");
  const std::vector<Finding> f = analysis::Advise(p, {});
  std::vector<const Finding*> copies;
  for (const Finding& x : f) {
    EXPECT_FALSE(analysis::IsStartupFinding(x)) << x.rule;
    if (x.rule == "pageable_copies") copies.push_back(&x);
  }
  ASSERT_EQ(copies.size(), 1u);  // one finding over every copy, as before
  EXPECT_THAT(copies[0]->summary, StartsWith("235 MB copied"));
}

TEST(AdviseSteps, NameRulesLeaveMeasuredKernelsToTheCounters) {
  // The rotate profile measured the same GEMMs: the counter rule judges them.
  auto p = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) +
                              "/real/h200-gpt2-rotate-roofline.sqlite");
  ASSERT_TRUE(p.ok()) << p.status();
  int misaligned = 0;
  for (const Finding& f : analysis::Advise(*p, {})) {
    EXPECT_THAT(f.summary, ::testing::Not(HasSubstr("by its name"))) << f.kernel;
    misaligned += f.rule == "misaligned_gemm" ? 1 : 0;
  }
  EXPECT_EQ(misaligned, 3);
}

TEST(AdviseSteps, OldDesignAlignedGemmByName) {
  ProfileBuilder b;
  b.profile().run.start_ns = kT0;
  b.profile().run.end_ns = kT0 + 100 * kMs;
  b.Kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_align8", kT0 + kMs,
           kT0 + 41 * kMs);
  b.Kernel("nvjet_sm90_tst_128x128_64x4_1x2_h_bz_coopA_NTN", kT0 + 42 * kMs, kT0 + 52 * kMs);
  const std::vector<Finding> f = analysis::Advise(b.profile(), {});
  std::optional<Finding> g = Find(f, "old_arch_gemm");
  ASSERT_TRUE(g.has_value());
  EXPECT_THAT(g->summary, StartsWith("GEMM in a design for sm_80 on this sm_90 GPU (mma.sync, no "
                                     "TMA), by its name: 40.00 ms in 1 launch"));
  EXPECT_DOUBLE_EQ(g->gain_ns, 10.0 * kMs);              // a quarter, guessed
  EXPECT_FALSE(Find(f, "misaligned_gemm").has_value());  // align8 x 2 bytes = 16
}

TEST(Steps, NumberedStepsAreOneLoop) {
  ProfileBuilder b;
  for (int i = 1; i <= 3; ++i) b.Range("ProfilerStep#" + std::to_string(i), 100 * i, 100 * i + 50);
  b.Range("step_7", 10, 20);
  const analysis::Steps s = analysis::StepsOf(b.profile());
  EXPECT_EQ(s.name, "ProfilerStep#N");
  EXPECT_EQ(s.count(), 3u);
  EXPECT_EQ(s.first_start_ns(), 100u);
}

}  // namespace
}  // namespace cuscope
