#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/report/csv.h"
#include "lib/report/json.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "rapidjson/document.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using cuscope::testing::ProfileBuilder;
using ::testing::HasSubstr;
using ::testing::Not;

// 12 kernels kernel_0..kernel_11 with totals 1..12 us (not overlapping), each
// launched by an API call inside the range "step" (and "step/fwd" for the first
// three), one memcpy and one memset. Kernel time is 78 us in all; the records span
// 900 .. 410500 ns.
ProfileBuilder ReportProfile() {
  ProfileBuilder b;
  b.profile().run.exit_reason = "exit";
  b.Range("step", 900, 250000);
  b.Range("fwd", 950, 50000);
  for (int i = 0; i < 12; ++i) {
    const uint32_t correlation = 100 + i;
    b.Api("cudaLaunchKernel", 1000 + i * 20000, 1005 + i * 20000, correlation);
    b.Kernel("kernel_" + std::to_string(i), 2000 + i * 20000, 2000 + i * 20000 + 1000 * (i + 1), 7,
             correlation);
  }
  b.Memcpy(model::MemcpyKind::kHtoD, model::MemoryKind::kPageable, 1000000, 300000, 400000);
  b.Memset(4096, 410000, 410500);
  return b;
}

ReportOptions Options(int top, size_t max_name_width = 80) {
  ReportOptions options;
  options.top = top;
  options.max_name_width = max_name_width;
  return options;
}

std::string Text(const ReportData& data, ReportOptions options = {}) {
  std::ostringstream out;
  WriteText(data, options, out);
  return out.str();
}
std::string Csv(const ReportData& data, ReportOptions options = {}) {
  std::ostringstream out;
  WriteCsv(data, options, out);
  return out.str();
}
std::string Json(const ReportData& data, ReportOptions options = {}) {
  std::ostringstream out;
  WriteJson(data, options, out);
  return out.str();
}

