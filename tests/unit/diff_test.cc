#include "lib/report/diff.h"

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/diff_totals.h"
#include "rapidjson/document.h"

namespace cuscope::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

analysis::Delta MakeDelta(const std::string& name, uint64_t base_ns, uint64_t base_count,
                          uint64_t next_ns, uint64_t next_count) {
  analysis::Delta d;
  d.name = name;
  d.base.total_ns = base_ns;
  d.base.count = base_count;
  d.next.total_ns = next_ns;
  d.next.count = next_count;
  return d;
}

// gemm 2 us -> 800 ns, relu gone, fused new, a 150-byte kernel name; one region.
analysis::Comparison MakeComparison() {
  analysis::Comparison c;
  c.base_wall_ns = 5000000;
  c.next_wall_ns = 4000000;
  c.base_kernel_ns = 2500;
  c.next_kernel_ns = 1130;
  c.base_kernel_count = 3;
  c.next_kernel_count = 4;
  c.kernels.push_back(MakeDelta("gemm", 2000, 2, 800, 2));
  c.kernels.push_back(MakeDelta("relu", 500, 1, 0, 0));
  c.kernels.push_back(MakeDelta("fused", 0, 0, 30, 1));
  c.kernels.push_back(MakeDelta(std::string(150, 'k'), 0, 0, 300, 1));
  analysis::Delta step = MakeDelta("step", 10000, 1, 6000, 1);
  step.base.kernels = 3;
  step.next.kernels = 4;
  c.regions.push_back(step);
  return c;
}

std::string Text(const analysis::Comparison& c, int top, size_t max_name_width) {
  ReportOptions options;
  options.top = top;
  options.max_name_width = max_name_width;
  options.width = 0;  // one line per row, names cut by max_name_width only
  std::ostringstream out;
  WriteComparisonText(c, "base.sqlite", "new.sqlite", options, out);
  return out.str();
}

TEST(WriteComparisonTextTest, TotalsAndRankedRows) {
  const std::string text = Text(MakeComparison(), 10, 80);
  EXPECT_THAT(text,
              HasSubstr("cuscope diff\n  Base        base.sqlite\n  New         new.sqlite\n"));
  EXPECT_THAT(text, HasSubstr("  Wall time   5.000 ms -> 4.000 ms (-1.000 ms, -20.0%)\n"));
  EXPECT_THAT(text, HasSubstr("  Taken       BASE trace only; NEW trace only\n"));
  EXPECT_THAT(text, HasSubstr("  Kernel time 2.500 us -> 1.130 us (-1.370 us, -54.8%: a change "
                              "beyond 3%)\n"));
  EXPECT_THAT(text, Not(HasSubstr("Comparable")));
  EXPECT_THAT(text, HasSubstr("  Kernels     3 -> 4 records (+1, +33.3%)\n"));
  EXPECT_THAT(text, HasSubstr("2.000 us     800 ns  -1.200 us    -60.0%       2      2  gemm\n"));
  EXPECT_THAT(text, HasSubstr("gone"));
  EXPECT_THAT(text, HasSubstr("+30 ns       new"));
  EXPECT_THAT(text, HasSubstr("Base Kernels  New Kernels  Region\n"));
  EXPECT_THAT(text, HasSubstr("3            4  step\n"));
  // No copy and no synchronizing call on either side; no GPU busy line without devices.
  EXPECT_THAT(text, HasSubstr("  Copies      none in either profile\n"
                              "  Sync calls  none in either profile\n"));
  EXPECT_THAT(text, Not(HasSubstr("GPU busy")));
  EXPECT_THAT(text, HasSubstr("\nMemory operations (by change of total time)\n  (none)\n"));
}

TEST(WriteComparisonTextTest, TopCutsRowsWithMoreLine) {
  const std::string text = Text(MakeComparison(), 1, 80);
  EXPECT_THAT(text, HasSubstr("gemm\n  ... 3 more\n"));
  EXPECT_THAT(text, Not(HasSubstr("relu")));
  EXPECT_THAT(Text(MakeComparison(), 0, 80), Not(HasSubstr("more")));
}

