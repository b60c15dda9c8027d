// How each signature was measured (complete or partial) and how much of the GPU
// kernel time the verdicts cover (lib/analysis/verdict_coverage.h), on synthetic
// profiles and on the recorded ones; the words the reports print for them
// (lib/report/verdict_text.h).
#include "lib/analysis/verdict_coverage.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/summary.h"
#include "lib/model/metrics.h"
#include "lib/report/verdict_text.h"
#include "lib/store/reader.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;
using cuscope::testing::ProfileBuilder;
using model::CounterStrategy;
using Values = std::vector<std::pair<std::string, double>>;

// SM 20%, memory 90% (DRAM): DRAM-bound, with or without ceilings.
Values DramBound() {
  return {{m::kDuration, 1000},
          {m::kSmThroughputPct, 20},
          {m::kMemThroughputPct, 90},
          {m::kDramThroughputPct, 90}};
}

// A set of the builder's kernel signature (grid 128, block 256).
model::CounterSet& AddSet(model::Profile& p, const std::string& name, CounterStrategy strategy,
                          uint32_t passes, std::vector<uint32_t> correlations,
                          const Values& values = DramBound()) {
  model::CounterSet s;
  s.name = p.strings.Intern(name);
  s.grid = {128, 1, 1};
  s.block = {256, 1, 1};
  s.strategy = strategy;
  s.passes = passes;
  s.correlation_ids = std::move(correlations);
  for (const auto& [metric, v] : values) s.values.emplace_back(p.strings.Intern(metric), v);
  p.counters.push_back(std::move(s));
  return p.counters.back();
}

const KernelCounters& Find(const std::vector<KernelCounters>& all, const std::string& name) {
  for (const KernelCounters& k : all) {
    if (k.name == name) return k;
  }
  ADD_FAILURE() << "no signature " << name;
  static const KernelCounters kNone;
  return kNone;
}

// Six kernel signatures and a region:
//   gemm     3 launches, 1 measured (slowed to 5 us, left out), 2 of 1 us: 2 us; kernel replay
//   relu     2 launches of 500 ns: 1 us; rotate, 7 passes over 7 launches
//   softmax  2 us; rotate, 3 of 7 passes ran: partial
//   norm     1.5 us; kernel replay, one metric NaN: partial
//   empty    500 ns; a duration only: verdict unknown
//   copy     4 us; not measured
//   step     a region measured as a whole: not a kernel, left out
// Kernel time 11 us, covered 3 us (gemm, relu).
class CoverageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model::Profile& p = b_.profile();
    b_.Kernel("gemm", 1000, 6000).flags = model::kKernelCountersMeasured;
    b_.Kernel("gemm", 10000, 11000);
    b_.Kernel("gemm", 20000, 21000);
    b_.Kernel("relu", 30000, 30500);
    b_.Kernel("relu", 31000, 31500);
    b_.Kernel("softmax", 40000, 42000);
    b_.Kernel("norm", 50000, 51500);
    b_.Kernel("empty", 60000, 60500);
    b_.Kernel("copy", 70000, 74000);
    AddSet(p, "gemm", CounterStrategy::kKernelReplay, 7, {1001});
    AddSet(p, "relu", CounterStrategy::kRotate, 7, {1, 2, 3, 4, 5, 6, 7});
    AddSet(p, "softmax", CounterStrategy::kRotate, 7, {11, 12, 13});
    Values nan = DramBound();
    nan[1].second = NAN;
    AddSet(p, "norm", CounterStrategy::kKernelReplay, 4, {21}, nan);
    AddSet(p, "empty", CounterStrategy::kKernelReplay, 1, {31}, {{m::kDuration, 500}});
    model::CounterSet& region = AddSet(p, "step", CounterStrategy::kUserRange, 3, {});
    region.grid = region.block = {0, 0, 0};
    counters_ = AnalyzeCounters(p);
  }
  ProfileBuilder b_;
  std::vector<KernelCounters> counters_;
};

