// cuscope's own time (lib/model/own_time.h, lib/analysis/own_time.h): what holds the
// program, what is left of it once the program's GPU work is taken out, and how every
// analysis leaves it out: the advisor's first-iteration comparison and idle gaps,
// region and step durations, and the report's one line; traces draw it on a track of
// its own.
#include "lib/analysis/own_time.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/advise.h"
#include "lib/analysis/ranks.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/summary.h"
#include "lib/model/enum_names.h"
#include "lib/report/json.h"
#include "lib/report/perfetto_trace.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "lib/report/trace_own.h"
#include "lib/report/trace_view.h"
#include "lib/store/reader.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope {
namespace {

using analysis::OwnTime;
using analysis::Spans;
using model::Finding;
using model::OwnInterval;
using model::OwnKind;
using ::testing::HasSubstr;

constexpr uint64_t kUs = 1000, kMs = 1000 * 1000;
constexpr uint64_t kT0 = 1'000'000'000;  // the run's start
constexpr uint32_t kThread = 100;        // the builder's API calls' thread

void SetRun(testing::ProfileBuilder& b, uint64_t length) {
  b.profile().run.start_ns = kT0;
  b.profile().run.end_ns = kT0 + length;
}

OwnInterval Own(OwnKind kind, uint64_t start, uint64_t end, uint32_t thread = kThread) {
  OwnInterval o;
  o.kind = kind;
  o.start_ns = start;
  o.end_ns = end;
  o.thread_id = thread;
  o.device_id = 0;
  return o;
}

std::optional<Finding> Find(const std::vector<Finding>& f, const std::string& rule) {
  for (const Finding& x : f) {
    if (x.rule == rule) return x;
  }
  return std::nullopt;
}

TEST(Spans, MergeAndSubtract) {
  EXPECT_EQ(analysis::MergeSpans({{5, 9}, {1, 3}, {2, 4}, {9, 10}, {7, 7}}),
            (Spans{{1, 4}, {5, 10}}));
  EXPECT_EQ(analysis::SubtractSpans({{0, 10}, {20, 30}}, {{2, 3}, {8, 22}, {25, 26}, {40, 50}}),
            (Spans{{0, 2}, {3, 8}, {22, 25}, {26, 30}}));
  EXPECT_EQ(analysis::SubtractSpans({{0, 10}}, {{0, 10}}), Spans{});
}

// A kernel replay holds the launching thread; the kernel's own run inside is the
// program's. A flush or a decode on cuscope's own thread holds nothing; on a thread of
// the program it does.
TEST(OwnTime, WhatHoldsTheProgramLessItsGpuWork) {
  testing::ProfileBuilder b;
  SetRun(b, 100 * kMs);
  b.Api("cudaLaunchKernel", kT0 + 1 * kMs, kT0 + 31 * kMs, 7);
  b.Kernel("k", kT0 + 30 * kMs, kT0 + 31 * kMs, 7, 7);
  b.profile().own_time.push_back(Own(OwnKind::kKernelReplay, kT0 + 1 * kMs, kT0 + 31 * kMs));
  b.profile().own_time.push_back(Own(OwnKind::kFlush, kT0 + 40 * kMs, kT0 + 45 * kMs, 999));
  b.profile().own_time.push_back(Own(OwnKind::kPmDecode, kT0 + 50 * kMs, kT0 + 52 * kMs, 999));
  b.profile().own_time.push_back(Own(OwnKind::kFlush, kT0 + 60 * kMs, kT0 + 63 * kMs));
  const OwnTime own(b.profile());
  EXPECT_EQ(own.held(), (Spans{{kT0 + 1 * kMs, kT0 + 31 * kMs}, {kT0 + 60 * kMs, kT0 + 63 * kMs}}));
  EXPECT_EQ(own.total_ns(), 29 * kMs + 3 * kMs);
  EXPECT_EQ(own.Within(kT0, kT0 + 20 * kMs), 19 * kMs);
  EXPECT_EQ(own.Within(kT0 + 25 * kMs, kT0 + 62 * kMs), 5 * kMs + 2 * kMs);
  EXPECT_EQ(analysis::Summarize(b.profile()).own_ns, 32 * kMs);
}

// The counter sampler's held callbacks and CUPTI's overheads on the program's threads
// are the profiler's too (as the idle-gap rules always took them).
TEST(OwnTime, HeldCallbacksAndCuptiOverheadOnProgramThreads) {
  testing::ProfileBuilder b;
  SetRun(b, 100 * kMs);
  b.Api("cudaLaunchKernel", kT0, kT0 + 1 * kMs, 1);
  auto overhead = [&](const char* kind, uint64_t start, uint64_t end, uint32_t thread) {
    model::OverheadRecord o;
    o.kind = b.profile().strings.Intern(kind);
    o.start_ns = start;
    o.end_ns = end;
    o.thread_id = thread;
    b.profile().overheads.push_back(o);
  };
  overhead(model::kCountersMeasure, kT0 + 10 * kMs, kT0 + 11 * kMs, 0);
  overhead(model::kOverheadBufferRequest, kT0 + 20 * kMs, kT0 + 22 * kMs, kThread);
  overhead(model::kOverheadBufferFlush, kT0 + 30 * kMs, kT0 + 35 * kMs, 555);  // its own thread
  overhead("runtime-triggered module loading", kT0 + 40 * kMs, kT0 + 45 * kMs, kThread);
  EXPECT_EQ(OwnTime(b.profile()).total_ns(), 3 * kMs);
}

// A profile of an earlier version has no own intervals: the launch calls of its
// kernel-replay sets are its replays; a launch an own interval lists is not counted twice.
TEST(OwnIntervals, KernelReplaysOfEarlierProfilesComeFromTheirLaunchCalls) {
  testing::ProfileBuilder b;
  SetRun(b, 100 * kMs);
  b.Api("cudaLaunchKernel", kT0 + 1 * kMs, kT0 + 11 * kMs, 7);
  b.Kernel("k", 0, 0, 7, 7).context_id = 3;
  b.Api("cudaLaunchKernel", kT0 + 20 * kMs, kT0 + 30 * kMs, 8);
  model::CounterSet set;
  set.strategy = model::CounterStrategy::kKernelReplay;
  set.correlation_ids = {7, 8};
  b.profile().counters.push_back(set);
  model::CounterSet rotate = set;
  rotate.strategy = model::CounterStrategy::kRotate;
  rotate.correlation_ids = {9};
  b.profile().counters.push_back(rotate);
  b.Api("cudaLaunchKernel", kT0 + 40 * kMs, kT0 + 41 * kMs, 9);
  OwnInterval listed = Own(OwnKind::kKernelReplay, kT0 + 19 * kMs, kT0 + 31 * kMs);
  listed.first_correlation_id = listed.last_correlation_id = 8;
  listed.launches = 1;
  b.profile().own_time.push_back(listed);

  const std::vector<OwnInterval> intervals = analysis::OwnIntervals(b.profile());
  ASSERT_EQ(intervals.size(), 2u);
  EXPECT_EQ(intervals[0].start_ns, kT0 + 1 * kMs);
  EXPECT_EQ(intervals[0].end_ns, kT0 + 11 * kMs);
  EXPECT_EQ(intervals[0].kind, OwnKind::kKernelReplay);
  EXPECT_EQ(intervals[0].first_correlation_id, 7u);
  EXPECT_EQ(intervals[0].context_id, 3u);
  EXPECT_EQ(intervals[0].thread_id, kThread);
  EXPECT_TRUE(intervals[1] == listed);
  EXPECT_EQ(OwnTime(b.profile()).total_ns(), 10 * kMs + 12 * kMs);
}

// Five steps of 10 ms; in the first, a launch measured by kernel replay holds the
// thread 100 ms. Without its replay the first step is like the others.
model::Profile StepsWithAReplay(bool as_own_interval) {
  testing::ProfileBuilder b;
  SetRun(b, 300 * kMs);
  uint64_t t = kT0 + 1 * kMs;
  for (int i = 0; i < 5; ++i) {
    const uint64_t len = i == 0 ? 110 * kMs : 10 * kMs;
    b.Range("step", t, t + len);
    b.Api("cudaLaunchKernel", t + 1 * kMs, t + 1 * kMs + 10 * kUs, 100 + i);
    b.Kernel("k", t + 2 * kMs, t + 9 * kMs, 7, 100 + i);
    if (i == 0) {
      // The replayed launch: its call holds every pass; its kernel placed at the end.
      b.Api("cudaLaunchKernel", t + 9 * kMs, t + 109 * kMs, 200);
      model::KernelRecord& k = b.Kernel("gemm", t + 108 * kMs, t + 109 * kMs, 7, 200);
      k.flags = model::kKernelCountersMeasured | model::kKernelTimePlaced;
      model::CounterSet set;
      set.strategy = model::CounterStrategy::kKernelReplay;
      set.correlation_ids = {200};
      b.profile().counters.push_back(set);
      if (as_own_interval) {
        OwnInterval o = Own(OwnKind::kKernelReplay, t + 9 * kMs - 50 * kUs, t + 109 * kMs);
        o.first_correlation_id = o.last_correlation_id = 200;
        o.launches = 1;
        b.profile().own_time.push_back(o);
      }
    }
    t += len;
  }
  return b.Take();
}

// cuscope's own time in it: the replay (from 50 us before the call in the own interval,
// from the call in the launch call) less the kernels inside: 99 ms either way.
TEST(OwnTimeAdvice, FirstIterationDoesNotBlameTheFirstStepForKernelReplay) {
  for (bool as_own_interval : {false, true}) {
    const model::Profile p = StepsWithAReplay(as_own_interval);
    EXPECT_EQ(OwnTime(p).total_ns(), 99 * kMs) << as_own_interval;
    const std::vector<Finding> f = analysis::Advise(p, {});
    EXPECT_FALSE(Find(f, "first_iteration").has_value()) << as_own_interval;
    // The idle gaps are the program's 3 ms between steps, none inside the replay.
    const std::optional<Finding> gaps = Find(f, "gpu_idle_gaps");
    ASSERT_TRUE(gaps.has_value());
    EXPECT_EQ(gaps->evidence[1].first, "idle_ns");
    EXPECT_NEAR(gaps->evidence[1].second, 4 * 3.0 * kMs, 1.0) << as_own_interval;
  }
}

// A first step that is slow besides the replay still fires, on the program's time.
TEST(OwnTimeAdvice, FirstIterationWeighsTheProgramsTimeOnly) {
  model::Profile p = StepsWithAReplay(true);
  p.ranges[0].end_ns += 40 * kMs;  // 40 ms of the program's own after the replay
  p.run.end_ns += 40 * kMs;
  const std::optional<Finding> first = Find(analysis::Advise(p, {}), "first_iteration");
  ASSERT_TRUE(first.has_value());
  // The first step: 150 ms, of which cuscope's 99 ms; the others 10 ms.
  EXPECT_NEAR(first->gain_ns, (150.0 - 99.0 - 10.0) * kMs, 1.0);
  EXPECT_THAT(first->summary, HasSubstr("took 51.00 ms besides cuscope's own 99.00 ms, 5.1x"));
  const auto own = std::find_if(first->evidence.begin(), first->evidence.end(),
                                [](const auto& e) { return e.first == "cuscope_own_ns"; });
  ASSERT_NE(own, first->evidence.end());
  EXPECT_NEAR(own->second, 99.0 * kMs, 1.0);
}

// Rotate's windows run the program's launches one at a time with CUPTI's work between
// them, inside the launch calls: the gaps those calls make are cuscope's, not idle gaps
// of the program. Gaps while the program's own host work runs between short calls stay
// the program's.
model::Profile WindowOfLaunches(uint64_t call_ns) {
  testing::ProfileBuilder b;
  SetRun(b, 100 * kMs);
  for (int i = 0; i < 20; ++i) {
    const uint64_t t = kT0 + 10 * kMs + i * 2 * kMs;  // 1 ms kernels, 1 ms apart
    b.Kernel("k", t, t + 1 * kMs, 7, 300 + i);
    b.Api("cudaLaunchKernel", t - call_ns, t, 300 + i);
  }
  return b.profile();
}

TEST(OwnTimeAdvice, GapsInsideCounterWindowsAreNotTheProgramsIdleGaps) {
  model::Profile held = WindowOfLaunches(1 * kMs);  // each call held until the kernel runs
  ASSERT_TRUE(Find(analysis::Advise(held, {}), "gpu_idle_gaps").has_value());
  OwnInterval window = Own(OwnKind::kRotateWindow, kT0 + 10 * kMs - 20 * kUs, kT0 + 50 * kMs);
  window.first_correlation_id = 300;
  window.last_correlation_id = 319;
  window.launches = 20;
  held.own_time.push_back(window);
  EXPECT_FALSE(Find(analysis::Advise(held, {}), "gpu_idle_gaps").has_value());
  // The held calls inside the window (the first one from the window's start) are
  // cuscope's own time; the window's span after its last launch is not.
  EXPECT_EQ(OwnTime(held).total_ns(), 20 * kUs + 19 * kMs);

  model::Profile own_work = WindowOfLaunches(10 * kUs);  // the program's host work between
  own_work.own_time.push_back(window);
  EXPECT_TRUE(Find(analysis::Advise(own_work, {}), "gpu_idle_gaps").has_value());
  EXPECT_EQ(OwnTime(own_work).total_ns(), 20 * 10 * kUs);
}

// A window whose launch calls the profile did not record (a trace without API records)
// counts whole.
TEST(OwnTimeAdvice, AWindowWithoutItsCallsCountsWhole) {
  testing::ProfileBuilder b;
  SetRun(b, 100 * kMs);
  b.Kernel("k", kT0 + 10 * kMs, kT0 + 11 * kMs, 7, 300);
  OwnInterval window = Own(OwnKind::kSweepWindow, kT0 + 9 * kMs, kT0 + 20 * kMs);
  window.first_correlation_id = window.last_correlation_id = 300;
  window.launches = 1;
  b.profile().own_time.push_back(window);
  EXPECT_EQ(OwnTime(b.profile()).total_ns(), 10 * kMs);
}

TEST(OwnTimeRegions, RegionAndStepDurationsLeaveItOut) {
  const model::Profile p = StepsWithAReplay(true);
  const std::vector<analysis::RegionSummaryRow> rows = analysis::SummarizeRegions(p);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].path, "step");
  EXPECT_EQ(rows[0].stats.max_ns, 11 * kMs);
  EXPECT_EQ(rows[0].stats.total_ns, 51 * kMs);
  EXPECT_EQ(rows[0].own_ns, 99 * kMs);
  const analysis::RankComparison ranks = analysis::CompareRanks({{&p, "a"}});
  ASSERT_EQ(ranks.ranks[0].step_ns.size(), 5u);
  EXPECT_EQ(ranks.ranks[0].step_ns[0], 11 * kMs);
  EXPECT_EQ(ranks.ranks[0].step_ns[1], 10 * kMs);
}

