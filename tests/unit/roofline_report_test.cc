// The reports of hardware counters: text, CSV, JSON, the roofline SVG and the
// counters in the Chrome trace.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/model/metrics.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/report.h"
#include "lib/report/roofline_svg.h"
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

namespace m = ::cuscope::metrics;
using cuscope::testing::ProfileBuilder;
using ::testing::HasSubstr;
using ::testing::Not;
using Values = std::vector<std::pair<std::string, double>>;

constexpr char kTemplated[] = "void scale<float, (int)2>(float*, int)";
constexpr char kAmpersand[] = "a&b_kernel";

void AddDeviceMetrics(model::Profile& p) {
  const Values peaks = {{m::kSmClock, 1.755e9}, {m::kDramClock, 1.6e9},
                        {m::kL2Clock, 1.755e9}, {m::kL1Clock, 1.755e9},
                        {m::kFfmaPeak, 16896},  {m::kDfmaPeak, 8448},
                        {m::kHfmaPeak, 16896},  {m::kTensorBf16Peak, 1081344},
                        {m::kDramPeak, 2560},   {m::kL2Peak, 5120},
                        {m::kL1Peak, 16896}};
  for (const auto& [name, v] : peaks) {
    model::DeviceMetric d;
    d.metric = p.strings.Intern(name);
    d.value = v;
    p.device_metrics.push_back(d);
  }
}

void AddSet(model::Profile& p, const std::string& name, model::Dim3 grid, model::Dim3 block,
            const Values& values, std::vector<uint32_t> correlations) {
  model::CounterSet s;
  s.name = p.strings.Intern(name);
  s.grid = grid;
  s.block = block;
  s.correlation_ids = std::move(correlations);
  for (const auto& [metric, v] : values) s.values.emplace_back(p.strings.Intern(metric), v);
  p.counters.push_back(std::move(s));
}

// Two kernel signatures with counters (the SAXPY of roofline_test, DRAM-bound, and a
// naive-SGEMM-like L1-bound kernel), each launched twice (one launch measured), plus a
// kernel without counters and a note from the collector.
model::Profile CounterProfile() {
  constexpr double kN = 67108864;
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p);
  p.run.notes.counters_status = "partial: 2 of 3 kernels measured";
  for (uint32_t i = 0; i < 2; ++i) {
    b.Api("cudaLaunchKernel", 1000 + i * 1000000, 1010 + i * 1000000, 10 + i);
    model::KernelRecord& k =
        b.Kernel(kTemplated, 2000 + i * 1000000, 2000 + i * 1000000 + 218453, 7, 10 + i);
    if (i == 0) k.flags |= model::kKernelCountersMeasured;
    model::KernelRecord& g =
        b.Kernel(kAmpersand, 300000 + i * 1000000, 300000 + i * 1000000 + 500000, 7, 20 + i);
    g.grid = {64, 64, 1};
    g.block = {32, 32, 1};
    if (i == 0) g.flags |= model::kKernelCountersMeasured;
  }
  b.Kernel("no_counters", 900000, 901000, 7, 30);
  AddSet(p, kTemplated, {128, 1, 1}, {256, 1, 1},
         {{m::kDuration, 218453},
          {m::kFfma, kN},
          {m::kDramBytes, 12 * kN},
          {m::kL2Bytes, 12 * kN},
          {m::kL1Bytes, 12 * kN}},
         {10});
  AddSet(p, kAmpersand, {64, 64, 1}, {32, 32, 1},
         {{m::kDuration, 3.6e6},
          {m::kFfma, 8589934592.0},
          {m::kDramBytes, 44236800},
          {m::kL2Bytes, 1.2e10},
          {m::kL1Bytes, 4e10},
          {m::kL1WavefrontsPct, 97}},
         {20});
  return b.Take();
}

// Unwrapped (width 0), so that the checks below see whole lines; the width itself is
// tested by tests/golden/width.sh.
std::string Text(const ReportData& d) {
  std::ostringstream out;
  ReportOptions options;
  options.width = 0;
  WriteText(d, options, out);
  return out.str();
}
std::string Csv(const ReportData& d) {
  std::ostringstream out;
  WriteCsv(d, ReportOptions(), out);
  return out.str();
}
std::string Json(const ReportData& d) {
  std::ostringstream out;
  WriteJson(d, ReportOptions(), out);
  return out.str();
}

