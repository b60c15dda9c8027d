// What `cuscope export` keeps with --from/--to, --kernels, --regions and --aggregate.
#include "lib/report/trace_filter.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/report/trace_view.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using testing::ProfileBuilder;

struct Seen final : TraceSink {
  struct Item {
    TracePhase phase;
    std::string category, name;
    uint64_t start, end;
    uint64_t count = 1;  // "aggregated kernels"
  };
  void Event(const TraceEvent& e) override {
    if (e.phase == TracePhase::kMetadata) return;
    Item item{e.phase, e.category, std::string(e.name), e.start_ns, e.end_ns};
    for (const TraceArg& a : e.args) {
      if (a.key == "aggregated kernels") item.count = a.u;
    }
    items.push_back(item);
  }
  std::vector<std::string> Names(const std::string& category, TracePhase phase) const {
    std::vector<std::string> out;
    for (const Item& i : items) {
      if (i.category == category && i.phase == phase) out.push_back(i.name);
    }
    return out;
  }
  std::vector<Item> items;
};

Seen Export(const model::Profile& p, const TraceOptions& options) {
  absl::StatusOr<TraceFilter> filter = TraceFilter::Create(p, options);
  EXPECT_TRUE(filter.ok()) << filter.status();
  TraceView view(p, {}, &*filter);
  Seen seen;
  view.Events(seen);
  return seen;
}

// Three launches at 1, 2 and 3 us after the run's start (1000 ns), inside "step"
// (the first two) and "eval" (the third).
ProfileBuilder ThreeLaunches() {
  ProfileBuilder b;
  b.profile().run.start_ns = 1000;
  b.Range("step", 1500, 2900);
  b.Range("eval", 3500, 4900);
  b.Api("cudaLaunchKernel", 2000, 2100, 1);
  b.Kernel("gemm", 2200, 2300, 7, 1);
  b.Api("cudaLaunchKernel", 2500, 2600, 2);
  b.Kernel("relu", 2700, 2800, 7, 2);
  b.Api("cudaLaunchKernel", 4000, 4100, 3);
  b.Kernel("gemm", 4200, 4300, 7, 3);
  return b;
}

TEST(TraceFilterTest, EverythingByDefault) {
  ProfileBuilder b = ThreeLaunches();
  const Seen seen = Export(b.profile(), {});
  EXPECT_EQ(seen.Names("kernel", TracePhase::kComplete).size(), 3u);
  EXPECT_EQ(seen.Names("cuda_runtime", TracePhase::kComplete).size(), 3u);
  EXPECT_EQ(seen.Names("ac2g", TracePhase::kFlowStart).size(), 0u);  // flows carry no category
}

TEST(TraceFilterTest, TimeWindowRelativeToRunStart) {
  ProfileBuilder b = ThreeLaunches();
  TraceOptions o;
  o.from_ns = 2500;  // 3500 on the clock: the third launch and "eval" only
  const Seen seen = Export(b.profile(), o);
  EXPECT_EQ(seen.Names("kernel", TracePhase::kComplete), std::vector<std::string>{"gemm"});
  EXPECT_EQ(seen.Names("user_annotation", TracePhase::kComplete), std::vector<std::string>{"eval"});
  o.from_ns.reset();
  o.to_ns = 1250;  // until 2250: the first launch and its kernel (which overlaps)
  const Seen early = Export(b.profile(), o);
  EXPECT_EQ(early.Names("kernel", TracePhase::kComplete), std::vector<std::string>{"gemm"});
  EXPECT_EQ(early.Names("cuda_runtime", TracePhase::kComplete).size(), 1u);
}

TEST(TraceFilterTest, KernelPatternDropsOtherKernelsAndTheirLaunches) {
  ProfileBuilder b = ThreeLaunches();
  TraceOptions o;
  o.kernels = "^relu$";
  const Seen seen = Export(b.profile(), o);
  EXPECT_EQ(seen.Names("kernel", TracePhase::kComplete), std::vector<std::string>{"relu"});
  EXPECT_EQ(seen.Names("cuda_runtime", TracePhase::kComplete).size(), 1u);
  size_t flows = 0;
  for (const auto& i : seen.items) flows += i.phase == TracePhase::kFlowStart;
  EXPECT_EQ(flows, 1u);
}

TEST(TraceFilterTest, RegionPatternKeepsWhatHappensInside) {
  ProfileBuilder b = ThreeLaunches();
  TraceOptions o;
  o.regions = "^eval$";
  const Seen seen = Export(b.profile(), o);
  EXPECT_EQ(seen.Names("kernel", TracePhase::kComplete).size(), 1u);
  EXPECT_EQ(seen.Names("user_annotation", TracePhase::kComplete), std::vector<std::string>{"eval"});
}

