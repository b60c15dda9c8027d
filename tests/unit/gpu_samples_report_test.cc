// The report's GPU metrics section and JSON object (lib/report/gpu_samples_text.h)
// for a synthetic sampled profile; none for a profile without samples.
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/compare.h"
#include "lib/model/metrics.h"
#include "lib/report/diff.h"
#include "lib/report/gpu_samples_text.h"
#include "lib/report/html_report.h"
#include "lib/report/json.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "rapidjson/document.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

namespace m = ::cuscope::metrics;
using ::testing::HasSubstr;
using ::testing::Not;

model::Profile Sampled() {
  testing::ProfileBuilder b;
  model::Profile p = b.profile();
  model::GpuSampleConfig c;
  c.interval_ns = 10000;
  for (const char* name : {m::kSampledSmCyclesElapsed, m::kSampledSmCyclesActive,
                           m::kSampledTensorPct, m::kSampledDramPct, m::kSampledL2Bytes}) {
    c.metrics.push_back(p.strings.Intern(name));
  }
  p.sample_configs.push_back(c);
  model::KernelRecord k;
  k.name = p.strings.Intern("ampere_bf16_gemm");
  k.start_ns = 1000000;
  k.end_ns = 1100000;
  k.grid = {132, 1, 1};
  k.block = {128, 1, 1};
  p.kernels.push_back(k);
  for (uint64_t t = 990000; t < 1110000; t += 10000) {
    model::GpuSample s;
    s.start_ns = t;
    s.end_ns = t + 10000;
    const bool inside = t >= 1000000 && t + 10000 <= 1100000;
    s.values = {19800, inside ? 19000.0 : 0, inside ? 85.0 : 0, inside ? 20.0 : 0,
                inside ? 1e8 : 0};
    p.samples.push_back(s);
  }
  return p;
}

TEST(GpuSamplesReport, TextNamesTheRatesOfEachKernel) {
  const model::Profile p = Sampled();
  const ReportData data = BuildReport(p);
  std::ostringstream out;
  ReportOptions o;
  WriteText(data, o, out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("GPU metrics (sampled every 10 us of GPU time)"));
  EXPECT_THAT(text, HasSubstr("GPU 0, 12 samples:"));
  EXPECT_THAT(text, HasSubstr("inside kernels (10 samples, 10 of one kernel alone)"));
  EXPECT_THAT(text, HasSubstr("tensor pipe 85%"));
  EXPECT_THAT(text, HasSubstr("L2 10.0 TB/s"));  // 1e8 bytes per 10 us
  EXPECT_THAT(text, HasSubstr("ampere_bf16_gemm"));
  EXPECT_THAT(text, HasSubstr("SM clock 2.0 GHz"));
  EXPECT_THAT(text, HasSubstr("compute-bound"));  // the sampled verdict: tensor 85%, DRAM 20%
}

TEST(GpuSamplesReport, JsonHoldsDevicesAndKernels) {
  const model::Profile p = Sampled();
  std::ostringstream out;
  WriteJson(BuildReport(p), ReportOptions(), out);
  rapidjson::Document d;
  d.Parse(out.str().c_str());
  ASSERT_FALSE(d.HasParseError());
  ASSERT_TRUE(d.HasMember("gpu_metrics"));
  const auto& g = d["gpu_metrics"];
  EXPECT_EQ(g["devices"][0]["interval_ns"].GetUint64(), 10000u);
  EXPECT_EQ(g["devices"][0]["metrics"].Size(), 5u);
  const auto& k = g["kernels"]["rows"][0];
  EXPECT_STREQ(k["name"].GetString(), "ampere_bf16_gemm");
  EXPECT_DOUBLE_EQ(k["coverage_pct"].GetDouble(), 100);
  EXPECT_DOUBLE_EQ(k["tensor_pct"].GetDouble(), 85);
  EXPECT_TRUE(k["issue_pct"].IsNull());  // instructions not sampled
  EXPECT_NEAR(k["sm_active_pct"].GetDouble(), 100.0 * 19000 / 19800, 1e-9);
  ASSERT_TRUE(k["verdict"].IsObject());
  EXPECT_STREQ(k["verdict"]["sol_class"].GetString(), "compute");
  EXPECT_STREQ(k["verdict"]["verdict"].GetString(), "compute-bound");
  EXPECT_DOUBLE_EQ(k["verdict"]["sm_pct"].GetDouble(), 85);
  // L2 10 TB/s against no known L2 ceiling: memory % is DRAM's.
  EXPECT_DOUBLE_EQ(k["verdict"]["memory_pct"].GetDouble(), 20);
}