using testing_util::ReadFile;

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + 1)) ++n;
  return n;
}

TEST(RooflineReportTest, TextHasCeilingsTableVerdictsAndNotes) {
  const model::Profile p = CounterProfile();
  const ReportData d = BuildReport(p);
  ASSERT_EQ(d.counters.size(), 2u);
  const std::string text = Text(d);
  EXPECT_THAT(text, HasSubstr("Hardware counters\n"));
  EXPECT_THAT(text,
              HasSubstr("Ceilings GPU 0: FP32 59.3 TFLOP/s, FP64 29.7 TFLOP/s, "
                        "FP16 118.6 TFLOP/s, FP16 tensor 948.9 TFLOP/s, BF16 tensor 948.9 TFLOP/s, "
                        "TF32 tensor 474.4 TFLOP/s, INT8 tensor 1.9 PFLOP/s, DRAM 4.1 TB/s, "
                        "L2 9.0 TB/s, L1 29.7 TB/s (SM clock 1.755 GHz)"));
  EXPECT_THAT(text, HasSubstr("Kernel counters\n"));
  EXPECT_THAT(text, HasSubstr("DRAM-bound"));
  EXPECT_THAT(text, HasSubstr("L1-bound"));
  EXPECT_THAT(
      text,
      HasSubstr("DRAM at 90% of peak, FP32 at 1%: DRAM-bound; AI 0.17 FLOP/B (DRAM), ridge 14"));
  EXPECT_THAT(text, HasSubstr("1/2"));  // launches measured / launches
  EXPECT_THAT(text, HasSubstr("rotate"));
  EXPECT_THAT(text, HasSubstr("Counter notes:\n    status: partial: 2 of 3 kernels measured"));
}

// A profile of a few speed-of-light metrics (SM %, memory % and the tensor pipe, as
// tests/data/real/h100-gemm-tensor-metrics.sqlite measured: GEMMs of
// bench/device/gemm_precisions.py 4096,8192 on an H100 80GB HBM3, 2026-12-06): the units
// it did not measure are left out of the SOL line and null in JSON, not 0.
TEST(RooflineReportTest, SolShowsOnlyTheUnitsMeasured) {
  absl::StatusOr<model::Profile> p = store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) +
                                                        "/real/h100-gemm-tensor-metrics.sqlite");
  ASSERT_TRUE(p.ok()) << p.status();
  const ReportData d = BuildReport(*p);
  const std::string text = Text(d);
  // The FP64 GEMM at 8192 (ncu on the same GPU: SM 97.6%, memory 56.3-56.4%).
  EXPECT_THAT(text, HasSubstr("SOL: SM 97.5%, memory 54.9%, tensor pipe 97.5%; highest SM"));
  EXPECT_THAT(text, Not(HasSubstr("DRAM 0.0%")));
  EXPECT_THAT(text, Not(HasSubstr("FMA pipe 0.0%")));
  rapidjson::Document doc;
  doc.Parse(Json(d).c_str());
  ASSERT_FALSE(doc.HasParseError());
  const rapidjson::Value& rows = doc["kernel_counters"]["rows"];
  ASSERT_GT(rows.Size(), 0u);
  const rapidjson::Value& sol = rows[0]["sol"];
  EXPECT_TRUE(sol["sm_pct"].IsNumber());
  EXPECT_TRUE(sol["tensor_pipe_pct"].IsNumber());
  EXPECT_TRUE(sol["dram_pct"].IsNull());
  EXPECT_TRUE(sol["issue_pct"].IsNull());
  // No SM clock in this profile: no FLOP/s roof, but the per-cycle peaks the text shows.
  const rapidjson::Value& c = doc["ceilings"][0];
  EXPECT_EQ(c["peak_tensor_fp64_flops"].GetDouble(), 0);
  EXPECT_EQ(c["peak_tensor_fp64_flops_per_cycle"].GetDouble(), 33792);
}

