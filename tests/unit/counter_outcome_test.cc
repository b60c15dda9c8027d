// The line every report opens with when counters were asked for: what was asked, how
// many signatures were measured of how many, and why not all (lib/analysis/
// counter_outcome.h, lib/report/counter_outcome_text.h), on the shipped profiles and
// on synthetic ones.
#include "lib/analysis/counter_outcome.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/counter_outcome_text.h"
#include "lib/report/html_report.h"
#include "lib/report/json.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "lib/store/reader.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kReal = std::string(CUSCOPE_TEST_DATA_DIR) + "/real/";

model::Profile Load(const std::string& name) {
  auto p = store::LoadProfile(kReal + name);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? std::move(*p) : model::Profile{};
}

std::string Line(const model::Profile& p) {
  return CounterOutcomeLine(BuildReport(p).counter_outcome);
}

// The text report, lines not wrapped.
std::string Text(const model::Profile& p) {
  std::ostringstream out;
  ReportOptions options;
  options.width = 0;
  WriteText(BuildReport(p), options, out);
  return out.str();
}

// The settings a run of `cuscope run --metrics=roofline --replay=REPLAY` records (those
// the line reads; the others as their defaults).
std::vector<std::pair<std::string, std::string>> Settings(const std::string& replay,
                                                          const std::string& metrics = "roofline") {
  return {{"metrics", metrics},  {"kernels", ""},         {"launch_skip", "0"},
          {"launch_count", "0"}, {"per_signature", "1"},  {"replay", replay},
          {"regions", ""},       {"region_counters", "0"}};
}

TEST(CounterOutcome, RotateProfileWithoutSettingsSaysWhatCanBeKnown) {
  // Recorded before profiles stored their settings: the strategy is in the notes, the
  // metrics asked are not. Every signature of its last three steps was measured.
  const model::Profile p = Load("h200-gpt2-rotate-roofline.sqlite");
  EXPECT_EQ(Line(p), "counters: by rotate (settings not recorded); measured 96 of 96 signatures");
  EXPECT_THAT(Text(p), StartsWith("cuscope report\n  counters: by rotate (settings not recorded); "
                                  "measured 96 of 96 signatures\n  Command"));
}

TEST(CounterOutcome, KernelReplayProfileWithoutSettings) {
  EXPECT_EQ(Line(Load("h200-gemm-roofline.sqlite")),
            "counters: by kernel replay (settings not recorded); measured 20 of 20 signatures");
}

TEST(CounterOutcome, TraceWithoutCountersHasNoLine) {
  const model::Profile p = Load("h200-gpt2-step-trace.sqlite");
  EXPECT_EQ(Line(p), "");
  EXPECT_THAT(Text(p), StartsWith("cuscope report\n  Command"));
}

// The GPT-2 trace (4 steps, 101 kernel signatures) as a rotate run of the roofline set
// (7 passes) that measured nothing would record it: a loop too short for a set.
model::Profile RotateMeasuredNothing() {
  model::Profile p = Load("h200-gpt2-step-trace.sqlite");
  p.run.notes.settings = Settings("rotate");
  p.run.notes.counters_strategy = "rotate";
  p.run.notes.counters_passes = 7;
  p.run.notes.counters_samples_complete = 0;
  p.run.notes.counters_samples_dropped = 0;
  return p;
}

TEST(CounterOutcome, RotateOnALoopTooShortSaysWhy) {
  const model::Profile p = RotateMeasuredNothing();
  const std::string expected =
      "counters: asked roofline by rotate; measured 0 of 101 signatures: the loop ended before "
      "rotate could complete a set (4 steps; rotate needs >= 14 for 7 passes); 1 ran only "
      "before the first step (rotate measures the loop)";
  EXPECT_EQ(Line(p), expected);
  const std::string text = Text(p);
  EXPECT_THAT(text, StartsWith("cuscope report\n  " + expected + "\n  Command"));
  std::ostringstream json;
  WriteJson(BuildReport(p), ReportOptions{}, json);
  EXPECT_THAT(json.str(), HasSubstr("\"counters_outcome\": {\n    \"line\": \"" + expected + "\""));
  EXPECT_THAT(json.str(), HasSubstr("\"signatures_measured\": 0,\n    \"signatures\": 101,\n"
                                    "    \"steps\": 4,"));
}

