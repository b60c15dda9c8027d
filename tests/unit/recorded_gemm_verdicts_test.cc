// Verdicts on the GEMMs recorded on an H100 80GB HBM3 (tests/data/real, 2026-12-06):
// PyTorch GEMMs at 4096 and 8192 in FP16, BF16, TF32, FP32, FP8, INT8 and FP64
// (bench/device/gemm_precisions.py 4096,8192) under cuscope with the per-precision
// tensor metrics (h100-gemm-tensor-metrics.sqlite), and the same script on the same GPU
// under `ncu --clock-control none --section SpeedOfLight --csv --page raw`
// (h100-gemm-ncu-sol.csv.gz, ncu's own values per kernel). ncu's rule is also checked on
// the H200's references: the same script and a GPT-2 training step.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/verdict.h"
#include "lib/store/reader.h"
#include "tests/unit/ncu_csv.h"

namespace cuscope::analysis {
namespace {

const std::string kReal = std::string(CUSCOPE_TEST_DATA_DIR) + "/real/";

struct Gemm {
  const char* name_part;
  Precision precision;
};
const Gemm kGemms[] = {
    {"nvjet_sm90_hsh_", Precision::kTensorFp16}, {"nvjet_sm90_tst_", Precision::kTensorBf16},
    {"tf32f32", Precision::kTensorTf32},         {"nvjet_sm90_qqtst_", Precision::kTensorFp8},
    {"i161616gemm_s8", Precision::kTensorInt8},  {"f64f64_f64f64", Precision::kTensorFp64}};

class RecordedGemms : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = store::LoadProfile(kReal + "h100-gemm-tensor-metrics.sqlite");
    ASSERT_TRUE(p.ok()) << p.status();
    profile_ = std::move(*p);
    all_ = AnalyzeCounters(profile_);
  }
  std::vector<const KernelCounters*> Of(const Gemm& g) const {
    std::vector<const KernelCounters*> out;
    for (const KernelCounters& k : all_) {
      if (k.name.find(g.name_part) != std::string::npos) out.push_back(&k);
    }
    return out;
  }
  model::Profile profile_;
  std::vector<KernelCounters> all_;
};

TEST_F(RecordedGemms, TensorOpsAre2nCubedForEveryPrecision) {
  for (const Gemm& g : kGemms) {
    std::vector<const KernelCounters*> ks = Of(g);
    // 4096 and 8192 are distinct signatures; TF32 at 8192 was not sampled.
    ASSERT_EQ(ks.size(), g.precision == Precision::kTensorTf32 ? 1u : 2u) << g.name_part;
    for (const KernelCounters* k : ks) {
      const double flops = k->flops_of(g.precision).flops;
      EXPECT_EQ(k->tensor_flops, flops) << k->name;  // no other tensor precision
      EXPECT_EQ(k->total_flops, flops) << k->name;
      const double n = flops < 5e11 ? 4096 : 8192;
      const double ratio = flops / (2 * n * n * n);
      EXPECT_GE(ratio, 1.0) << k->name;
      EXPECT_LE(ratio, 1.05) << k->name;
      if (n == 4096) {
        EXPECT_EQ(flops, 137438953472.0) << k->name;
      }
      if (g.precision == Precision::kTensorFp64) {
        EXPECT_EQ(ratio, 1.0) << k->name;
      }
    }
  }
}

TEST_F(RecordedGemms, GemmsAreComputeBoundOnTheTensorPipeOfTheirPrecision) {
  for (const Gemm& g : kGemms) {
    for (const KernelCounters* k : Of(g)) {  // 4096 and 8192
      const Verdict& v = k->verdict;
      ASSERT_TRUE(v.tensor_precision.has_value()) << k->name;
      EXPECT_EQ(*v.tensor_precision, g.precision) << k->name;
      EXPECT_EQ(k->dominant, g.precision) << k->name;
      if (g.precision == Precision::kTensorInt8) {
        // torch._int_mm on the H100 runs cutlass' sm80 wmma kernel: SM 32%, memory
        // 93-94% (ncu: the same, L1 97%), tensor pipe 13%. ncu's rule calls it
        // memory-bound.
        EXPECT_EQ(v.sol_class, SolClass::kMemory) << k->name;
        EXPECT_EQ(v.bound, Bound::kMemory) << k->name;
        continue;
      }
      EXPECT_EQ(v.bound, Bound::kCompute) << k->name;
      ASSERT_TRUE(v.limiter.has_value()) << k->name;
      EXPECT_EQ(v.limiter->unit, Unit::kTensorPipe) << k->name;
      // % of the precision's dense roof per elapsed cycle agrees with the tensor
      // pipe's activity within 2 points.
      EXPECT_NEAR(k->flops_of(g.precision).pct_of_peak, k->sol->tensor_pipe_pct, 2.0) << k->name;
    }
  }
}