TEST(RooflineReportTest, RegionRowsSayInstancesAndRegion) {
  model::Profile p = CounterProfile();
  AddSet(p, "step/forward", {0, 0, 0}, {0, 0, 0},
         {{m::kDuration, 2e6}, {m::kFfma, 5e9}, {m::kDramBytes, 1e9}}, {});
  p.counters.back().strategy = model::CounterStrategy::kUserRange;
  p.counters.back().passes = 3;
  const std::string text = Text(BuildReport(p));
  EXPECT_THAT(text, HasSubstr("[region] step/forward"));
  EXPECT_THAT(text, HasSubstr("3 inst"));
  EXPECT_THAT(text, HasSubstr("[region]: a region measured as a whole"));
  EXPECT_THAT(Text(BuildReport(CounterProfile())), Not(HasSubstr("[region]")));
  rapidjson::Document doc;
  const std::string json = Json(BuildReport(p));
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  bool found = false;
  for (const auto& row : doc["kernel_counters"]["rows"].GetArray()) {
    if (std::string(row["name"].GetString()) != "step/forward") {
      EXPECT_FALSE(row.HasMember("region_kernel_ns"));
      continue;
    }
    found = true;
    EXPECT_TRUE(row["region"].GetBool());
    EXPECT_TRUE(row["region_kernel_ns"].IsNull());  // no region instances in this profile
  }
  EXPECT_TRUE(found);
}

TEST(RooflineReportTest, NothingAboutCountersWithoutThem) {
  ProfileBuilder b;
  b.Kernel("k", 1000, 2000);
  const model::Profile p = b.Take();
  const ReportData d = BuildReport(p);
  EXPECT_TRUE(d.ceilings.empty());
  EXPECT_TRUE(d.counters.empty());
  EXPECT_THAT(Text(d), Not(HasSubstr("Hardware counters")));
  EXPECT_THAT(Csv(d), Not(HasSubstr("# kernel_counters")));
  EXPECT_THAT(Json(d), Not(HasSubstr("kernel_counters")));
}

TEST(RooflineReportTest, NotesAloneAreReported) {
  ProfileBuilder b;
  b.profile().run.notes.counters_status = "not permitted: ERR_NVGPUCTRPERM";
  const model::Profile p = b.Take();
  const ReportData d = BuildReport(p);
  EXPECT_THAT(Text(d), HasSubstr("status: not permitted: ERR_NVGPUCTRPERM"));
  EXPECT_THAT(Csv(d),
              HasSubstr("# counter_notes\nnote\nstatus: not permitted: ERR_NVGPUCTRPERM\n"));
}

TEST(RooflineReportTest, JsonHasCeilingsAndCountersTable) {
  const model::Profile p = CounterProfile();
  const std::string json = Json(BuildReport(p));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  ASSERT_TRUE(doc.HasMember("ceilings"));
  ASSERT_EQ(doc["ceilings"].Size(), 1u);
  EXPECT_DOUBLE_EQ(doc["ceilings"][0]["peak_fp32_flops"].GetDouble(), 5.930496e13);
  EXPECT_DOUBLE_EQ(doc["ceilings"][0]["peak_dram_bytes_per_s"].GetDouble(), 4.096e12);
  ASSERT_TRUE(doc.HasMember("kernel_counters"));
  const auto& table = doc["kernel_counters"];
  EXPECT_EQ(table["total_rows"].GetUint64(), 2u);
  ASSERT_EQ(table["rows"].Size(), 2u);
  // Ranked by kernel time: the SGEMM-like kernel (2 x 500 us) first.
  const auto& sgemm = table["rows"][0];
  EXPECT_STREQ(sgemm["name"].GetString(), kAmpersand);
  EXPECT_STREQ(sgemm["verdict"].GetString(), "L1-bound");
  EXPECT_DOUBLE_EQ(sgemm["flops"]["fp32"].GetDouble(), 17179869184.0);
  EXPECT_DOUBLE_EQ(sgemm["pct_of_peak"]["l1"].GetDouble(), 97);
  const auto& saxpy = table["rows"][1];
  EXPECT_STREQ(saxpy["name"].GetString(), kTemplated);
  EXPECT_STREQ(saxpy["verdict"].GetString(), "DRAM-bound");
  EXPECT_THAT(saxpy["reason"].GetString(), HasSubstr("DRAM at 90% of peak"));
  EXPECT_EQ(saxpy["launches"].GetUint64(), 2u);
  EXPECT_EQ(saxpy["measured_launches"].GetUint64(), 1u);
  EXPECT_STREQ(saxpy["strategies"][0].GetString(), "rotate");
  EXPECT_NEAR(saxpy["arithmetic_intensity"]["dram"].GetDouble(), 1.0 / 6, 1e-12);
  EXPECT_FALSE(saxpy["small_grid"].GetBool());
  EXPECT_DOUBLE_EQ(saxpy["metrics"][m::kDuration].GetDouble(), 218453);
  ASSERT_TRUE(doc.HasMember("counter_notes"));
  EXPECT_STREQ(doc["counter_notes"][0].GetString(), "status: partial: 2 of 3 kernels measured");
}

