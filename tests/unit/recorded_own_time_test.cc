// cuscope's own time kept out of the findings, on recorded GPT-2 training runs (12 steps,
// bench/device/default_cost.py gpt2 12 on one H100 80GB HBM3). The first-iteration and
// idle-gap rules fire on the program's time: what they find with counters is what they
// find in the trace, and the report names cuscope's own time.
//
// The recordings (tests/data/real; the commit is not in a profile's meta, it is the one
// the session's log, docs/validation.md, names for those runs):
// - h100-gpt2-trace.sqlite (t) and h100-gpt2-default-119be04.sqlite (d, the sweep's
//   verdict set, no further samples): one call of default_cost.py at commit 119be04,
//   2026-12-06 11:40:28 and 11:40:41 UTC (pids 696 and 748, both written to
//   /root/out/g/). That default is kept, under this name, because it is the one default
//   recorded in the same call as the shipped trace: the first step and its idle gaps
//   vary by more than 10% from one call to the next (the trace of 6ac3c2e's call, not
//   shipped, has a first step of 444.0 ms against this trace's 378.9 ms), so a default
//   is held to the trace of its own call.
// - h100-gpt2-kernel-replay.sqlite (vk): 119be04, another call (11:42:13, /tmp/x/g/).
// - h100-gpt2-default.sqlite: the default of commit 6ac3c2e (a verdict per launch size,
//   further samples), 2026-12-06 16:34:41, in a call whose trace is not shipped. It does
//   not meet the comparison against another call's trace: RecordedOwnTimeGap keeps it.
// - h100-gpt2-trace-36b07cc.sqlite and h100-gpt2-default-36b07cc.sqlite: the trace and
//   the default (no flags) of one call at commit 36b07cc, the second of two paired rounds
//   (`DEFAULT_COST_ROUNDS=2 default_cost.py gpt2 12 u,t,d`, 2026-12-06 18:43 UTC): the
//   second default recorded beside its own call's trace that RecordedOwnTimeGap asked
//   for.
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/advise.h"
#include "lib/analysis/own_time.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "lib/store/reader.h"

