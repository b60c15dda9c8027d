// The verdict set's speed of light from its parts, against ncu on whole training steps.
// tests/data/real holds ncu's SpeedOfLight section and the breakdowns of SM % and memory
// % for every launch of one warm training step of two real models on an H100 (GPT-2:
// 581 launches; a ViT-B/16 of 6 blocks: 386 launches; bench/device/sol_breakdown.py).
// Each launch's values of the `verdict` set's metrics, as cuscope would read them, go
// through the analysis (DeriveCounters); its class is compared with ncu's class from
// ncu's own SM % and memory %, weighted by the launch's GPU time.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lib/analysis/counter_derive.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/verdict.h"
#include "lib/model/metrics.h"
#include "tests/unit/ncu_csv.h"

namespace cuscope::analysis {
namespace {

const std::string kReal = std::string(CUSCOPE_TEST_DATA_DIR) + "/real/";

struct Agreement {
  double time_agreeing = 0, time = 0;
  int launches = 0, launches_agreeing = 0;
  std::vector<std::string> misses;
};

// The launch as cuscope's analysis sees it when the verdict set measured it.
KernelCounters FromVerdictSet(const std::map<std::string, std::string>& row) {
  KernelCounters k;
  for (const std::string& metric : metrics::SetMetrics("verdict")) {
    auto it = row.find(metric);
    if (it == row.end() || it->second.empty()) continue;
    k.values.emplace_back(metric, testing::CsvNumber(it->second));
  }
  std::sort(k.values.begin(), k.values.end());
  DeriveCounters(k, Ceilings{}, nullptr);
  return k;
}

Agreement Compare(const std::string& file) {
  Agreement a;
  for (const auto& row : testing::LoadNcuCsv(kReal + file)) {
    const double ns = testing::CsvNumber(row.at("gpu__time_duration.sum"));
    const double sm = testing::CsvNumber(row.at(metrics::kSmThroughputPct));
    const double mem = testing::CsvNumber(row.at(metrics::kMemThroughputPct));
    bool high = false;
    const SolClass ncu = ClassifySol(sm, mem, &high);
    const KernelCounters k = FromVerdictSet(row);
    EXPECT_TRUE(k.sol && k.sol->has_sm && k.sol->has_memory) << row.at("Kernel Name");
    if (!k.sol) continue;
    // The parts are members of ncu's breakdowns: never above ncu's value.
    EXPECT_LE(k.sol->sm_pct, sm + 0.05) << row.at("Kernel Name");
    EXPECT_LE(k.sol->memory_pct, mem + 0.05) << row.at("Kernel Name");
    EXPECT_GT(k.sol->sm_parts, 0);
    EXPECT_GT(k.sol->memory_parts, 0);
    a.time += ns;
    ++a.launches;
    if (k.verdict.sol_class == ncu) {
      a.time_agreeing += ns;
      ++a.launches_agreeing;
    } else {
      a.misses.push_back(row.at("Kernel Name").substr(0, 60) + ": ncu " + SolClassName(ncu) + " (" +
                         std::to_string(sm) + "/" + std::to_string(mem) + "), parts " +
                         SolClassName(k.verdict.sol_class));
    }
  }
  return a;
}

TEST(VerdictSetAgainstNcu, TheVerdictSetIsOnePassOfBreakdownParts) {
  const std::vector<std::string> set = metrics::SetMetrics("verdict");
  for (const std::string& part : metrics::SmThroughputParts()) {
    EXPECT_EQ(part.find(".avg.pct_of_peak_sustained_elapsed") != std::string::npos, true) << part;
  }
  // Each side has measured parts in the set, and the roofline set carries them too.
  const std::vector<std::string> roofline = metrics::SetMetrics("roofline");
  for (const auto* parts : {&metrics::SmThroughputParts(), &metrics::MemoryThroughputParts()}) {
    int in_set = 0;
    for (const std::string& p : *parts) {
      if (std::find(set.begin(), set.end(), p) == set.end()) continue;
      ++in_set;
      EXPECT_NE(std::find(roofline.begin(), roofline.end(), p), roofline.end()) << p;
    }
    EXPECT_GE(in_set, 2);
  }
}

// The class agrees on at least 98% of the step's GPU time; the misses are printed.
void ExpectAgreement(const char* model, const std::string& file, int launches) {
  Agreement a = Compare(file);
  EXPECT_EQ(a.launches, launches);
  EXPECT_GE(a.time_agreeing / a.time, 0.98);
  for (const std::string& m : a.misses) std::printf("%s miss: %s\n", model, m.c_str());
  std::printf("%s: %.2f%% of GPU time, %d of %d launches\n", model, 100 * a.time_agreeing / a.time,
              a.launches_agreeing, a.launches);
}

TEST(VerdictSetAgainstNcu, ClassAgreesOn98PercentOfAGpt2StepsTime) {
  ExpectAgreement("gpt2", "h100-gpt2-ncu-breakdown.csv.gz", 581);
}

TEST(VerdictSetAgainstNcu, ClassAgreesOn98PercentOfAVitStepsTime) {
  ExpectAgreement("vit", "h100-vit-ncu-breakdown.csv.gz", 386);
}

// Copies and index-heavy elementwise kernels, whose SM % comes from instruction issue
// and not from an FP pipe, read compute or balanced as ncu does, not latency.
TEST(VerdictSetAgainstNcu, CopiesAndIndexKernelsAreNotLatency) {
  int seen = 0;
  for (const auto& row : testing::LoadNcuCsv(kReal + "h100-vit-ncu-breakdown.csv.gz")) {
    const std::string& name = row.at("Kernel Name");
    if (name.find("CatArrayBatchedCopy") == std::string::npos) continue;
    const double sm = testing::CsvNumber(row.at(metrics::kSmThroughputPct));
    if (sm < 60) continue;
    ++seen;
    const KernelCounters k = FromVerdictSet(row);
    EXPECT_NE(k.verdict.sol_class, SolClass::kLatency) << name;
    EXPECT_NE(k.verdict.bound, Bound::kLatency) << name;
  }
  EXPECT_GT(seen, 0);
}

}  // namespace
}  // namespace cuscope::analysis