TEST_F(RecordedGemms, Fp32SgemmIsComputeBoundOnTheSm) {
  int seen = 0;
  for (const KernelCounters& k : all_) {
    if (k.name.find("f32f32_f32f32_f32_nn") == std::string::npos) continue;
    ++seen;
    EXPECT_EQ(k.verdict.sol_class, SolClass::kCompute);
    EXPECT_EQ(k.verdict.bound, Bound::kCompute);
  }
  EXPECT_EQ(seen, 2);
}

// --- ncu's raw SpeedOfLight values -------------------------------------------------

struct NcuKernel {
  std::string name;
  double sm = 0, memory = 0;
};

std::vector<NcuKernel> LoadNcu(const std::string& file) {
  std::vector<NcuKernel> out;
  for (const auto& row : testing::LoadNcuCsv(kReal + file)) {
    const std::string& sm = row.at("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    if (sm.empty()) continue;
    out.push_back({row.at("Kernel Name"), testing::CsvNumber(sm),
                   testing::CsvNumber(row.at(
                       "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"))});
  }
  return out;
}

// ncu's SOLBottleneck rule as its rule file states it: the message it prints.
std::string NcuRule(double sm, double mem) {
  if (sm < 80 && mem < 80) {
    if (sm < 60 && mem < 60) return "Latency Issue";
    if (std::fabs(sm - mem) >= 10) {
      return sm > mem ? "High Compute Throughput" : "High Memory Throughput";
    }
    return "Balanced Throughput";
  }
  return "High Throughput";
}

std::string OurRule(double sm, double mem) {
  bool high = false;
  const SolClass c = ClassifySol(sm, mem, &high);
  if (high) return "High Throughput";
  switch (c) {
    case SolClass::kLatency:
      return "Latency Issue";
    case SolClass::kCompute:
      return "High Compute Throughput";
    case SolClass::kMemory:
      return "High Memory Throughput";
    default:
      break;
  }
  return "Balanced Throughput";
}

TEST(NcuSpeedOfLight, ClassAgreesWithNcuOnEveryRecordedKernel) {
  std::map<std::string, int> classes;
  for (const char* file :
       {"h100-gemm-ncu-sol.csv.gz", "h200-gemm-ncu-sol.csv.gz", "h200-gpt2-ncu-sol.csv.gz"}) {
    std::vector<NcuKernel> ks = LoadNcu(file);
    ASSERT_GE(ks.size(), 28u) << file;
    for (const NcuKernel& k : ks) {
      EXPECT_EQ(OurRule(k.sm, k.memory), NcuRule(k.sm, k.memory)) << k.name;
      ++classes[NcuRule(k.sm, k.memory)];
    }
  }
  // The recorded kernels exercise every class of the rule.
  EXPECT_EQ(classes.size(), 5u);
}

TEST_F(RecordedGemms, SmAndMemoryPercentMatchNcuWithin3Points) {
  // The same GEMMs on the same H100, a separate run: ncu's kernels in launch order, two
  // per size.
  std::vector<NcuKernel> ncu = LoadNcu("h100-gemm-ncu-sol.csv.gz");
  int compared = 0;
  for (const KernelCounters& k : all_) {
    if (!k.sol || !k.sol->has_sm || k.total_time_ns == 0) continue;
    bool matched = false;
    for (const NcuKernel& n : ncu) {
      // ncu shortens template kernels' names: the same start, "void " left out.
      const std::string ncu_start = n.name.substr(0, 40);
      if (matched || k.name.find(ncu_start) == std::string::npos) continue;
      // The 4096 and 8192 launches of a name: the one of the same class and nearest SM %.
      if (std::fabs(n.sm - k.sol->sm_pct) <= 3 && std::fabs(n.memory - k.sol->memory_pct) <= 3) {
        matched = true;
      }
    }
    if (k.name.find("gemm") != std::string::npos || k.name.find("nvjet") != std::string::npos) {
      EXPECT_TRUE(matched) << k.name << " SM " << k.sol->sm_pct << " memory " << k.sol->memory_pct;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 13);  // 7 precisions x 2 sizes, TF32 8192 not sampled
}

}  // namespace
}  // namespace cuscope::analysis