TEST(GpuSamplesReport, HtmlSectionAndItsLink) {
  const model::Profile p = Sampled();
  const std::string html = RenderHtmlReport(BuildReport(p));
  EXPECT_THAT(html, HasSubstr("<a href=\"#gpu-metrics\">GPU metrics</a>"));
  EXPECT_THAT(html, HasSubstr("<section id=\"gpu-metrics\"><h2>GPU metrics (sampled every 10 us"));
  EXPECT_THAT(html, HasSubstr("id=\"gpu-metrics-table\""));
  EXPECT_THAT(html, HasSubstr(">ampere_bf16_gemm</td>"));
  EXPECT_THAT(html, HasSubstr(">85%</td>"));  // the tensor pipe
  EXPECT_THAT(html, HasSubstr(">compute-bound</td>"));
}

TEST(GpuSamplesReport, DiffGivesEachKernelsRatesBeforeAndAfter) {
  const model::Profile base = Sampled();
  model::Profile next = Sampled();
  for (model::GpuSample& s : next.samples) s.values[2] /= 2;  // tensor pipe 85% -> 42.5%
  const analysis::Comparison c = analysis::Compare(base, next);
  ASSERT_EQ(c.sampled.size(), 1u);
  EXPECT_DOUBLE_EQ(*c.sampled[0].base.tensor_pct, 85);
  EXPECT_DOUBLE_EQ(*c.sampled[0].next.tensor_pct, 42.5);
  std::ostringstream text, json;
  WriteComparisonText(c, "base.sqlite", "new.sqlite", ReportOptions(), text);
  EXPECT_THAT(text.str(), HasSubstr("GPU metrics of kernels sampled in both"));
  EXPECT_THAT(text.str(), HasSubstr("85%"));
  EXPECT_THAT(text.str(), HasSubstr("42%"));
  WriteComparisonJson(c, "base.sqlite", "new.sqlite", ReportOptions(), json);
  rapidjson::Document d;
  d.Parse(json.str().c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_DOUBLE_EQ(d["sampled_changes"][0]["new"]["tensor_pct"].GetDouble(), 42.5);
  // Tensor 42.5% and DRAM 20%: both under 60, the class turns latency.
  EXPECT_STREQ(d["sampled_changes"][0]["base_class"].GetString(), "compute");
  EXPECT_STREQ(d["sampled_changes"][0]["new_class"].GetString(), "latency");
  EXPECT_THAT(text.str(), HasSubstr("Base Class"));
  // Without samples on one side: no section.
  const analysis::Comparison none = analysis::Compare(base, model::Profile());
  EXPECT_TRUE(none.sampled.empty());
}

TEST(GpuSamplesReport, WhyThereAreNoSamplesIsSaid) {
  testing::ProfileBuilder b;
  b.Kernel("k", 1000, 2000);
  b.profile().run.notes.gpu_metrics_status =
      "GPU 0 (GA100): cuptiPmSamplingSetConfig failed: CUPTI_ERROR_NOT_SUPPORTED";
  const ReportData data = BuildReport(b.profile());
  std::ostringstream text, json;
  WriteText(data, ReportOptions(), text);
  EXPECT_THAT(text.str(), HasSubstr("GPU metrics\n  No samples in this profile."));
  EXPECT_THAT(text.str(), HasSubstr("status: GPU 0 (GA100): cuptiPmSamplingSetConfig failed"));
  WriteJson(data, ReportOptions(), json);
  rapidjson::Document d;
  d.Parse(json.str().c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_EQ(d["gpu_metrics"]["kernels"]["total_rows"].GetUint64(), 0u);
  EXPECT_THAT(d["gpu_metrics"]["notes"][0].GetString(), HasSubstr("NOT_SUPPORTED"));
  const std::string html = RenderHtmlReport(data);
  EXPECT_THAT(html, HasSubstr("<h2>GPU metrics</h2>\n<p>No samples in this profile.</p>"));
  EXPECT_THAT(html, HasSubstr("CUPTI_ERROR_NOT_SUPPORTED"));
}

TEST(GpuSamplesReport, NothingWithoutSamples) {
  testing::ProfileBuilder b;
  b.Kernel("k", 1000, 2000);
  const ReportData data = BuildReport(b.profile());
  std::ostringstream text, json;
  WriteText(data, ReportOptions(), text);
  WriteJson(data, ReportOptions(), json);
  EXPECT_THAT(text.str(), Not(HasSubstr("GPU metrics")));
  EXPECT_THAT(json.str(), Not(HasSubstr("gpu_metrics")));
  EXPECT_THAT(RenderHtmlReport(data), Not(HasSubstr("gpu-metrics")));
}

}  // namespace
}  // namespace cuscope::report