TEST_F(CoverageTest, EachSignatureSaysHowItWasMeasured) {
  const KernelCounters& gemm = Find(counters_, "gemm");
  EXPECT_TRUE(gemm.complete());
  EXPECT_EQ(gemm.verdict.bound, Bound::kDram);
  EXPECT_EQ(report::MeasurementText(gemm), "kernel replay, 7 passes, 1 launch");
  const KernelCounters& relu = Find(counters_, "relu");
  EXPECT_TRUE(relu.complete());
  EXPECT_EQ(relu.progress.passes_run, 7u);
  EXPECT_EQ(report::MeasurementText(relu), "rotate, 7 passes over 7 launches");
  EXPECT_EQ(report::MeasurementText(Find(counters_, "step")), "region, 3 passes over 3 instances");
}

TEST_F(CoverageTest, PartialMeasurementSaysSoInsteadOfAVerdict) {
  const KernelCounters& softmax = Find(counters_, "softmax");
  EXPECT_FALSE(softmax.complete());
  EXPECT_EQ(softmax.progress.passes_run, 3u);
  EXPECT_EQ(softmax.progress.passes, 7u);
  // Its values alone would read DRAM-bound: the passes that did not run may hold the
  // limiter, so the verdict is unknown.
  EXPECT_EQ(softmax.verdict.bound, Bound::kUnknown);
  EXPECT_TRUE(softmax.verdict.partial);
  EXPECT_EQ(report::MeasurementText(softmax), "partial: 3 of 7 passes (rotate, 3 launches)");
  EXPECT_EQ(report::CountersReason(softmax),
            "partial measurement (3 of 7 passes): verdict unknown");
  EXPECT_EQ(report::VerdictReason(softmax.verdict), "partial measurement: verdict unknown");

  const KernelCounters& norm = Find(counters_, "norm");
  EXPECT_FALSE(norm.complete());
  EXPECT_EQ(norm.verdict.bound, Bound::kUnknown);
  EXPECT_EQ(report::MeasurementText(norm), "partial: 3 of 4 metrics (kernel replay, 1 launch)");
  // The metrics it has are still reported.
  EXPECT_TRUE(norm.has(m::kDramThroughputPct));
  EXPECT_FALSE(norm.has(m::kSmThroughputPct));
}

TEST_F(CoverageTest, CoverageCountsKernelTimeOfSignaturesWithAVerdict) {
  const VerdictCoverage c = CoverageOf(b_.profile(), counters_);
  EXPECT_EQ(c.kernel_ns, 11000u);  // the kernel time, as the kernels table's
  EXPECT_EQ(c.kernel_ns, Summarize(b_.profile()).kernel_ns);
  EXPECT_EQ(c.covered_ns, 3000u);
  EXPECT_NEAR(c.percent(), 300.0 / 11, 1e-9);
  EXPECT_EQ(c.signatures, 6u);
  EXPECT_EQ(c.covered, 2u);
  EXPECT_EQ(c.measured, 5u);
  EXPECT_EQ(c.partial, 2u);
  EXPECT_EQ(c.unknown, 1u);
  EXPECT_EQ(c.not_measured(), 1u);
  EXPECT_FALSE(Covered(Find(counters_, "step")));
  EXPECT_EQ(report::CoverageLine(c),
            "verdicts cover 27.3% of GPU kernel time (2 of 6 signatures; 1 not measured, 2 "
            "partial, 1 verdict unknown)");
}

// A complete set beside a partial one makes the signature complete; the best set's
// progress is the complete one's, and the samples are counted.
TEST(MeasurementTest, OneCompleteSetIsEnough) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  b.Kernel("k", 1000, 2000);
  AddSet(p, "k", CounterStrategy::kRotate, 7, {1, 2});
  AddSet(p, "k", CounterStrategy::kRotate, 7, {3, 4, 5, 6, 7, 8, 9});
  AddSet(p, "k", CounterStrategy::kRotate, 7, {10, 11, 12, 13, 14, 15, 16});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  EXPECT_TRUE(k.complete());
  EXPECT_EQ(k.progress.passes_run, 7u);
  EXPECT_EQ(k.verdict.bound, Bound::kDram);
  EXPECT_EQ(report::MeasurementText(k), "rotate, 7 passes over 16 launches (3 samples)");
  // Two strategies, and kernel replay's samples counted by their launches.
  AddSet(p, "k", CounterStrategy::kKernelReplay, 7, {20});
  EXPECT_EQ(report::MeasurementText(AnalyzeCounters(p).at(0)),
            "rotate+kernel replay, 7 passes, 17 launches (4 samples)");
  ProfileBuilder b2;
  AddSet(b2.profile(), "k", CounterStrategy::kKernelReplay, 1, {1});
  AddSet(b2.profile(), "k", CounterStrategy::kKernelReplay, 1, {2});
  EXPECT_EQ(report::MeasurementText(AnalyzeCounters(b2.profile()).at(0)),
            "kernel replay, 1 pass, 2 launches");
}