TEST(WriteComparisonTextTest, MaxNameWidthCutsNamesAndZeroIsNoLimit) {
  const std::string long_name(150, 'k');
  const std::string cut = Text(MakeComparison(), 0, 80);
  EXPECT_THAT(cut, HasSubstr(" " + std::string(39, 'k') + "..." + std::string(38, 'k') + "\n"));
  EXPECT_THAT(cut, Not(HasSubstr(std::string(78, 'k'))));
  const std::string narrow = Text(MakeComparison(), 0, 20);
  EXPECT_THAT(narrow, HasSubstr(" " + std::string(9, 'k') + "..." + std::string(8, 'k') + "\n"));
  // 0 means no limit, as in the report (the diff used to cut at 80 anyway).
  const std::string full = Text(MakeComparison(), 0, 0);
  EXPECT_THAT(full, HasSubstr(" " + long_name + "\n"));
  EXPECT_THAT(full, Not(HasSubstr("...")));
}

TEST(WriteComparisonJsonTest, ParsesWithFullNamesAndTop) {
  ReportOptions options;
  options.top = 2;
  options.max_name_width = 10;  // text only
  std::ostringstream out;
  WriteComparisonJson(MakeComparison(), "base.sqlite", "new.sqlite", options, out);
  rapidjson::Document doc;
  doc.Parse(out.str().c_str());
  ASSERT_FALSE(doc.HasParseError()) << out.str();
  EXPECT_STREQ(doc["base"].GetString(), "base.sqlite");
  EXPECT_STREQ(doc["new"].GetString(), "new.sqlite");
  EXPECT_EQ(doc["wall_ns"][0].GetUint64(), 5000000u);
  EXPECT_EQ(doc["kernel_ns"][1].GetUint64(), 1130u);
  EXPECT_EQ(doc["kernel_count"][1].GetUint64(), 4u);
  ASSERT_EQ(doc["kernels"].Size(), 2u);
  EXPECT_STREQ(doc["kernels"][0]["name"].GetString(), "gemm");
  EXPECT_EQ(doc["kernels"][0]["base"]["total_ns"].GetUint64(), 2000u);
  EXPECT_EQ(doc["kernels"][0]["new"]["count"].GetUint64(), 2u);
  EXPECT_EQ(doc["kernels"][0]["change_ns"].GetInt64(), -1200);
  ASSERT_EQ(doc["regions"].Size(), 1u);
  EXPECT_EQ(doc["regions"][0]["new"]["kernels"].GetUint64(), 4u);

  options.top = 0;
  std::ostringstream all;
  WriteComparisonJson(MakeComparison(), "a", "b", options, all);
  EXPECT_THAT(all.str(), HasSubstr(std::string(150, 'k')));
}

analysis::TotalsDelta MakeTotals(const std::string& name, uint64_t base_count, uint64_t base_bytes,
                                 uint64_t base_ns, uint64_t next_count, uint64_t next_bytes,
                                 uint64_t next_ns, bool sync = false) {
  analysis::TotalsDelta d;
  d.name = name;
  d.synchronizing = sync;
  d.base = {base_count, base_bytes, base_ns};
  d.next = {next_count, next_bytes, next_ns};
  return d;
}