TEST(OwnTimeReport, TheReportSaysHowMuchWasCuscopes) {
  const model::Profile p = StepsWithAReplay(true);
  const report::ReportData data = report::BuildReport(p);
  std::ostringstream text, json;
  report::WriteText(data, {}, text);
  EXPECT_THAT(text.str(), HasSubstr("  cuscope's own time: 99.000 ms (33.0% of the run)\n"));
  EXPECT_THAT(text.str(), HasSubstr("Region times leave out cuscope's own time."));
  report::WriteJson(data, {}, json);
  EXPECT_THAT(json.str(), HasSubstr("\"cuscope_own_ns\": 99000000"));
}

// Collects a trace's events (their strings copied).
struct Events : report::TraceSink {
  struct Seen {
    report::TracePhase phase;
    std::string category, name;
    int64_t pid, tid;
    uint64_t start, end;
    std::vector<std::string> args;
  };
  std::vector<Seen> events;
  void Event(const report::TraceEvent& e) override {
    std::vector<std::string> args;
    for (const report::TraceArg& a : e.args) {
      args.push_back(std::string(a.key) + "=" +
                     (a.kind == report::TraceArg::Kind::kString ? std::string(a.s)
                      : a.kind == report::TraceArg::Kind::kInt  ? std::to_string(a.i)
                                                                : std::to_string(a.u)));
    }
    events.push_back({e.phase, e.category, std::string(e.name), e.pid, e.tid, e.start_ns, e.end_ns,
                      std::move(args)});
  }
};

