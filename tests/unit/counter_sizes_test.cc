// Verdicts per launch size (lib/analysis/counter_sizes.h): a signature's measured
// launches split where their durations jump; and on ncu's whole-step references of a
// real ViT-B/16 step (tests/data/real, bench/device/sol_breakdown.py), with every
// launch measured as the sweep's further samples keep them, a verdict per size agrees
// with ncu where one verdict per signature cannot: cuBLAS's persistent nvjet GEMMs
// launch one grid for every size. And on cuscope's own recordings of the same steps with
// no flags (the sweep, tests/data/real/h100-*-default.sqlite), the verdicts per size
// agree with ncu's class on most of the step's GPU time (bench/ncu_agreement.py).
#include "lib/analysis/counter_sizes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "lib/analysis/kernel_counters.h"
#include "lib/model/metrics.h"
#include "lib/store/reader.h"
#include "tests/unit/builders.h"
#include "tests/unit/ncu_csv.h"

namespace cuscope::analysis {
namespace {

TEST(CounterSizes, SplitWhereDurationsJump) {
  // Sets 10..15: 10, 10.2, 40, 41 us, one without a duration, 200 us.
  const std::vector<LaunchSize> s =
      SplitBySize({10, 11, 12, 13, 14, 15}, {10e3, 10.2e3, 40e3, 41e3, 0, 200e3});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].set_indices, (std::vector<uint32_t>{10, 11}));
  EXPECT_EQ(s[1].set_indices, (std::vector<uint32_t>{12, 13}));
  EXPECT_EQ(s[2].set_indices, (std::vector<uint32_t>{15}));
  EXPECT_EQ(s[1].min_ns, 40e3);
  EXPECT_EQ(s[1].max_ns, 41e3);
  EXPECT_EQ(NearestSize(s, 9e3), 0u);
  EXPECT_EQ(NearestSize(s, 25e3), 1u);  // nearer 40 us than 10.2 us on a log scale
  EXPECT_EQ(NearestSize(s, 40.5e3), 1u);
  EXPECT_EQ(NearestSize(s, 1e6), 2u);
  // Within kSizeGap of each other, step by step: one size, so none.
  EXPECT_TRUE(SplitBySize({1, 2, 3, 4}, {10e3, 10.4e3, 10.8e3, 11.2e3}).empty());
  EXPECT_TRUE(SplitBySize({1}, {10e3}).empty());
}

model::Dim3 Dim(const std::string& text) {  // "(132, 1, 1)"
  model::Dim3 d{1, 1, 1};
  std::sscanf(text.c_str(), " (%u, %u, %u)", &d.x, &d.y, &d.z);
  return d;
}

// A profile of one step as the sweep keeps it when every launch falls in a window:
// each ncu launch a kernel record and a counter set of the `verdict` set's metrics.
model::Profile MeasuredStep(const std::vector<std::map<std::string, std::string>>& rows) {
  testing::ProfileBuilder b;
  uint64_t t = 1000;
  const std::vector<std::string> set = metrics::SetMetrics("verdict");
  for (const auto& row : rows) {
    const double ns = testing::CsvNumber(row.at(metrics::kDuration));
    const std::string& name = row.at("Kernel Name");
    model::KernelRecord& k = b.Kernel(name, t, t + static_cast<uint64_t>(ns));
    k.grid = Dim(row.at("Grid Size"));
    k.block = Dim(row.at("Block Size"));
    t += static_cast<uint64_t>(ns) + 1000;
    model::Profile& p = b.profile();
    model::CounterSet& s = p.counters.emplace_back();
    s.name = k.name;
    s.grid = k.grid;
    s.block = k.block;
    s.strategy = model::CounterStrategy::kSweep;
    s.correlation_ids = {k.correlation_id};
    for (const std::string& metric : set) {
      auto it = row.find(metric);
      if (it == row.end() || it->second.empty()) continue;
      s.values.emplace_back(p.strings.Intern(metric), testing::CsvNumber(it->second));
    }
  }
  return b.Take();
}