// The comparison above with GPU busy, memory operations and API calls.
analysis::Comparison WithTotals() {
  analysis::Comparison c = MakeComparison();
  analysis::BusyDelta busy;
  busy.device_id = 0;
  busy.device_name = "NVIDIA H200";
  busy.base.busy_ns = 500000;
  busy.base.busy_percent = 10.0;
  busy.next.busy_ns = 2000000;
  busy.next.busy_percent = 50.0;
  c.busy.push_back(busy);
  // Pageable copies became pinned; memsets doubled.
  c.memory.push_back(MakeTotals("[CUDA memcpy HtoD pageable]", 2, 8000000, 1000000, 0, 0, 0));
  c.memory.push_back(MakeTotals("[CUDA memcpy HtoD pinned]", 0, 0, 0, 2, 8000000, 200000));
  c.memory.push_back(MakeTotals("[CUDA memset]", 1, 100, 1000, 2, 200, 2000));
  c.copies = analysis::SumOf({c.memory[0], c.memory[1]}, "all copies");
  // By change: the sync went down, launches went up, 3 small ones, a sync call last.
  c.api.push_back(MakeTotals("cudaDeviceSynchronize", 10, 0, 900000, 2, 0, 100000, true));
  c.api.push_back(MakeTotals("cudaLaunchKernel", 100, 0, 200000, 150, 0, 300000));
  c.api.push_back(MakeTotals("cudaMalloc", 2, 0, 5000, 3, 0, 9000));
  c.api.push_back(MakeTotals("cudaFree", 2, 0, 3000, 1, 0, 1000));
  c.api.push_back(MakeTotals("cudaGetDevice", 5, 0, 500, 4, 0, 400));
  c.api.push_back(MakeTotals("cudaStreamSynchronize", 1, 0, 100, 1, 0, 100, true));
  c.sync_calls = analysis::SumOf({c.api[0], c.api[5]}, "synchronizing calls");
  return c;
}

TEST(WriteComparisonTextTest, GpuBusyCopiesAndSyncCallsInTheHeader) {
  const std::string text = Text(WithTotals(), 10, 80);
  EXPECT_THAT(text, HasSubstr("  GPU busy    GPU 0: 500.000 us -> 2.000 ms (+1.500 ms, +300.0%), "
                              "10.0% -> 50.0% of wall (+40.0 points)\n"));
  EXPECT_THAT(text, HasSubstr("  Copies      2 -> 2 copies (+0, +0.0%), 8.000 MB -> 8.000 MB "
                              "(+0.0%), 1.000 ms -> 200.000 us (-800.000 us, -80.0%)\n"));
  EXPECT_THAT(text, HasSubstr("  Sync calls  11 -> 3 calls (-8, -72.7%), 900.100 us -> "
                              "100.100 us (-800.000 us, -88.9%)\n"));
}

TEST(WriteComparisonTextTest, MemoryOperationsWithCountSizeAndBandwidth) {
  const std::string text = Text(WithTotals(), 10, 80);
  EXPECT_THAT(text, HasSubstr("\nMemory operations (by change of total time)\n"));
  EXPECT_THAT(text, HasSubstr("1.000 ms        0 ns    -1.000 ms      gone  [CUDA memcpy HtoD "
                              "pageable]\n    count 2 -> 0 (-2, gone), size 8.000 MB -> 0 B "
                              "(gone), GB/s 8.00 -> -\n"));
  EXPECT_THAT(text, HasSubstr("new  [CUDA memcpy HtoD pinned]\n    count 0 -> 2 (+2, new), size "
                              "0 B -> 8.000 MB (new), GB/s - -> 40.0\n"));
  EXPECT_THAT(text, HasSubstr("+100.0%  [CUDA memset]\n    count 1 -> 2 (+1, +100.0%), size "
                              "100 B -> 200 B (+100.0%)"));
}

TEST(WriteComparisonTextTest, ApiTopRowsKeepEverySyncAndSumTheRest) {
  const std::string text = Text(WithTotals(), 2, 80);
  EXPECT_THAT(text, HasSubstr("\nCUDA API calls (by change of total time)\n"));
  EXPECT_THAT(text, HasSubstr("900.000 us  100.000 us  -800.000 us    -88.9%          10          "
                              "2   -80.0%  cudaDeviceSynchronize (sync)\n"));
  EXPECT_THAT(text, HasSubstr("+50.0%  cudaLaunchKernel\n"));
  // Past the top 2, only the synchronizing call is shown; the 3 others are one line.
  EXPECT_THAT(text, HasSubstr("cudaStreamSynchronize (sync)\n"));
  EXPECT_THAT(text, Not(HasSubstr("cudaMalloc")));
  EXPECT_THAT(text, HasSubstr("  (sync): a synchronizing call, which blocks the CPU until the "
                              "GPU is done\n  ... 3 more names: 9 -> 8 calls (-1, -11.1%), "
                              "8.500 us -> 10.400 us (+1.900 us, +22.4%)\n"));
  const std::string all = Text(WithTotals(), 0, 80);
  EXPECT_THAT(all, HasSubstr("cudaMalloc"));
  EXPECT_THAT(all, Not(HasSubstr("more names")));
}