// The text between `from` and `to`.
std::string Between(const std::string& s, const std::string& from, const std::string& to) {
  const size_t begin = s.find(from);
  if (begin == std::string::npos) return "";
  const size_t end = s.find(to, begin + from.size());
  return s.substr(begin + from.size(),
                  end == std::string::npos ? std::string::npos : end - begin - from.size());
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines of one CSV section, from its "# name" line up to the blank line.
std::vector<std::string> CsvSection(const std::string& csv, const std::string& name) {
  std::vector<std::string> all = Lines(csv), out;
  bool in = false;
  for (const std::string& line : all) {
    if (line == "# " + name) {
      in = true;
      continue;
    }
    if (in && line.empty()) break;
    if (in) out.push_back(line);
  }
  return out;
}

TEST(BuildReportTest, ComputesSummaryAndRegions) {
  ProfileBuilder b = ReportProfile();
  ReportData data = BuildReport(b.profile());
  EXPECT_EQ(data.profile, &b.profile());
  EXPECT_EQ(data.summary.kernels.size(), 12u);
  ASSERT_EQ(data.regions.size(), 2u);
  EXPECT_EQ(data.regions[0].path, "step");
  EXPECT_EQ(data.regions[0].kernel_count, 12u);
  EXPECT_EQ(data.regions[1].path, "step/fwd");
  EXPECT_EQ(data.regions[1].kernel_count, 3u);  // launched at 1000, 21000, 41000
}

TEST(BuildReportTest, ComputesCountersOnceFromTheCeilings) {
  ProfileBuilder b = ReportProfile();
  ReportData data = BuildReport(b.profile());
  // No counter sets: nothing to analyse and nothing to say.
  EXPECT_TRUE(data.ceilings.empty());
  EXPECT_TRUE(data.counters.empty());
  EXPECT_TRUE(data.counter_notes.empty());
  b.profile().run.notes.counters_status = "not permitted";
  EXPECT_THAT(BuildReport(b.profile()).counter_notes,
              ::testing::ElementsAre("status: not permitted"));
}

// The writers print what the data holds; they do not analyse the profile again.
TEST(ReportDataTest, WritersShowTheDataNotARecomputation) {
  ProfileBuilder b = ReportProfile();
  ReportData data = BuildReport(b.profile());
  data.summary.kernels[0].name = "renamed_kernel";
  data.regions[0].path = "renamed_region";
  data.counter_notes.push_back("a note from the data");
  for (const std::string& out : {Text(data), Csv(data), Json(data)}) {
    EXPECT_THAT(out, HasSubstr("renamed_kernel"));
    EXPECT_THAT(out, HasSubstr("renamed_region"));
    EXPECT_THAT(out, HasSubstr("a note from the data"));
  }
}

TEST(ReportDataTest, WritersAcceptDataWithoutAProfile) {
  const ReportData data;
  EXPECT_THAT(Text(data), HasSubstr("Devices     none recorded"));
  EXPECT_THAT(Csv(data), HasSubstr("command_line,\n"));
  rapidjson::Document doc;
  doc.Parse(Json(data).c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc["devices"].Size(), 0u);
}

TEST(WriteTextTest, HeaderHasRunDetails) {
  ProfileBuilder b = ReportProfile();
  b.profile().run.rank = 3;
  std::string text = Text(BuildReport(b.profile()));
  EXPECT_THAT(text, HasSubstr("Command     ./app --flag"));
  EXPECT_THAT(text, HasSubstr("pid 4242 on test-host, rank 3, ended by exit"));
  EXPECT_THAT(text, HasSubstr("cuscope     0.1.0"));
  EXPECT_THAT(text, HasSubstr("GPU 0: NVIDIA H200 (sm_90, 132 SMs, 150.0 GiB)"));
  // Wall: 900 .. 410500.
  EXPECT_THAT(text, HasSubstr("Wall time   409.600 us"));
  // Busy: kernels 78 us + memcpy 100 us + memset 0.5 us = 178.5 us of 409.6 us.
  EXPECT_THAT(text, HasSubstr("GPU 0: 43.6% (178.500 us), kernels 19.0% (78.000 us)"));
  EXPECT_THAT(text, HasSubstr("kernels 12, memcpys 1, memsets 1, API calls 12, syncs 0, ranges 2"));
  EXPECT_THAT(text, Not(HasSubstr("WARNING")));
}

TEST(WriteTextTest, DroppedRecordsWarning) {
  ProfileBuilder b = ReportProfile();
  b.profile().run.dropped_records = 5;
  std::string text = Text(BuildReport(b.profile()));
  EXPECT_THAT(text, HasSubstr("WARNING: 5 records were dropped by CUPTI"));
}

TEST(WriteTextTest, TablesWithTopCutAndMoreLine) {
  ProfileBuilder b = ReportProfile();
  ReportData data = BuildReport(b.profile());
  std::string text = Text(data, Options(10));
  EXPECT_THAT(text, HasSubstr("\nGPU kernels\n"));
  EXPECT_THAT(text, HasSubstr("\nCUDA API\n"));
  EXPECT_THAT(text, HasSubstr("\nMemory operations\n"));
  EXPECT_THAT(text, HasSubstr("\nRegions\n"));
  // Ranked: kernel_11 (12 us) first; kernel_2..kernel_11 shown, kernel_0 and kernel_1 cut.
  const std::string kernels = Between(text, "GPU kernels\n", "\nCUDA API\n");
  EXPECT_THAT(kernels, HasSubstr("kernel_11\n"));
  EXPECT_THAT(kernels, HasSubstr("kernel_2\n"));
  EXPECT_THAT(kernels, Not(HasSubstr("kernel_1\n")));
  EXPECT_THAT(kernels, Not(HasSubstr("kernel_0\n")));
  EXPECT_THAT(kernels, HasSubstr("  ... 2 more kernels\n"));
  // The first kernel row: 12/78 = 15.4 %, 12 us.
  EXPECT_THAT(text, HasSubstr("15.4   12.000 us          1  12.000 us  12.000 us  12.000 us  "
                              "12.000 us    0 ns  kernel_11"));

  const std::string all = Between(Text(data, Options(0)), "GPU kernels\n", "\nCUDA API\n");
  EXPECT_THAT(all, HasSubstr("kernel_0\n"));
  EXPECT_THAT(all, Not(HasSubstr("more kernels")));
  // top = 1 cuts the regions table too.
  EXPECT_THAT(Text(data, Options(1)), HasSubstr("  ... 1 more regions\n"));
}

TEST(WriteTextTest, HumanReadableDurationsAndSizes) {
  ProfileBuilder b;
  b.Kernel("ns_kernel", 1000, 1512);                       // 512 ns
  b.Kernel("ms_kernel", 10000, 10000 + 2500000);           // 2.5 ms
  b.Kernel("s_kernel", 5000000, 5000000 + 3250000000ull);  // 3.25 s
  b.Memcpy(model::MemcpyKind::kDtoH, model::MemoryKind::kPinned, 2000000, 10, 1010);
  std::string text = Text(BuildReport(b.profile()));
  EXPECT_THAT(text, HasSubstr("512 ns"));
  EXPECT_THAT(text, HasSubstr("2.500 ms"));
  EXPECT_THAT(text, HasSubstr("3.250 s"));
  EXPECT_THAT(text, HasSubstr("2.000 MB"));
  EXPECT_THAT(text, HasSubstr("2000.000 GB/s"));
  EXPECT_THAT(text, HasSubstr("[CUDA memcpy DtoH pinned]"));
}

TEST(WriteTextTest, LongNamesTruncatedInTextOnly) {
  ProfileBuilder b;
  const std::string long_name =
      "void flash::attention_kernel<cutlass::half_t, 128, 64, true, false>"
      "(flash::Params const&, int, int, float const*, float*, int)";
  const std::string no_args = std::string(150, 'x');
  b.Kernel(long_name, 1000, 2000);
  b.Kernel(no_args, 3000, 3500);
  ReportData data = BuildReport(b.profile());
  std::string text = Text(data, Options(10, 80));
  // The parameter list collapses first.
  EXPECT_THAT(text, HasSubstr("void flash::attention_kernel<cutlass::half_t, 128, 64, true, "
                              "false>(...)\n"));
  EXPECT_THAT(text, Not(HasSubstr(long_name)));
  // Then a cut in the middle, to 80 bytes: head and tail kept.
  EXPECT_THAT(text, HasSubstr(" " + std::string(39, 'x') + "..." + std::string(38, 'x') + "\n"));
  EXPECT_THAT(text, Not(HasSubstr(std::string(78, 'x'))));
  // CSV and JSON keep the full names.
  EXPECT_THAT(Csv(data), HasSubstr(long_name));
  EXPECT_THAT(Json(data), HasSubstr(no_args));
}

TEST(WriteTextTest, MeasuredColumnOnlyWhenMeasured) {
  ProfileBuilder b;
  b.Kernel("k", 1000, 2000);
  EXPECT_THAT(Text(BuildReport(b.profile())), Not(HasSubstr("Measured")));
  b.Kernel("k", 3000, 9000).flags = model::kKernelCountersMeasured;
  std::string text = Text(BuildReport(b.profile()));
  EXPECT_THAT(text, HasSubstr("Measured"));
}

TEST(WriteTextTest, RegionsWithTopKernels) {
  ProfileBuilder b = ReportProfile();
  std::string text = Text(BuildReport(b.profile()));
  // step: 249.1 us, 12 kernels, 78 us of GPU time; top kernel kernel_11.
  EXPECT_THAT(text, HasSubstr("249.100 us          1"));
  // At the default width of 100 the names sit on their own line above their numbers.
  EXPECT_THAT(text, HasSubstr("  step\n  249.100 us"));
  EXPECT_THAT(text, HasSubstr("12  78.000 us\n"));
  EXPECT_THAT(text, HasSubstr("12.000 us  1x  kernel_11\n"));
  EXPECT_THAT(text, HasSubstr("step/fwd\n"));
}

TEST(WriteTextTest, EmptyProfile) {
  model::Profile p;
  std::string text = Text(BuildReport(p));
  EXPECT_THAT(text, HasSubstr("GPU kernels\n  (none)"));
  EXPECT_THAT(text, HasSubstr("Regions\n  (none)"));
}

TEST(WriteCsvTest, SectionsSeparatedByBlankLines) {
  ProfileBuilder b = ReportProfile();
  std::string csv = Csv(BuildReport(b.profile()));
  std::vector<std::string> lines = Lines(csv);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "# run");
  EXPECT_EQ(lines[1], "key,value");
  std::vector<std::string> sections;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("# ", 0) == 0) {
      sections.push_back(lines[i].substr(2));
      if (i > 0) {
        EXPECT_EQ(lines[i - 1], "") << "no blank line before " << lines[i];
      }
    }
  }
  EXPECT_EQ(sections, (std::vector<std::string>{"run", "devices", "kernels", "api", "memory",
                                                "regions", "region_kernels"}));
}