TEST(RooflineReportTest, JsonInfiniteIntensityIsNull) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p);
  AddSet(p, "cached", {1, 1, 1}, {32, 1, 1},
         {{m::kDuration, 1000}, {m::kFfma, 100}, {m::kDramBytes, 0}}, {});
  const std::string json = Json(BuildReport(p));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  EXPECT_TRUE(doc["kernel_counters"]["rows"][0]["arithmetic_intensity"]["dram"].IsNull());
}

TEST(RooflineReportTest, CsvHasCountersSections) {
  const model::Profile p = CounterProfile();
  const std::string csv = Csv(BuildReport(p));
  EXPECT_THAT(csv, HasSubstr("\n# ceilings\ndevice_id,sm_clock_hz,peak_fp32_flops,"));
  EXPECT_THAT(csv, HasSubstr("\n# kernel_counters\ndevice_id,grid,block,"));
  EXPECT_THAT(csv, HasSubstr(",DRAM-bound,0,\"DRAM at 90% of peak"));
  EXPECT_THAT(csv, HasSubstr(",\"void scale<float, (int)2>(float*, int)\"\n"));
}

// --- SVG ------------------------------------------------------------------------------

// A minimal well-formedness check: every tag closed in order, attribute values
// quoted, no raw '<' or unescaped '&' in text.
::testing::AssertionResult WellFormed(const std::string& svg) {
  std::vector<std::string> stack;
  size_t i = 0;
  while (i < svg.size()) {
    if (svg[i] == '&') {
      const size_t semi = svg.find(';', i);
      const std::string entity = svg.substr(i, semi == std::string::npos ? 6 : semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" &&
          entity != "&apos;") {
        return ::testing::AssertionFailure() << "bad entity at " << i << ": " << entity;
      }
    }
    if (svg[i] != '<') {
      ++i;
      continue;
    }
    // Find the end of the tag, skipping quoted attribute values.
    size_t j = i + 1;
    char quote = 0;
    for (; j < svg.size(); ++j) {
      if (quote) {
        if (svg[j] == quote) quote = 0;
        if (svg[j] == '<') return ::testing::AssertionFailure() << "'<' in attribute at " << j;
      } else if (svg[j] == '"' || svg[j] == '\'') {
        quote = svg[j];
      } else if (svg[j] == '>') {
        break;
      } else if (svg[j] == '<') {
        return ::testing::AssertionFailure() << "raw '<' at " << i;
      }
    }
    if (j >= svg.size()) return ::testing::AssertionFailure() << "unterminated tag at " << i;
    const std::string tag = svg.substr(i + 1, j - i - 1);
    if (tag.empty()) return ::testing::AssertionFailure() << "empty tag at " << i;
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) {
        return ::testing::AssertionFailure()
               << "</" << name << "> closes <" << (stack.empty() ? "" : stack.back()) << ">";
      }
      stack.pop_back();
    } else if (tag.back() != '/' && tag[0] != '?' && tag[0] != '!') {
      stack.push_back(tag.substr(0, tag.find_first_of(" \n\t")));
    }
    i = j + 1;
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> left open";
  return ::testing::AssertionSuccess();
}