TEST(WriteComparisonTextTest, NewSectionsFitTheWidth) {
  for (size_t width : {100, 80, 60}) {
    ReportOptions options;
    options.width = width;
    std::ostringstream out;
    WriteComparisonText(WithTotals(), "base.sqlite", "new.sqlite", options, out);
    std::istringstream lines(out.str());
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(line.size(), width) << line;
    }
  }
}

TEST(WriteComparisonJsonTest, BusyMemoryAndApi) {
  ReportOptions options;
  options.top = 1;
  std::ostringstream out;
  WriteComparisonJson(WithTotals(), "base.sqlite", "new.sqlite", options, out);
  rapidjson::Document doc;
  doc.Parse(out.str().c_str());
  ASSERT_FALSE(doc.HasParseError()) << out.str();
  EXPECT_TRUE(doc["kernels"][0]["change_percent"].IsNumber());
  EXPECT_DOUBLE_EQ(doc["kernels"][0]["change_percent"].GetDouble(), -60.0);
  const auto& busy = doc["gpu_busy"][0];
  EXPECT_EQ(busy["base"]["busy_ns"].GetUint64(), 500000u);
  EXPECT_EQ(busy["change_ns"].GetInt64(), 1500000);
  EXPECT_DOUBLE_EQ(busy["change_points"].GetDouble(), 40.0);
  ASSERT_EQ(doc["memory"].Size(), 1u);  // --top
  const auto& pageable = doc["memory"][0];
  EXPECT_STREQ(pageable["name"].GetString(), "[CUDA memcpy HtoD pageable]");
  EXPECT_EQ(pageable["base"]["bytes"].GetUint64(), 8000000u);
  EXPECT_DOUBLE_EQ(pageable["base"]["gbps"].GetDouble(), 8.0);
  EXPECT_DOUBLE_EQ(pageable["change_percent"].GetDouble(), -100.0);
  EXPECT_EQ(doc["copies"]["new"]["total_ns"].GetUint64(), 200000u);
  // Top 1 and the other synchronizing call; the rest summed.
  ASSERT_EQ(doc["api"].Size(), 2u);
  EXPECT_STREQ(doc["api"][1]["name"].GetString(), "cudaStreamSynchronize");
  EXPECT_TRUE(doc["api"][1]["synchronizing"].GetBool());
  EXPECT_EQ(doc["api_rest_names"].GetUint64(), 4u);
  EXPECT_EQ(doc["api_rest"]["base"]["count"].GetUint64(), 109u);
  EXPECT_EQ(doc["sync_calls"]["new"]["count"].GetUint64(), 3u);
  // A change from nothing has no percentage: null, not infinity.
  options.top = 0;
  std::ostringstream all;
  WriteComparisonJson(WithTotals(), "a", "b", options, all);
  doc.Parse(all.str().c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_TRUE(doc["memory"][1]["change_percent"].IsNull());
}

// Two signatures of one kernel: the verdict rows show their grids and blocks, and the
// findings on them say which is which (text and JSON).
TEST(WriteComparisonTextTest, TwoSignaturesOfOneKernelAreToldApart) {
  analysis::Comparison c;
  c.verdicts.push_back({"gemm", {64, 32, 1}, {128, 1, 1}, "unknown", "compute-bound"});
  c.verdicts.push_back({"gemm", {32, 64, 1}, {128, 1, 1}, "unknown", "compute-bound"});
  for (uint64_t grid : {2048u, 512u}) {
    analysis::FindingChange f;
    f.kind = analysis::FindingChangeKind::kResolved;
    f.rule = "fp32_without_tensor_cores";
    f.kernel = "sgemm";
    f.grid_blocks = grid;
    f.block_threads = 256;
    f.base_gain_ns = 1e6;
    c.findings.push_back(f);
  }
  analysis::FindingChange gaps;
  gaps.rule = "gpu_idle_gaps";
  c.findings.push_back(gaps);
  std::ostringstream text;
  WriteComparisonText(c, "a", "b", ReportOptions{}, text);
  EXPECT_THAT(text.str(), HasSubstr("64x32x1  128x1x1  gemm"));
  EXPECT_THAT(text.str(), HasSubstr("32x64x1  128x1x1  gemm"));
  EXPECT_THAT(text.str(), HasSubstr("(sgemm; 2048 blocks of 256 threads)"));
  EXPECT_THAT(text.str(), HasSubstr("(sgemm; 512 blocks of 256 threads)"));
  std::ostringstream json;
  WriteComparisonJson(c, "a", "b", ReportOptions{}, json);
  rapidjson::Document doc;
  doc.Parse(json.str().c_str());
  ASSERT_FALSE(doc.HasParseError()) << json.str();
  EXPECT_EQ(doc["verdict_changes"][1]["grid"][0].GetUint(), 32u);
  EXPECT_EQ(doc["verdict_changes"][1]["block"][0].GetUint(), 128u);
  EXPECT_EQ(doc["finding_changes"][1]["grid_blocks"].GetUint64(), 512u);
  EXPECT_EQ(doc["finding_changes"][1]["block_threads"].GetUint64(), 256u);
  EXPECT_EQ(doc["finding_changes"][2]["grid_blocks"].GetUint64(), 0u);
}

// Profiles that measured other counter metrics say so (text and JSON); the same metrics
// say nothing.
TEST(WriteComparisonTextTest, DifferentCounterMetricsAreSaid) {
  analysis::Comparison c;
  std::ostringstream same;
  WriteComparisonText(c, "a", "b", ReportOptions{}, same);
  EXPECT_THAT(same.str(), Not(HasSubstr("Counters")));
  c.metrics.only_base = {"dram__bytes.sum", "l1tex__t_bytes.sum"};
  c.metrics.only_next = {"sm__pipe_tensor_cycles_active.avg"};
  ReportOptions options;
  options.width = 0;
  std::ostringstream text;
  WriteComparisonText(c, "a", "b", options, text);
  EXPECT_THAT(text.str(),
              HasSubstr("  Counters    different counter metrics measured (2 only in base, e.g. "
                        "dram__bytes.sum; 1 only in new, e.g. sm__pipe_tensor_cycles_active.avg): "
                        "verdict and finding changes may come from what was measured, not from a "
                        "change in the program\n"));
  std::ostringstream json;
  WriteComparisonJson(c, "a", "b", options, json);
  rapidjson::Document doc;
  doc.Parse(json.str().c_str());
  ASSERT_FALSE(doc.HasParseError()) << json.str();
  EXPECT_TRUE(doc["counter_metrics"]["differ"].GetBool());
  EXPECT_EQ(doc["counter_metrics"]["only_base"].Size(), 2u);
  EXPECT_STREQ(doc["counter_metrics"]["only_new"][0].GetString(),
               "sm__pipe_tensor_cycles_active.avg");
}

TEST(ChangePercentTextTest, NewGoneAndInfinite) {
  EXPECT_EQ(ChangePercentText(12.5, 2, 3), "+12.5%");
  EXPECT_EQ(ChangePercentText(-100, 2, 0), "gone");
  EXPECT_EQ(ChangePercentText(1.0 / 0.0, 0, 3), "new");
  EXPECT_EQ(ChangePercentText(1.0 / 0.0, 2, 3), "n/a");  // zero-length records before
}

}  // namespace
}  // namespace cuscope::report
