// Source hotspots over synthetic PC samples: the stall kinds, the analysis (lines
// ranked, "_not_issued" left out, a function without lines by PC), the store's round
// trip and its checks, the text and JSON reports, the source_stalls advisor rule, and
// the settings that go with `source`.
#include "lib/analysis/source_hotspots.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "lib/analysis/advise.h"
#include "lib/config/from_env.h"
#include "lib/model/pc_samples.h"
#include "lib/report/source_text.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "rapidjson/document.h"

namespace cuscope {
namespace {

using model::StallKind;

constexpr char kLong[] = "smsp__pcsamp_warps_issue_stalled_long_scoreboard";
constexpr char kLongNotIssued[] = "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued";
constexpr char kMath[] = "smsp__pcsamp_warps_issue_stalled_math_pipe_throttle";
constexpr char kWait[] = "smsp__pcsamp_warps_issue_stalled_wait";
constexpr char kSelected[] = "smsp__pcsamp_warps_issue_stalled_selected";

// A kernel with line info (`hot`: a memory line 41, a math line 57) and a library
// kernel without (`gemm`), each launched once.
model::Profile Sampled() {
  model::Profile p;
  p.run.start_ns = 1000;
  p.run.end_ns = 10'000'000;
  auto s = [&](const char* text) { return p.strings.Intern(text); };
  p.devices.push_back({});
  const model::StringId hot = s("_Z3hotPfS_i"), gemm = s("sm90_xmma_gemm_bf16");
  model::KernelRecord k;
  k.start_ns = 2000;
  k.end_ns = 2000 + 4'000'000;
  k.mangled_name = hot;
  k.name = s("hot(float*, float*, int)");
  p.kernels.push_back(k);
  p.sampled_functions = {{1, 0, 0xabc, hot}, {2, 0, 0xdef, gemm}};
  const model::StringId file = s("/home/u/examples/source_hotspots.cu");
  p.pc_lines = {{1, 0x100, file, 41}, {1, 0x110, file, 41}, {1, 0x200, file, 57}};
  p.source_text = {{file, 41, "    acc += in[(i * 33) % n];"}, {file, 57, "  x = fmaf(x, y, z);"}};
  p.pc_samples = {{1, 0x100, s(kLong), 600},          {1, 0x110, s(kLong), 100},
                  {1, 0x100, s(kLongNotIssued), 650}, {1, 0x110, s(kSelected), 20},
                  {1, 0x200, s(kMath), 150},          {1, 0x200, s(kWait), 100},
                  {1, 0x300, s(kLong), 30},  // a PC without a line
                  {2, 0x40, s(kMath), 300},           {2, 0x80, s(kWait), 100}};
  return p;
}

TEST(StallKinds, NamesAndCompanions) {
  EXPECT_EQ(model::StallKindOf(kLong), StallKind::kLongScoreboard);
  EXPECT_EQ(model::StallKindOf(kLongNotIssued), StallKind::kLongScoreboard);
  EXPECT_EQ(model::StallKindOf(kSelected), StallKind::kSelected);
  EXPECT_EQ(model::StallKindOf("smsp__pcsamp_warps_issue_stalled_not_selected"),
            StallKind::kNotSelected);
  EXPECT_EQ(model::StallKindOf("smsp__pcsamp_warps_issue_stalled_no_instructions"),
            StallKind::kNoInstruction);
  EXPECT_EQ(model::StallKindOf("smsp__pcsamp_warps_issue_stalled_gmma"), StallKind::kTensor);
  EXPECT_EQ(model::StallKindOf("something_new"), StallKind::kOther);
  EXPECT_TRUE(model::IsNotIssuedStall(kLongNotIssued));
  EXPECT_FALSE(model::IsNotIssuedStall(kLong));
  EXPECT_STREQ(model::StallWords(StallKind::kLongScoreboard), "waiting on global/local memory");
}

TEST(SourceHotspots, RanksLinesWithTheirStalls) {
  const model::Profile p = Sampled();
  analysis::SourceHotspots h = analysis::FindSourceHotspots(p, {});
  EXPECT_EQ(h.samples, 1400u);  // the _not_issued rows left out
  ASSERT_EQ(h.functions.size(), 2u);
  const analysis::FunctionHotspots& f = h.functions[0];
  EXPECT_EQ(f.name, "hot(float*, float*, int)");
  EXPECT_EQ(f.samples, 1000u);
  EXPECT_TRUE(f.has_lines);
  ASSERT_EQ(f.lines.size(), 3u);
  EXPECT_EQ(f.lines[0].line, 41u);
  EXPECT_EQ(f.lines[0].samples, 720u);
  EXPECT_DOUBLE_EQ(f.lines[0].pct, 72.0);
  EXPECT_EQ(f.lines[0].stalls[0].kind, StallKind::kLongScoreboard);
  EXPECT_EQ(f.lines[0].text, "    acc += in[(i * 33) % n];");
  EXPECT_EQ(f.lines[1].line, 57u);
  EXPECT_EQ(f.lines[1].stalls[0].kind, StallKind::kMathPipeThrottle);
  EXPECT_EQ(f.lines[2].line, 0u);  // the PC without a line, by its offset
  EXPECT_EQ(f.lines[2].pc_offset, 0x300u);
  const analysis::FunctionHotspots& g = h.functions[1];
  EXPECT_FALSE(g.has_lines);
  EXPECT_EQ(g.lines[0].pc_offset, 0x40u);

  analysis::HotspotOptions only;
  only.keep = [](const std::string& name) { return name.find("gemm") != std::string::npos; };
  only.top_lines = 1;
  h = analysis::FindSourceHotspots(p, only);
  ASSERT_EQ(h.functions.size(), 1u);
  EXPECT_EQ(h.functions[0].lines.size(), 1u);
  EXPECT_EQ(h.functions[0].line_count, 2u);
}

TEST(SourceHotspots, TextAndJson) {
  const model::Profile p = Sampled();
  const analysis::SourceHotspots h = analysis::FindSourceHotspots(p, {});
  std::ostringstream text;
  report::WriteSourceText(h, p.run.notes, {}, text);
  EXPECT_NE(text.str().find("72.0%  examples/source_hotspots.cu:41"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("acc += in[(i * 33) % n];"), std::string::npos);
  EXPECT_NE(text.str().find("waiting on global/local memory"), std::string::npos);
  EXPECT_NE(text.str().find("no line info (build with -lineinfo): by PC offset"),
            std::string::npos);
  EXPECT_NE(text.str().find("PC +0x40"), std::string::npos);
  std::ostringstream json;
  report::WriteSourceJson(h, p.run.notes, json);
  rapidjson::Document d;
  d.Parse(json.str().c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["functions"][0]["lines"][0]["line"].GetUint(), 41u);
  EXPECT_STREQ(d["functions"][0]["lines"][0]["stalls"][0]["reason"].GetString(), "long_scoreboard");
  EXPECT_FALSE(d["functions"][1]["has_lines"].GetBool());
}

TEST(SourceHotspots, AdvisorNamesTheLineAndTheStall) {
  const std::vector<model::Finding> findings = analysis::Advise(Sampled(), {});
  const model::Finding* f = nullptr;
  for (const model::Finding& x : findings) {
    if (x.rule == "source_stalls") f = &x;
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kernel, "hot(float*, float*, int)");
  EXPECT_NE(f->summary.find("72% of the samples of this kernel are on line 41"), std::string::npos)
      << f->summary;
  EXPECT_NE(f->summary.find("waiting on global/local memory"), std::string::npos);
  EXPECT_NE(f->advice.find("Coalesce"), std::string::npos);
}

TEST(SourceHotspots, StoreRoundTrip) {
  const std::string path = ::testing::TempDir() + "/pc_round_trip.sqlite";
  model::Profile p = Sampled();
  ASSERT_TRUE(store::SaveProfile(p, path).ok());
  absl::StatusOr<model::Profile> back = store::LoadProfile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->sampled_functions, p.sampled_functions);
  EXPECT_EQ(back->pc_samples, p.pc_samples);
  EXPECT_EQ(back->pc_lines, p.pc_lines);
  EXPECT_EQ(back->source_text, p.source_text);

  p.pc_lines.push_back({7, 0, 0, 1});  // names no function: the file is damaged
  ASSERT_TRUE(store::SaveProfile(p, path).ok());
  back = store::LoadProfile(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("pc_lines row 4: column function_id holds 7"),
            std::string::npos)
      << back.status();
  unlink(path.c_str());
}

absl::StatusOr<config::Config> FromEnv(std::map<std::string, std::string> env) {
  return config::ConfigFromEnv([env](const char* name) -> const char* {
    auto it = env.find(name);
    return it != env.end() ? it->second.c_str() : nullptr;
  });
}

TEST(SourceSettings, DefaultCountersYieldExplicitOnesConflict) {
  absl::StatusOr<config::Config> c = FromEnv({{"CUSCOPE_SOURCE", "1"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->source);
  EXPECT_FALSE(c->counters_enabled());
  EXPECT_EQ(c->source_period, 16);
  EXPECT_FALSE(FromEnv({{"CUSCOPE_SOURCE", "1"}, {"CUSCOPE_METRICS", "roofline"}}).ok());
  EXPECT_FALSE(FromEnv({{"CUSCOPE_SOURCE", "1"}, {"CUSCOPE_GPU_METRICS", "1"}}).ok());
  EXPECT_FALSE(FromEnv({{"CUSCOPE_SOURCE_PERIOD", "4"}}).ok());
  c = FromEnv({{"CUSCOPE_SOURCE", "1"}, {"CUSCOPE_SOURCE_PERIOD", "20"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->source_period, 20);
}

}  // namespace
}  // namespace cuscope