TEST(WriteCsvTest, NumericColumnsRawNanoseconds) {
  ProfileBuilder b = ReportProfile();
  std::string csv = Csv(BuildReport(b.profile()));
  std::vector<std::string> kernels = CsvSection(csv, "kernels");
  ASSERT_GE(kernels.size(), 2u);
  EXPECT_EQ(kernels[0],
            "time_percent,total_ns,instances,avg_ns,median_ns,min_ns,max_ns,stddev_ns,"
            "measured_launches,all_measured,name");
  // 12000 / 78000 = 15.385 %.
  EXPECT_EQ(kernels[1], "15.385,12000,1,12000.000,12000.000,12000,12000,0.000,0,0,kernel_11");
  std::vector<std::string> memory = CsvSection(csv, "memory");
  ASSERT_EQ(memory.size(), 3u);
  EXPECT_EQ(memory[1],
            "99.502,100000,1,100000.000,100000.000,100000,100000,0.000,1000000,10.000,"
            "[CUDA memcpy HtoD pageable]");
  std::vector<std::string> run = CsvSection(csv, "run");
  EXPECT_THAT(run, ::testing::Contains("wall_ns,409600"));
  EXPECT_THAT(run, ::testing::Contains("pid,4242"));
}

TEST(WriteCsvTest, QuotesNamesWithCommasAndQuotes) {
  ProfileBuilder b;
  b.Kernel("void k<int, 2>(\"x\")", 1000, 2000);
  b.profile().run.command_line = "./app --name=\"a,b\"";
  std::string csv = Csv(BuildReport(b.profile()));
  std::vector<std::string> kernels = CsvSection(csv, "kernels");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_THAT(kernels[1], ::testing::EndsWith(",\"void k<int, 2>(\"\"x\"\")\""));
  EXPECT_THAT(csv, HasSubstr("command_line,\"./app --name=\"\"a,b\"\"\"\n"));
}