TEST(RooflineSvgTest, WellFormedWithOnePointPerSignature) {
  const model::Profile p = CounterProfile();
  const std::string path = ::testing::TempDir() + "/cuscope_roofline_test.svg";
  const absl::Status status = WriteRooflineSvg(p, path);
  ASSERT_TRUE(status.ok()) << status;
  const std::string svg = ReadFile(path);
  std::remove(path.c_str());
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_TRUE(WellFormed(svg));
  EXPECT_EQ(Count(svg, "<circle"), 2u);  // one per signature
  // Labels are escaped: the templated name and the ampersand.
  EXPECT_THAT(svg, HasSubstr("scale&lt;float, (int)2&gt;"));
  EXPECT_THAT(svg, HasSubstr("a&amp;b_kernel"));
  EXPECT_THAT(svg, Not(HasSubstr("scale<float")));
  EXPECT_THAT(svg, Not(HasSubstr("a&b")));
  // Title, axes, roofs and the legend.
  EXPECT_THAT(svg, HasSubstr("GPU 0: NVIDIA H200"));
  EXPECT_THAT(svg, HasSubstr("Arithmetic intensity (FLOP/byte)"));
  EXPECT_THAT(svg, HasSubstr("Performance (FLOP/s)"));
  for (const char* roof :
       {"FP64 29.7 TFLOP/s", "FP32 59.3 TFLOP/s", "FP16 118.6 TFLOP/s",
        "FP16 tensor/BF16 tensor 948.9 TFLOP/s", "DRAM 4.1 TB/s", "L2 9.0 TB/s", "L1 29.7 TB/s"}) {
    EXPECT_THAT(svg, HasSubstr(roof));
  }
  // Decade ticks 1e-2 .. 1e3 FLOP/B and 1e9 .. 1e15 FLOP/s.
  EXPECT_THAT(svg, HasSubstr(">0.01</text>"));
  EXPECT_THAT(svg, HasSubstr(">1000</text>"));
  EXPECT_THAT(svg, HasSubstr(">1 GFLOP/s</text>"));
  EXPECT_THAT(svg, HasSubstr(">1 PFLOP/s</text>"));
  EXPECT_THAT(svg, HasSubstr("DRAM-bound"));
  EXPECT_THAT(svg, HasSubstr("L1-bound"));
}

TEST(RooflineSvgTest, AxesAdaptToTheData) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p);
  // 1e4 FLOP/B and 1e6 FLOP/s: beyond the default ranges.
  AddSet(p, "slow", {1, 1, 1}, {32, 1, 1},
         {{m::kDuration, 1e9}, {m::kFfma, 5e5}, {m::kDramBytes, 100}}, {});
  absl::StatusOr<std::string> svg = RenderRooflineSvg(p);
  ASSERT_TRUE(svg.ok()) << svg.status();
  EXPECT_TRUE(WellFormed(*svg));
  EXPECT_THAT(*svg, HasSubstr(">10000</text>"));
  EXPECT_THAT(*svg, HasSubstr(">1 MFLOP/s</text>"));
  EXPECT_EQ(Count(*svg, "<circle"), 1u);
}

TEST(RooflineSvgTest, NoCountersIsAnError) {
  ProfileBuilder b;
  b.Kernel("k", 1000, 2000);
  const absl::StatusOr<std::string> svg = RenderRooflineSvg(b.profile());
  EXPECT_EQ(svg.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RooflineSvgTest, WithoutCeilingsStillWellFormed) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddSet(p, "k<1>", {1, 1, 1}, {32, 1, 1},
         {{m::kDuration, 1000}, {m::kFfma, 100}, {m::kDramBytes, 100}}, {});
  AddSet(p, "no_flops", {1, 1, 1}, {32, 1, 1}, {{m::kDuration, 1000}}, {});
  absl::StatusOr<std::string> svg = RenderRooflineSvg(p);
  ASSERT_TRUE(svg.ok());
  EXPECT_TRUE(WellFormed(*svg));
  EXPECT_THAT(*svg, HasSubstr("ceilings unknown"));
  EXPECT_THAT(*svg, HasSubstr("k&lt;1&gt;"));
  EXPECT_THAT(*svg, HasSubstr("not plotted: no FLOPs"));
  EXPECT_EQ(Count(*svg, "<circle"), 1u);
}