struct Agreement {
  double per_signature = 0, per_size = 0;  // % of the step's GPU time
  size_t split = 0;                        // signatures with sizes
};

Agreement Compare(const std::string& file) {
  const auto rows = testing::LoadNcuCsv(std::string(CUSCOPE_TEST_DATA_DIR) + "/real/" + file);
  const model::Profile p = MeasuredStep(rows);
  std::map<std::tuple<std::string, uint32_t, uint32_t>, const KernelCounters*> by_sig;
  const std::vector<KernelCounters> counters = AnalyzeCounters(p);
  Agreement a;
  for (const KernelCounters& k : counters) {
    by_sig[{k.name, k.grid.x, k.block.x}] = &k;
    a.split += k.sizes.empty() ? 0 : 1;
  }
  double total = 0, signature = 0, size = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const model::KernelRecord& r = p.kernels[i];
    const double ns = double(r.duration_ns());
    bool high = false;
    const SolClass ncu =
        ClassifySol(testing::CsvNumber(rows[i].at(metrics::kSmThroughputPct)),
                    testing::CsvNumber(rows[i].at(metrics::kMemThroughputPct)), &high);
    const KernelCounters* k = by_sig.at({p.str(r.name), r.grid.x, r.block.x});
    const SolClass mine = k->sizes.empty() ? k->verdict.sol_class
                                           : k->sizes[NearestSize(k->sizes, ns)].verdict.sol_class;
    total += ns;
    signature += k->verdict.sol_class == ncu ? ns : 0;
    size += mine == ncu ? ns : 0;
  }
  a.per_signature = 100 * signature / total;
  a.per_size = 100 * size / total;
  return a;
}

TEST(CounterSizes, VitPersistentGemmsGetAVerdictPerSize) {
  const Agreement a = Compare("h100-vit-ncu-breakdown.csv.gz");
  std::fprintf(stderr,
               "ViT: one verdict a signature %.1f%%, a verdict per size %.1f%% (%zu split)\n",
               a.per_signature, a.per_size, a.split);
  EXPECT_GT(a.split, 0u);
  EXPECT_GE(a.per_size, a.per_signature + 5);
  EXPECT_GE(a.per_size, 98.0);
}

TEST(CounterSizes, Gpt2KeepsItsAgreement) {
  const Agreement a = Compare("h100-gpt2-ncu-breakdown.csv.gz");
  std::fprintf(stderr,
               "GPT-2: one verdict a signature %.1f%%, a verdict per size %.1f%% (%zu split)\n",
               a.per_signature, a.per_size, a.split);
  EXPECT_GE(a.per_size, a.per_signature);
  EXPECT_GE(a.per_size, 98.0);
}

TEST(CounterSizes, AKernelCountersRowKeepsItsSizesTimes) {
  const model::Profile p = MeasuredStep(testing::LoadNcuCsv(std::string(CUSCOPE_TEST_DATA_DIR) +
                                                            "/real/h100-vit-ncu-breakdown.csv.gz"));
  for (const KernelCounters& k : AnalyzeCounters(p)) {
    if (k.sizes.empty()) continue;
    uint64_t launches = 0, ns = 0;
    double pct = 0;
    for (size_t i = 0; i < k.sizes.size(); ++i) {
      if (i > 0) {
        EXPECT_GT(k.sizes[i].min_ns, k.sizes[i - 1].max_ns * kSizeGap) << k.name;
      }
      launches += k.sizes[i].launches;
      ns += k.sizes[i].time_ns;
      pct += k.sizes[i].time_percent;
    }
    EXPECT_EQ(launches, k.launches) << k.name;
    EXPECT_EQ(ns, k.total_time_ns) << k.name;
    EXPECT_NEAR(pct, 100.0, 1e-6) << k.name;
  }
}

// --- cuscope's recordings against ncu ------------------------------------------------