// Sets of an earlier version name no launches: a rotate set without correlation ids
// is taken as complete (nothing says a pass is missing).
TEST(MeasurementTest, RotateWithoutLaunchesIsComplete) {
  ProfileBuilder b;
  AddSet(b.profile(), "k", CounterStrategy::kRotate, 3, {});
  EXPECT_TRUE(AnalyzeCounters(b.profile()).at(0).complete());
  const SetProgress p = ProgressOf(b.profile().counters[0]);
  EXPECT_EQ(p.passes_run, 3u);
  EXPECT_EQ(p.metrics, 4u);
  EXPECT_EQ(p.metrics_measured, 4u);
}

// A signature with sets and no kernel records has no kernel time (its Time % is an
// estimate); a record without a demangled name joins its set by the mangled name.
TEST(CoverageOfTest, SetsWithoutRecordsAndMangledNames) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddSet(p, "untraced", CounterStrategy::kKernelReplay, 1, {1});  // 1 us x 2 sets
  AddSet(p, "untraced", CounterStrategy::kKernelReplay, 1, {2});
  model::KernelRecord& r = b.Kernel("mangled_only", 1000, 4000);
  r.name = model::kEmptyString;
  AddSet(p, p.str(r.mangled_name), CounterStrategy::kKernelReplay, 1, {3});
  b.Kernel("other", 5000, 10000);
  const VerdictCoverage c = CoverageOf(p, AnalyzeCounters(p));
  EXPECT_EQ(c.kernel_ns, 3000u + 5000u);
  EXPECT_EQ(c.covered_ns, 3000u);
  EXPECT_EQ(c.signatures, 3u);
  EXPECT_EQ(c.covered, 2u);
  EXPECT_EQ(report::CoverageLine(c),
            "verdicts cover 37.5% of GPU kernel time (2 of 3 signatures; 1 not measured)");
  // No counters: every kernel record's signature not measured ("untraced" has none).
  const VerdictCoverage none = CoverageOf(p, {});
  EXPECT_EQ(none.signatures, 2u);
  EXPECT_EQ(none.covered_ns, 0u);
  EXPECT_EQ(none.kernel_ns, 3000u + 5000u);
  EXPECT_EQ(report::CoverageLine(none),
            "verdicts cover 0.0% of GPU kernel time (0 of 2 signatures; 2 not measured)");
  EXPECT_EQ(CoverageOf(model::Profile(), {}).percent(), 0);
}

TEST(CoverageLineTest, NeverRoundsToAllOrNothing) {
  VerdictCoverage c;
  c.kernel_ns = 100000;
  c.covered_ns = 99999;
  c.signatures = c.measured = 2;
  c.covered = 1;
  c.unknown = 1;
  EXPECT_EQ(report::CoverageLine(c),
            "verdicts cover >99.9% of GPU kernel time (1 of 2 signatures; 1 verdict unknown)");
  c.covered_ns = 1;
  EXPECT_EQ(report::CoverageLine(c),
            "verdicts cover <0.1% of GPU kernel time (1 of 2 signatures; 1 verdict unknown)");
  c.covered_ns = c.kernel_ns;
  c.covered = 2;
  c.unknown = 0;
  EXPECT_EQ(report::CoverageLine(c),
            "verdicts cover 100.0% of GPU kernel time (2 of 2 signatures)");
}

// --- Recorded profiles -------------------------------------------------------------

struct Recorded {
  model::Profile profile;
  std::vector<KernelCounters> counters;
  VerdictCoverage coverage;
};

Recorded Load(const std::string& name) {
  Recorded r;
  auto p = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/" + name);
  EXPECT_TRUE(p.ok()) << p.status();
  if (!p.ok()) return r;
  r.profile = std::move(*p);
  r.counters = AnalyzeCounters(r.profile);
  r.coverage = CoverageOf(r.profile, r.counters);
  return r;
}