TEST(TraceFilterTest, AggregatesRunsOfTinyKernelsPerStream) {
  ProfileBuilder b;
  b.Kernel("tiny", 1000, 1010, 7);
  b.Kernel("tiny", 1020, 1030, 8);  // another stream: its own run
  b.Kernel("tiny", 1040, 1050, 7);
  b.Kernel("tiny", 1060, 1070, 7);
  b.Kernel("big", 1100, 5000, 7);  // not tiny: ends the run
  b.Kernel("tiny", 5100, 5110, 7);
  TraceOptions o;
  o.aggregate_below_ns = 100;
  const Seen seen = Export(b.profile(), o);
  std::vector<std::string> got;
  for (const auto& i : seen.items) {
    if (i.category != "kernel") continue;
    got.push_back(i.name + " x" + std::to_string(i.count) + " " + std::to_string(i.start) + "-" +
                  std::to_string(i.end));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"tiny x3 1000-1070", "tiny x1 1020-1030",
                                           "big x1 1100-5000", "tiny x1 5100-5110"}));
}

std::vector<std::string> Warnings(const model::Profile& p, const TraceOptions& options) {
  absl::StatusOr<TraceFilter> filter = TraceFilter::Create(p, options);
  EXPECT_TRUE(filter.ok()) << filter.status();
  return filter.ok() ? filter->warnings() : std::vector<std::string>{};
}

// Filters that leave nothing wrote a trace of metadata without a word. Now one line
// says why (the trace is still written).
TEST(TraceFilterTest, FiltersThatLeaveNothingSayWhy) {
  ProfileBuilder b = ThreeLaunches();  // the run: 1000 to 4900 on the clock
  TraceOptions o;
  EXPECT_TRUE(Warnings(b.profile(), o).empty());
  o.from_ns = 100'000'000'000;  // 100 s
  std::vector<std::string> w = Warnings(b.profile(), o);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "--from=100.000 s starts after the run's end (it lasted 3.900 us from its start): "
            "the trace has no events");
  EXPECT_TRUE(Export(b.profile(), o).items.empty());
  o.from_ns = 3000;  // inside the run: no warning
  EXPECT_TRUE(Warnings(b.profile(), o).empty());
  o = {};
  o.kernels = "nomatch_xyz";
  w = Warnings(b.profile(), o);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "--kernels=nomatch_xyz matches none of the run's 2 kernel names: the trace has no "
            "kernels (copies, sets and the other events stay)");
  o.kernels = "relu";
  EXPECT_TRUE(Warnings(b.profile(), o).empty());
  o.from_ns = 2500;  // relu ran before
  w = Warnings(b.profile(), o);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "--kernels=relu matches no kernel that the window and regions keep: the trace has no "
            "kernels");
  o = {};
  o.regions = "^warmup$";
  w = Warnings(b.profile(), o);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "--regions=^warmup$ matches none of the run's 2 NVTX ranges and scopes: the trace "
            "has no events");
  o.regions = "step";
  EXPECT_TRUE(Warnings(b.profile(), o).empty());
}

TEST(TraceFilterTest, BadOptionsAreRefused) {
  ProfileBuilder b = ThreeLaunches();
  TraceOptions o;
  o.kernels = "(";
  absl::StatusOr<TraceFilter> f = TraceFilter::Create(b.profile(), o);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("--kernels"), std::string::npos);
  o.kernels.clear();
  o.from_ns = 10;
  o.to_ns = 5;
  EXPECT_FALSE(TraceFilter::Create(b.profile(), o).ok());
}

TEST(TraceFilterTest, Durations) {
  EXPECT_EQ(*ParseTraceDuration("1.5ms"), 1'500'000u);
  EXPECT_EQ(*ParseTraceDuration("200us"), 200'000u);
  EXPECT_EQ(*ParseTraceDuration("42ns"), 42u);
  EXPECT_EQ(*ParseTraceDuration("2s"), 2'000'000'000u);
  for (const char* bad : {"", "ms", "5", "-1ms", "3m", "nanms", "1e400s"}) {
    absl::StatusOr<uint64_t> d = ParseTraceDuration(bad);
    EXPECT_FALSE(d.ok()) << bad;
    if (!d.ok()) {
      EXPECT_NE(d.status().message().find("ns, us, ms or s"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace cuscope::report