namespace cuscope {
namespace {

using ::testing::HasSubstr;

model::Profile Load(const std::string& name) {
  auto p = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/real/" + name);
  EXPECT_TRUE(p.ok()) << name << ": " << p.status();
  return p.ok() ? *std::move(p) : model::Profile{};
}

std::optional<double> Evidence(const std::vector<model::Finding>& findings, const std::string& rule,
                               const std::string& key) {
  for (const model::Finding& f : findings) {
    if (f.rule != rule) continue;
    for (const auto& [k, v] : f.evidence) {
      if (k == key) return v;
    }
  }
  return std::nullopt;
}

struct Recorded {
  std::string file;
  std::string trace;     // the trace it is held to
  double own_share_min;  // of the run, at least
};

class RecordedOwnTime : public ::testing::TestWithParam<Recorded> {};

TEST_P(RecordedOwnTime, FindingsWeighTheProgramsTimeAsTheTraceDoes) {
  const model::Profile trace = Load(GetParam().trace);
  const model::Profile counters = Load(GetParam().file);
  const std::vector<model::Finding> plain = analysis::Advise(trace, {});
  const std::vector<model::Finding> measured = analysis::Advise(counters, {});

  // The first step as the program spent it: within 10% of the trace's first step,
  // though cuscope held the program for longer than that step inside it.
  const std::optional<double> first = Evidence(measured, "first_iteration", "first_ns");
  const std::optional<double> first_plain = Evidence(plain, "first_iteration", "first_ns");
  ASSERT_TRUE(first.has_value() && first_plain.has_value());
  EXPECT_NEAR(*first, *first_plain, 0.1 * *first_plain);
  const std::optional<double> own = Evidence(measured, "first_iteration", "cuscope_own_ns");
  ASSERT_TRUE(own.has_value());
  EXPECT_GT(*own, *first_plain);

  // Idle gaps: none that cuscope's windows or replays made. Either the rule stays silent
  // or it finds the trace's gaps (within 10%).
  const std::optional<double> idle = Evidence(measured, "gpu_idle_gaps", "idle_ns");
  const std::optional<double> idle_plain = Evidence(plain, "gpu_idle_gaps", "idle_ns");
  ASSERT_TRUE(idle_plain.has_value());
  if (idle.has_value()) {
    EXPECT_NEAR(*idle, *idle_plain, 0.1 * *idle_plain);
  }

  std::ostringstream text;
  report::WriteText(report::BuildReport(counters), {}, text);
  EXPECT_THAT(text.str(), HasSubstr("cuscope's own time: "));
  const analysis::OwnTime own_time(counters);
  const uint64_t wall = counters.run.end_ns - counters.run.start_ns;
  EXPECT_GE(static_cast<double>(own_time.total_ns()), GetParam().own_share_min * wall);
}

// The default of 119be04 (first step 386.3 ms of the program's time, 444.7 ms of
// cuscope's taken out, against the trace's 378.9 ms), kernel replay, and the default of
// 36b07cc (480.5 ms of the program's time, 510.5 ms of cuscope's taken out, against its
// own call's trace: 451.9 ms), each against the trace recorded nearest it.
// Each case's name in the test's name.
std::string CaseName(const ::testing::TestParamInfo<Recorded>& info) {
  if (info.index == 0) return "Default119be04";
  return info.index == 1 ? "KernelReplay" : "Default36b07cc";
}

INSTANTIATE_TEST_SUITE_P(
    Gpt2, RecordedOwnTime,
    ::testing::Values(Recorded{"h100-gpt2-default-119be04.sqlite", "h100-gpt2-trace.sqlite", 0.2},
                      Recorded{"h100-gpt2-kernel-replay.sqlite", "h100-gpt2-trace.sqlite", 0.5},
                      Recorded{"h100-gpt2-default-36b07cc.sqlite", "h100-gpt2-trace-36b07cc.sqlite",
                               0.2}),
    CaseName);

// The default of commit 6ac3c2e (h100-gpt2-default.sqlite) against the shipped trace: a
// guard on the gap that is left, not a pass. Issue #33's target: no finding blames
// cuscope's own work; first_iteration and gpu_idle_gaps fire on the program's time with
// cuscope's time removed, within 10% of the trace (first step <= 416.8 ms here, idle
// gaps <= 21.6 ms; against its own call's trace, 444.0 ms and 24.1 ms, not shipped).
// When it gets there, this profile joins RecordedOwnTime above and this guard goes.
//
// What holds today: the first step (1114.6 ms of wall) has 533.0 ms of cuscope's time
// taken out (the launch calls of the four sweep windows inside it, the counters'
// measure and decode records) and reads 581.6 ms of the program's time; the idle gaps
// read 35.6 ms. The bounds below are a little above that: the gap may close, not grow.
//
// Where the rest goes (sqlite3 on this recording against its own call's trace, calls
// matched by their order; the 119be04 pair, one call, for contrast): not cuscope's
// accounting of its windows. The windows' kernels took the same GPU time as in the
// trace (0.93, 13.25, 0.52, 1.11 ms against 0.93, 13.30, 0.52, 1.12 ms); no
// synchronizing call or copy waited longer (none inside windows 1 to 3; the
// cudaDeviceSynchronize after window 4 6.03 ms against 6.60 ms); the launch calls' time
// after each window's Stop (5.3, 5.0, 4.2, 1.5 ms; 1.6, 1.9, 1.1, 0.2 ms at 119be04) is
// all under the counters' decode records and taken out. The program's own host work
// was slower in that process from its start: the main thread's time between CUDA calls
// 1.64x the trace's before cuscope's counters were set up (25.9 ms against 15.8 ms),
// 1.47x inside window 1 (217.6 against 147.7 ms), cuLibraryLoadData 1.43x inside window
// 1 (139.2 against 97.5 ms), against 0.98x in the steps after the windows; at 119be04
// the same parts were 1.00x, 1.04x and 1.04x. Of the first step's 137.6 ms over its own
// call's trace, 101.4 ms is that host time between the main thread's calls (69.5 ms in
// window 1, 22.6 ms in the one gap that spans the backward pass on the other thread,
// whose window 2 left 26.6 ms more of its span to the program than the trace took)
// and 35.8 ms is inside its calls (module loading +50.2 ms, allocations +2.6 ms, launch
// calls -17.9 ms: taken out).
// One recording could not tell whether that slower host work is this machine's variance
// between processes (the two traces' first steps differ by 17%) or a cost of cuscope's
// outside the calls and records it times. The default of 36b07cc, recorded beside its
// own call's trace, tells it (RecordedOwnTime.Default36b07cc): 480.5 ms of the program's
// time against 451.9 ms, within 10%. This recording stays guarded as it is.
TEST(RecordedOwnTimeGap, Default6ac3c2eFirstStepAndIdleGaps) {
  const model::Profile trace = Load("h100-gpt2-trace.sqlite");
  const model::Profile counters = Load("h100-gpt2-default.sqlite");
  const std::vector<model::Finding> plain = analysis::Advise(trace, {});
  const std::vector<model::Finding> measured = analysis::Advise(counters, {});

  // The first 'step' and cuscope's time inside it, as first_iteration takes it out.
  const model::RangeRecord* first_step = nullptr;
  for (const model::RangeRecord& r : counters.ranges) {
    if (counters.str(r.name) == "step" &&
        (first_step == nullptr || r.start_ns < first_step->start_ns)) {
      first_step = &r;
    }
  }
  ASSERT_NE(first_step, nullptr);
  const analysis::OwnTime own_time(counters);
  const double own_ns =
      static_cast<double>(own_time.Within(first_step->start_ns, first_step->end_ns));
  const double program_ns = static_cast<double>(first_step->duration_ns()) - own_ns;

  const std::optional<double> first = Evidence(measured, "first_iteration", "first_ns");
  const std::optional<double> own = Evidence(measured, "first_iteration", "cuscope_own_ns");
  const std::optional<double> first_plain = Evidence(plain, "first_iteration", "first_ns");
  const std::optional<double> idle = Evidence(measured, "gpu_idle_gaps", "idle_ns");
  const std::optional<double> idle_plain = Evidence(plain, "gpu_idle_gaps", "idle_ns");
  ASSERT_TRUE(first.has_value() && own.has_value() && first_plain.has_value());
  ASSERT_TRUE(idle.has_value() && idle_plain.has_value());
  std::fprintf(stderr,
               "6ac3c2e default, first step: wall %.1f ms, cuscope's %.1f ms taken out, program "
               "%.1f ms (trace %.1f ms, x%.2f); idle gaps %.1f ms (trace %.1f ms)\n",
               first_step->duration_ns() / 1e6, own_ns / 1e6, program_ns / 1e6, *first_plain / 1e6,
               program_ns / *first_plain, *idle / 1e6, *idle_plain / 1e6);

  // The rule takes out what OwnTime holds in that step, and fires on that step.
  EXPECT_DOUBLE_EQ(*first, program_ns);
  EXPECT_DOUBLE_EQ(*own, own_ns);
  // Today: 533.0 ms taken out, 581.6 ms left (1.53x the trace's 378.9 ms), idle 35.6 ms.
  EXPECT_GE(own_ns, 520e6);
  EXPECT_LE(program_ns, 600e6);
  EXPECT_LE(*idle, 37.5e6);
  // What the gap is not: cuscope's time taken out is more than the trace's whole first
  // step, and the program's first step is still longer than the trace's.
  EXPECT_GT(own_ns, *first_plain);
  EXPECT_GT(program_ns, *first_plain);
}

}  // namespace
}  // namespace cuscope