// counters_demo, kernel replay of the roofline set (3 passes on GH100), one launch of
// each of its 3 signatures.
TEST(RecordedCoverageTest, CountersDemoIsCoveredByKernelReplay) {
  const Recorded r = Load("h200-counters-demo.sqlite");
  EXPECT_EQ(r.coverage.signatures, 3u);
  EXPECT_EQ(r.coverage.covered, 3u);
  EXPECT_EQ(r.coverage.kernel_ns, 8160331u);  // the report's kernel time
  EXPECT_EQ(r.coverage.covered_ns, r.coverage.kernel_ns);
  EXPECT_EQ(report::CoverageLine(r.coverage),
            "verdicts cover 100.0% of GPU kernel time (3 of 3 signatures)");
  for (const KernelCounters& k : r.counters) {
    EXPECT_TRUE(k.complete()) << k.name;
    EXPECT_EQ(report::MeasurementText(k), "kernel replay, 3 passes, 1 launch") << k.name;
  }
}

// A GPT-2 training step under rotate with the roofline set (7 passes): every one of
// its 96 signatures sampled once, each pass on its own launch.
TEST(RecordedCoverageTest, Gpt2RotateCoversEverySignature) {
  const Recorded r = Load("real/h200-gpt2-rotate-roofline.sqlite");
  ASSERT_EQ(r.counters.size(), 96u);
  EXPECT_EQ(r.coverage.signatures, 96u);
  EXPECT_EQ(r.coverage.measured, 96u);
  EXPECT_EQ(r.coverage.covered, 96u);
  EXPECT_EQ(r.coverage.partial + r.coverage.unknown, 0u);
  EXPECT_EQ(r.coverage.kernel_ns, 56551418u);
  EXPECT_EQ(r.coverage.covered_ns, r.coverage.kernel_ns);
  EXPECT_EQ(report::CoverageLine(r.coverage),
            "verdicts cover 100.0% of GPU kernel time (96 of 96 signatures)");
  for (const KernelCounters& k : r.counters) {
    EXPECT_TRUE(k.complete()) << k.name;
    EXPECT_EQ(k.progress.passes_run, 7u) << k.name;
    EXPECT_EQ(k.progress.metrics, k.progress.metrics_measured) << k.name;
    EXPECT_EQ(report::MeasurementText(k), "rotate, 7 passes over 7 launches") << k.name;
  }
}

// A GPT-2 training step (12 steps, bench/device/default_cost.py gpt2 12 d) run with no
// counter flags: the default verdict set (one pass) measured by the sweep. Recorded on
// one H100 80GB HBM3 at commit 6ac3c2e on 2026-12-06 16:34: each signature's first
// launch sampled, and further samples of launches measured anyway (267 launches
// measured, 100 samples and 167 further ones; the counters' summary in the profile).
TEST(RecordedCoverageTest, Gpt2WithNoFlagsIsCoveredByTheSweep) {
  const Recorded r = Load("real/h100-gpt2-default.sqlite");
  EXPECT_EQ(r.profile.run.notes.counters_strategy, "sweep");
  EXPECT_EQ(r.coverage.signatures, 100u);
  EXPECT_GE(r.coverage.percent(), 95.0);
  EXPECT_EQ(r.coverage.covered, r.coverage.signatures);
  EXPECT_EQ(r.coverage.kernel_ns, 261731689u);  // the report's kernel time
  EXPECT_EQ(report::CoverageLine(r.coverage),
            "verdicts cover 100.0% of GPU kernel time (100 of 100 signatures)");
  ASSERT_EQ(r.counters.size(), 100u);
  uint64_t sets = 0, single = 0;
  for (const KernelCounters& k : r.counters) {
    EXPECT_TRUE(k.complete()) << k.name;
    // One set a measured launch: "1 launch", or "N launches (N samples)".
    EXPECT_EQ(k.sets, k.measured_launches) << k.name;
    const std::string n = std::to_string(k.sets);
    EXPECT_EQ(report::MeasurementText(k),
              k.sets == 1 ? "sweep, 1 pass, 1 launch"
                          : "sweep, 1 pass, " + n + " launches (" + n + " samples)")
        << k.name;
    sets += k.sets;
    single += k.sets == 1 ? 1 : 0;
  }
  EXPECT_EQ(sets, 267u);
  EXPECT_EQ(single, 48u);
}