TEST(OwnTimeTrace, DrawnOnATrackOfItsOwn) {
  const model::Profile p = StepsWithAReplay(false);  // derived from the launch call
  const report::TraceView view(p, {});
  Events sink;
  view.Events(sink);
  std::vector<Events::Seen> own, meta;
  for (const Events::Seen& e : sink.events) {
    if (e.pid != report::kTraceOwnPid) continue;
    (e.phase == report::TracePhase::kMetadata ? meta : own).push_back(e);
  }
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].category, "cuscope");
  EXPECT_EQ(own[0].name, "kernel replay");
  EXPECT_EQ(own[0].tid, kThread);
  EXPECT_EQ(own[0].end - own[0].start, 100 * kMs);
  EXPECT_THAT(own[0].args, ::testing::Contains("first correlation=200"));
  ASSERT_GE(meta.size(), 2u);
  EXPECT_EQ(meta[0].category, "process_name");
  EXPECT_EQ(meta[0].args, std::vector<std::string>{"name=cuscope"});
  // A .pftrace has the track and the slice.
  const std::string path = testing_util::TempPath("own_time.pftrace");
  ASSERT_TRUE(report::WritePerfettoTrace(view, path).ok());
  const std::string bytes = testing_util::ReadFile(path);
  EXPECT_NE(bytes.find("cuscope"), std::string::npos);
  EXPECT_NE(bytes.find("kernel replay"), std::string::npos);
  // Without own time, no such process.
  testing::ProfileBuilder b;
  b.Kernel("k", kT0, kT0 + 1 * kMs);
  Events none;
  report::TraceView(b.profile(), {}).Events(none);
  for (const Events::Seen& e : none.events) EXPECT_NE(e.pid, report::kTraceOwnPid);
}