TEST(CounterOutcome, HtmlSaysWhatHappenedNotHowToAsk) {
  const std::string html = RenderHtmlReport(BuildReport(RotateMeasuredNothing()));
  EXPECT_THAT(html, Not(HasSubstr("run --metrics=roofline measures them")));
  EXPECT_THAT(html, HasSubstr("<p class=\"outcome\">counters: asked roofline by rotate; measured "
                              "0 of 101 signatures: the loop ended before rotate could complete"));
  EXPECT_THAT(html, HasSubstr("No roofline: the profile has no hardware counters. counters: "
                              "asked roofline by rotate"));
  // Not asked: the hint stays.
  const std::string trace = RenderHtmlReport(BuildReport(Load("h200-gpt2-step-trace.sqlite")));
  EXPECT_THAT(trace, HasSubstr("(cuscope run --metrics=roofline measures them)"));
  EXPECT_THAT(trace, Not(HasSubstr("class=\"outcome\"")));
}

TEST(CounterOutcome, StatusSaysWhyNothingWasMeasured) {
  testing::ProfileBuilder b;
  b.Kernel("gemm", 1000, 2000);
  model::Profile p = b.Take();
  p.run.notes.settings = Settings("auto");
  p.run.notes.counters_status =
      "not permitted: ERR_NVGPUCTRPERM (GPU performance counters need admin rights)";
  EXPECT_EQ(Line(p),
            "counters: asked roofline by auto; measured 0 of 1 signature: not permitted: "
            "ERR_NVGPUCTRPERM (GPU performance counters need admin rights)");
}

TEST(CounterOutcome, AutoNamesTheStrategyItChose) {
  testing::ProfileBuilder b;
  b.Kernel("gemm", 1000, 2000);
  b.Kernel("copy", 3000, 4000);
  model::Profile p = b.Take();
  p.run.notes.settings = Settings("auto", "roofline,stalls");
  p.run.notes.settings[1].second = "gemm";  // kernels=gemm
  p.run.notes.counters_strategy = "kernel replay";
  model::CounterSet set;
  set.name = p.strings.Intern("gemm");
  set.grid = {128, 1, 1};
  set.block = {256, 1, 1};
  set.strategy = model::CounterStrategy::kKernelReplay;
  p.counters.push_back(set);
  EXPECT_EQ(Line(p),
            "counters: asked roofline,stalls by auto (kernel replay); measured 1 of 2 signatures: "
            "kernels='gemm' leaves the others out");
}

TEST(CounterOutcome, NotAskedNoLine) {
  testing::ProfileBuilder b;
  b.Kernel("gemm", 1000, 2000);
  model::Profile p = b.Take();
  p.run.notes.settings = Settings("auto", "");
  EXPECT_EQ(Line(p), "");
}

TEST(CounterOutcome, UnexplainedShortfallSaysSo) {
  testing::ProfileBuilder b;
  b.Kernel("gemm", 1000, 2000);
  model::Profile p = b.Take();
  p.run.notes.settings = Settings("kernel");
  p.run.notes.counters_strategy = "kernel replay";
  EXPECT_EQ(Line(p),
            "counters: asked roofline by kernel replay; measured 0 of 1 signature: 1 not measured; "
            "the notes do not say why");
}

TEST(CounterOutcome, KernelsOnlyInsideGraphsAreNamed) {
  testing::ProfileBuilder b;
  b.Kernel("direct", 1000, 2000);
  b.Kernel("graphed", 3000, 4000).graph_id = 2;
  b.Kernel("graphed", 5000, 6000).graph_id = 2;
  b.Kernel("both", 7000, 8000).graph_id = 2;
  b.Kernel("both", 9000, 10000);
  model::Profile p = b.Take();
  p.run.notes.settings = Settings("kernel");
  p.run.notes.counters_strategy = "kernel replay";
  const std::string line = Line(p);
  EXPECT_THAT(line, HasSubstr("measured 0 of 3 signatures"));
  EXPECT_THAT(line, HasSubstr("1 ran only inside CUDA graphs"));
  EXPECT_THAT(line, HasSubstr("--gpu-metrics=1"));
  EXPECT_THAT(line, Not(HasSubstr("do not say why")));
}

TEST(RotateStepsNeeded, TwoPeriodsOrTheSetThenOnePerPass) {
  EXPECT_EQ(analysis::RotateStepsNeeded(7, true), 14u);
  EXPECT_EQ(analysis::RotateStepsNeeded(7, false), 9u);
  EXPECT_EQ(analysis::RotateStepsNeeded(1, true), 3u);
}

}  // namespace
}  // namespace cuscope::report