// The same scripts with no counter flags on one H200 (commit a193032, 2026-12-06 21:46-21:49,
// bench/device/default_cost.py gpt2 12 d and vit:32:6 4 d), the recordings that ncu's
// whole-step references on the H200 are read against (counter_sizes_test).
TEST(RecordedCoverageTest, H200RunsWithNoFlagsAreCoveredByTheSweep) {
  for (const auto& [file, signatures] :
       {std::pair<const char*, size_t>{"real/h200-gpt2-default.sqlite", 101},
        std::pair<const char*, size_t>{"real/h200-vit-default.sqlite", 82}}) {
    const Recorded r = Load(file);
    EXPECT_EQ(r.profile.run.notes.counters_strategy, "sweep") << file;
    EXPECT_EQ(r.coverage.signatures, signatures) << file;
    EXPECT_EQ(r.coverage.covered, r.coverage.signatures) << file;
    EXPECT_GE(r.coverage.percent(), 95.0) << file;
    for (const KernelCounters& k : r.counters) {
      EXPECT_TRUE(k.complete()) << file << ": " << k.name;
      EXPECT_EQ(report::MeasurementText(k).rfind("sweep, 1 pass, ", 0), 0u)
          << file << ": " << k.name;
    }
  }
}

// GEMMs of every precision measured on the H200 with an earlier version's roofline set,
// which counted only the BF16 tensor paths: 12 GEMMs whose tensor precision was not
// counted read "verdict unknown", and the coverage says how much of the time that leaves
// out. With the tensor metrics of each precision every verdict is known: the same
// script (bench/device/gemm_precisions.py 4096,8192) recorded on an H100 80GB HBM3 on
// 2026-12-06 by kernel replay, one launch of each of its 20 signatures measured.
TEST(RecordedCoverageTest, GemmsWithoutTheirTensorCountersAreNotCovered) {
  const Recorded r = Load("real/h200-gemm-roofline.sqlite");
  EXPECT_EQ(r.coverage.signatures, 20u);
  EXPECT_EQ(r.coverage.covered, 8u);
  EXPECT_EQ(r.coverage.unknown, 12u);
  EXPECT_EQ(r.coverage.partial, 0u);
  EXPECT_EQ(r.coverage.kernel_ns, 129022530u);  // the report's kernel time
  EXPECT_EQ(r.coverage.covered_ns, 53358122u);
  EXPECT_EQ(report::CoverageLine(r.coverage),
            "verdicts cover 41.4% of GPU kernel time (8 of 20 signatures; 12 verdict unknown)");
  const Recorded tensor = Load("real/h100-gemm-tensor-metrics.sqlite");
  EXPECT_EQ(report::CoverageLine(tensor.coverage),
            "verdicts cover 100.0% of GPU kernel time (20 of 20 signatures)");
  // The durations of its 40 launches not measured with counters (SQLite's sum over the
  // kernels table; the 20 measured ones are slowed by the replay and left out).
  EXPECT_EQ(tensor.coverage.kernel_ns, 66674712u);
  EXPECT_EQ(tensor.coverage.covered_ns, tensor.coverage.kernel_ns);
  ASSERT_EQ(tensor.counters.size(), 20u);
  for (const KernelCounters& k : tensor.counters) {
    EXPECT_EQ(report::MeasurementText(k), "kernel replay, 15 passes, 1 launch") << k.name;
  }
}

// Profiles without counters: every kernel signature is not measured.
TEST(RecordedCoverageTest, TracesWithoutCountersCoverNothing) {
  const Recorded r = Load("real/h200-gpt2-step-trace.sqlite");
  EXPECT_TRUE(r.counters.empty());
  EXPECT_EQ(r.coverage.signatures, 101u);
  EXPECT_EQ(r.coverage.not_measured(), 101u);
  EXPECT_EQ(r.coverage.kernel_ns, 83002253u);
  EXPECT_EQ(r.coverage.covered_ns, 0u);
  EXPECT_EQ(Load("h200-timeline-demo.sqlite").coverage.signatures, 4u);
}

}  // namespace
}  // namespace cuscope::analysis