TEST(WriteCsvTest, TopCutsRows) {
  ProfileBuilder b = ReportProfile();
  ReportData data = BuildReport(b.profile());
  EXPECT_EQ(CsvSection(Csv(data, Options(3)), "kernels").size(), 1u + 3u);
  EXPECT_EQ(CsvSection(Csv(data, Options(0)), "kernels").size(), 1u + 12u);
  EXPECT_EQ(CsvSection(Csv(data, Options(-1)), "kernels").size(), 1u + 12u);
  // Region kernels follow the shown regions: top 1 -> only step's top 5.
  EXPECT_EQ(CsvSection(Csv(data, Options(1)), "region_kernels").size(), 1u + 5u);
}

TEST(WriteJsonTest, ParsesWithValues) {
  ProfileBuilder b = ReportProfile();
  b.profile().run.dropped_records = 9;
  b.profile().run.notes.other["RANK_SOURCE"] = "env";
  std::string json = Json(BuildReport(b.profile()), Options(2));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError()) << json;
  ASSERT_TRUE(doc.IsObject());

  const auto& run = doc["run"];
  EXPECT_STREQ(run["command_line"].GetString(), "./app --flag");
  EXPECT_EQ(run["pid"].GetInt64(), 4242);
  EXPECT_EQ(run["wall_ns"].GetUint64(), 409600u);
  EXPECT_EQ(run["dropped_records"].GetUint64(), 9u);
  EXPECT_STREQ(run["extra"]["RANK_SOURCE"].GetString(), "env");
  EXPECT_EQ(doc["counts"]["kernels"].GetUint64(), 12u);

  const auto& devices = doc["devices"];
  ASSERT_EQ(devices.Size(), 1u);
  EXPECT_STREQ(devices[0]["name"].GetString(), "NVIDIA H200");
  EXPECT_EQ(devices[0]["busy_ns"].GetUint64(), 178500u);
  EXPECT_EQ(devices[0]["kernel_ns"].GetUint64(), 78000u);
  EXPECT_NEAR(devices[0]["busy_percent"].GetDouble(), 178500.0 / 409600.0 * 100.0, 1e-9);

  const auto& kernels = doc["kernels"];
  EXPECT_EQ(kernels["total_rows"].GetUint64(), 12u);
  ASSERT_EQ(kernels["rows"].Size(), 2u);
  const auto& k0 = kernels["rows"][0];
  EXPECT_STREQ(k0["name"].GetString(), "kernel_11");
  EXPECT_EQ(k0["total_ns"].GetUint64(), 12000u);
  EXPECT_EQ(k0["instances"].GetUint64(), 1u);
  EXPECT_DOUBLE_EQ(k0["median_ns"].GetDouble(), 12000.0);
  EXPECT_NEAR(k0["time_percent"].GetDouble(), 12.0 / 78.0 * 100.0, 1e-9);
  EXPECT_FALSE(k0["all_measured"].GetBool());

  const auto& api = doc["api"]["rows"];
  ASSERT_EQ(api.Size(), 1u);
  EXPECT_STREQ(api[0]["name"].GetString(), "cudaLaunchKernel");
  EXPECT_EQ(api[0]["instances"].GetUint64(), 12u);

  const auto& memory = doc["memory"]["rows"];
  ASSERT_EQ(memory.Size(), 2u);
  EXPECT_STREQ(memory[0]["operation"].GetString(), "[CUDA memcpy HtoD pageable]");
  EXPECT_DOUBLE_EQ(memory[0]["bandwidth_gbps"].GetDouble(), 10.0);
  EXPECT_EQ(memory[0]["total_bytes"].GetUint64(), 1000000u);

  const auto& regions = doc["regions"];
  EXPECT_EQ(regions["total_rows"].GetUint64(), 2u);
  const auto& step = regions["rows"][0];
  EXPECT_STREQ(step["path"].GetString(), "step");
  EXPECT_EQ(step["total_ns"].GetUint64(), 249100u);
  EXPECT_EQ(step["kernel_count"].GetUint64(), 12u);
  EXPECT_EQ(step["gpu_time_ns"].GetUint64(), 78000u);
  ASSERT_EQ(step["top_kernels"].Size(), 5u);
  EXPECT_STREQ(step["top_kernels"][0]["name"].GetString(), "kernel_11");
  EXPECT_EQ(step["top_kernels"][0]["total_ns"].GetUint64(), 12000u);
}

TEST(WriteJsonTest, TopZeroWritesAllRowsAndNamesAreEscaped) {
  ProfileBuilder b = ReportProfile();
  b.Kernel("quote\"back\\slash\nnewline", 500000, 500010);
  std::string json = Json(BuildReport(b.profile()), Options(0));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc["kernels"]["rows"].Size(), 13u);
  bool found = false;
  for (const auto& row : doc["kernels"]["rows"].GetArray()) {
    found |= std::string(row["name"].GetString()) == "quote\"back\\slash\nnewline";
  }
  EXPECT_TRUE(found);
}

TEST(WriteJsonTest, MangledFallbackNamesAreDemangledForDisplay) {
  ProfileBuilder b;
  b.Kernel("foo", 1000, 2000).name = model::kEmptyString;  // only "_Z3foov" is known
  std::string json = Json(BuildReport(b.profile()));
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_STREQ(doc["kernels"]["rows"][0]["name"].GetString(), "foo()");
}

}  // namespace
}  // namespace cuscope::report