// A kernel name as bench/ncu_agreement.py's norm() writes it, so that ncu's name of a
// launch and cuscope's name of its signature read alike: no namespaces, casts, literal
// suffixes, "void", "const", parameters or spaces.
std::string NormalizedName(std::string n) {
  static const std::regex kAnonymous(R"(\(anonymous namespace\))");
  static const std::regex kCast(R"(\((\w+::)*\w+\)(?=-?\d))");  // (at::native::ADAM_MODE)1
  static const std::regex kFalse(R"(\bfalse\b)"), kTrue(R"(\btrue\b)");
  static const std::regex kSuffix(R"(\b(\d+)(ull|ul|u|l)\b)");
  static const std::regex kWords(R"(\bvoid\b|\bconst\b)");
  static const std::regex kNamespace(R"((\w+|<unnamed>)::)");
  n = std::regex_replace(n, kAnonymous, "<unnamed>");
  n = std::regex_replace(n, kCast, "");
  n = n.substr(0, n.find('('));
  n = std::regex_replace(n, kFalse, "0");
  n = std::regex_replace(n, kTrue, "1");
  n = std::regex_replace(n, kSuffix, "$1");
  n = std::regex_replace(n, kWords, "");
  n = std::regex_replace(n, kNamespace, "");
  n.erase(std::remove(n.begin(), n.end(), ' '), n.end());
  return n;
}

struct RecordedAgreement {
  double percent = 0;  // of ncu's GPU time of the step
  size_t agreeing = 0, launches = 0;
};

// As bench/ncu_agreement.py measures it: each launch of ncu's whole-step reference
// `ncu_file` matched to the recorded profile's signature (normalized name, grid, block),
// ncu's class (ClassifySol of its SM and memory %) against cuscope's class of the
// signature, or of its size nearest the launch's ncu duration (NearestSize) where it has
// sizes; a launch whose signature the profile lacks disagrees. Weighted by ncu's
// durations.
RecordedAgreement AgreementWithNcu(const std::string& ncu_file, const std::string& profile_file) {
  const std::string real = std::string(CUSCOPE_TEST_DATA_DIR) + "/real/";
  const auto rows = testing::LoadNcuCsv(real + ncu_file);
  auto p = store::LoadProfile(real + profile_file);
  EXPECT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(rows.empty()) << ncu_file;
  if (!p.ok()) return {};
  const std::vector<KernelCounters> counters = AnalyzeCounters(*p);
  using Key = std::tuple<std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
  std::map<Key, const KernelCounters*> by_sig;  // a later signature of one key wins, as there
  for (const KernelCounters& k : counters) {
    if (k.region) continue;
    by_sig[{NormalizedName(k.name), k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y,
            k.block.z}] = &k;
  }
  RecordedAgreement a;
  double total = 0, agree = 0;
  for (const auto& row : rows) {
    const double ns = testing::CsvNumber(row.at(metrics::kDuration));
    const SolClass ncu =
        ClassifySol(testing::CsvNumber(row.at(metrics::kSmThroughputPct)),
                    testing::CsvNumber(row.at(metrics::kMemThroughputPct)), nullptr);
    const model::Dim3 g = Dim(row.at("Grid Size")), b = Dim(row.at("Block Size"));
    const auto it =
        by_sig.find({NormalizedName(row.at("Kernel Name")), g.x, g.y, g.z, b.x, b.y, b.z});
    total += ns;
    ++a.launches;
    if (it == by_sig.end()) continue;  // not measured
    const KernelCounters& k = *it->second;
    const SolClass mine =
        k.sizes.empty() ? k.verdict.sol_class : k.sizes[NearestSize(k.sizes, ns)].verdict.sol_class;
    if (mine != ncu) continue;
    agree += ns;
    ++a.agreeing;
  }
  a.percent = total > 0 ? 100 * agree / total : 0;
  return a;
}