// --- Chrome trace -----------------------------------------------------------------------

TEST(RooflineTraceTest, KernelArgsCarryCountersAndVerdict) {
  const model::Profile p = CounterProfile();
  const std::string path = ::testing::TempDir() + "/cuscope_roofline_trace.json";
  const absl::Status status = WriteChromeTrace(p, path);
  ASSERT_TRUE(status.ok()) << status;
  const std::string text = ReadFile(path);
  std::remove(path.c_str());
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  ASSERT_FALSE(doc.HasParseError());
  int with_counters = 0, kernels = 0;
  for (const auto& e : doc["traceEvents"].GetArray()) {
    if (!e.HasMember("cat") || std::string(e["cat"].GetString()) != "kernel") continue;
    ++kernels;
    const auto& args = e["args"];
    const uint32_t correlation = args["correlation"].GetUint();
    if (correlation != 10 && correlation != 20) {
      EXPECT_FALSE(args.HasMember("counters")) << correlation;
      EXPECT_FALSE(args.HasMember("verdict")) << correlation;
      continue;
    }
    ++with_counters;
    ASSERT_TRUE(args.HasMember("counters"));
    ASSERT_TRUE(args["counters"].IsObject());
    EXPECT_TRUE(args["counters"].HasMember(m::kDuration));
    EXPECT_TRUE(args["counters"].HasMember(m::kFfma));
    EXPECT_STREQ(args["counter strategy"].GetString(), "rotate");
    if (correlation == 10) {
      EXPECT_DOUBLE_EQ(args["counters"][m::kDuration].GetDouble(), 218453);
      EXPECT_STREQ(args["verdict"].GetString(), "DRAM-bound");
      EXPECT_THAT(args["verdict reason"].GetString(), HasSubstr("DRAM at 90% of peak"));
    } else {
      EXPECT_STREQ(args["verdict"].GetString(), "L1-bound");
    }
  }
  EXPECT_EQ(kernels, 5);
  EXPECT_EQ(with_counters, 2);
}

// Two launch shapes of one kernel whose grids differ above bit 24 (x = 1 and
// x = 2^24 + 1): each launch carries its own signature's verdict.
TEST(RooflineTraceTest, VerdictsOfWideGridsStayApart) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p);
  const uint32_t wide = (1u << 24) + 1;
  for (uint32_t i = 0; i < 2; ++i) {
    b.Api("cudaLaunchKernel", 1000 + i * 100000, 1010 + i * 100000, 10 + i);
    model::KernelRecord& k = b.Kernel("k", 2000 + i * 100000, 52000 + i * 100000, 7, 10 + i);
    k.grid = {i == 0 ? 1u : wide, 1, 1};
  }
  AddSet(p, "k", {1, 1, 1}, {256, 1, 1}, {{m::kDuration, 50000}}, {10});  // unknown verdict
  AddSet(p, "k", {wide, 1, 1}, {256, 1, 1},
         {{m::kDuration, 218453}, {m::kFfma, 67108864}, {m::kDramBytes, 12 * 67108864.0}}, {11});
  const std::string path = ::testing::TempDir() + "/cuscope_wide_grid_trace.json";
  ASSERT_TRUE(WriteChromeTrace(p, path).ok());
  rapidjson::Document doc;
  doc.Parse(ReadFile(path).c_str());
  std::remove(path.c_str());
  ASSERT_FALSE(doc.HasParseError());
  int seen = 0;
  for (const auto& e : doc["traceEvents"].GetArray()) {
    if (!e.HasMember("cat") || std::string(e["cat"].GetString()) != "kernel") continue;
    const auto& args = e["args"];
    const uint32_t correlation = args["correlation"].GetUint();
    ++seen;
    EXPECT_STREQ(args["verdict"].GetString(), correlation == 10 ? "unknown" : "DRAM-bound")
        << correlation;
  }
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace cuscope::report