// A shipped kernel-replay profile (written before own intervals existed): its 20
// replays, from their launch calls, are cuscope's, less the kernels placed inside them
// (1.38 s of its 2.91 s).
TEST(OwnTimeRecorded, KernelReplayProfile) {
  auto p = store::LoadProfile(CUSCOPE_TEST_DATA_DIR "/real/h200-gemm-roofline.sqlite");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->own_time.empty());
  const std::vector<OwnInterval> intervals = analysis::OwnIntervals(*p);
  ASSERT_EQ(intervals.size(), 20u);
  uint64_t calls = 0, kernels = 0;
  for (const OwnInterval& o : intervals) {
    EXPECT_EQ(o.kind, OwnKind::kKernelReplay);
    calls += o.duration_ns();
  }
  for (const model::KernelRecord& k : p->kernels) {
    if (k.flags & model::kKernelCountersMeasured) kernels += k.duration_ns();
  }
  // The replays less their kernels, and CUPTI's overhead on the program's thread.
  uint64_t cupti = 0;
  for (const model::OverheadRecord& o : p->overheads) {
    if (model::IsProfilerOverhead(p->str(o.kind))) cupti += o.duration_ns();
  }
  const OwnTime own(*p);
  EXPECT_GE(own.total_ns(), calls - kernels);
  EXPECT_LE(own.total_ns(), calls - kernels + cupti);
  std::ostringstream text;
  report::WriteText(report::BuildReport(*p), {}, text);
  EXPECT_THAT(text.str(), HasSubstr("cuscope's own time: "));
  EXPECT_FALSE(Find(analysis::Advise(*p, {}), "first_iteration").has_value());
}

}  // namespace
}  // namespace cuscope