// The recordings: bench/device/default_cost.py with no counter flags ("d": the sweep's
// verdict set, a verdict per launch size, further samples), one H100 80GB HBM3; GPT-2:
// gpt2 12 d, 12 training steps, commit 6ac3c2e, 2026-12-06 16:34; ViT: vit:32:6 4 d,
// ViT-B/16 of depth 6, batch 32, 4 steps, commit fc141f3, 2026-12-06 18:49 (its cuDNN
// convolution's 1,675-character name demangled when recorded, model::DemangleLimit::kLong).
// ncu's references are warm steps of the same scripts on an H100
// (bench/device/sol_breakdown.py). Measured 97.70% (GPT-2, 550 of 581 launches) and
// 91.94% (ViT, 344 of 386), as bench/ncu_agreement.py prints them; the recordings of
// commit 119be04 (one verdict a signature) gave 96.69% and 81.65%, 6ac3c2e's ViT (the
// convolution's name mangled, so matched to no ncu launch) 91.01%. The floors below are
// regression floors a little under those values, not the goal: issue #32's target is
// 98% of the step's GPU time.
//
// On an H200 (2026-12-06 21:41-21:49, commit a193032, the same scripts): ViT's no-flag run
// (h200-vit-default.sqlite, 82/82 signatures) against ncu's kernel replay of a warm step
// (h200-vit-ncu-breakdown.csv.gz) 95.76% (370 of 386), and against ncu's application
// replay (h200-vit-app-ncu-breakdown.csv.gz: `sol_breakdown.py --replay application`, the
// program run once a pass, each launch measured with the caches the launches before it
// left, as the run measures it) 98.42% (380 of 386).
//
// On an H100 (2026-12-07 03:04-03:11, commit c30df52): ncu's application replay of GPT-2's
// warm step (h100-gpt2-app-ncu-breakdown.csv.gz) against the shipped no-flag GPT-2 run
// (h100-gpt2-default.sqlite) 98.98% (570 of 581 launches); a fresh no-flag run of the same
// call 98.94%.
struct RecordedRun {
  const char* test_name;
  const char* model;
  const char* ncu_file;
  const char* profile_file;
  size_t launches;
  double floor_percent;
};

class RecordedAgreesWithNcu : public ::testing::TestWithParam<RecordedRun> {};

TEST_P(RecordedAgreesWithNcu, AboveItsFloor) {
  const RecordedRun& run = GetParam();
  const RecordedAgreement a = AgreementWithNcu(run.ncu_file, run.profile_file);
  std::fprintf(stderr, "%s recorded: %.2f%% of GPU time, %zu of %zu launches\n", run.model,
               a.percent, a.agreeing, a.launches);
  EXPECT_EQ(a.launches, run.launches);
  EXPECT_GE(a.percent, run.floor_percent);
}

INSTANTIATE_TEST_SUITE_P(
    CounterSizes, RecordedAgreesWithNcu,
    ::testing::Values(RecordedRun{"Gpt2", "GPT-2", "h100-gpt2-ncu-breakdown.csv.gz",
                                  "h100-gpt2-default.sqlite", 581, 97.5},
                      RecordedRun{"Gpt2AppReplay", "GPT-2 (ncu application replay)",
                                  "h100-gpt2-app-ncu-breakdown.csv.gz", "h100-gpt2-default.sqlite",
                                  581, 98.0},
                      RecordedRun{"Vit", "ViT", "h100-vit-ncu-breakdown.csv.gz",
                                  "h100-vit-default.sqlite", 386, 91.5},
                      RecordedRun{"VitH200", "ViT (H200)", "h200-vit-ncu-breakdown.csv.gz",
                                  "h200-vit-default.sqlite", 386, 95.5},
                      RecordedRun{"VitH200AppReplay", "ViT (H200, ncu application replay)",
                                  "h200-vit-app-ncu-breakdown.csv.gz", "h200-vit-default.sqlite",
                                  386, 98.0}),
    [](const auto& info) { return std::string(info.param.test_name); });

}  // namespace
}  // namespace cuscope::analysis
