// `cuscope metrics` and the check of --metrics that `cuscope run` makes before the
// program starts, without a GPU (every supported chip is checked then), through
// libcuscope.so's C ABI.
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tests/test_util.h"

namespace {

const std::string kBin = std::string(CUSCOPE_BINARY_DIR) + "/bin/cuscope";

struct Result {
  int code = -1;
  std::string out, err;
};

Result RunCmd(const std::vector<std::string>& argv,
              const std::map<std::string, std::string>& env = {}) {
  cuscope::testing_util::ProgramResult r = cuscope::testing_util::RunProgram(argv, env);
  return {r.code(), std::move(r.out), std::move(r.err)};
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RunChecksMetrics, ATypoExitsTwoWithTheNearestNameBeforeTheProgramStarts) {
  Result r = RunCmd({kBin, "run", "--metrics=rooflin", "--", "sh", "-c", "echo RAN"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.out, "");  // the program never ran
  EXPECT_TRUE(Has(r.err, "cuscope: run: --metrics: \"rooflin\" is neither a metric set")) << r.err;
  EXPECT_TRUE(Has(r.err, "nearest: roofline")) << r.err;
  r = RunCmd({kBin, "run", "--metrics=roofline,dram__byte.sum", "--", "sh", "-c", "echo RAN"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "dram__bytes")) << r.err;
  // From the environment too.
  r = RunCmd({kBin, "run", "--", "sh", "-c", "echo RAN"}, {{"CUSCOPE_METRICS", "stals"}});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "nearest: stalls")) << r.err;
}

TEST(RunChecksMetrics, ANameOfAnySupportedChipIsAcceptedWithoutAGpu) {
  // fp4 tensor ops exist on Blackwell only.
  Result r = RunCmd({kBin, "run", "--metrics=roofline, sm__ops_path_tensor_src_fp4_dst_fp32.sum",
                     "--", "sh", "-c", "echo RAN"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "RAN\n");
  // Not checked when cuscope is disabled.
  r = RunCmd({kBin, "run", "--enable=0", "--metrics=rooflin", "--", "true"});
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(MetricsCommand, ListsEverySetForTheDefaultChipWithANote) {
  Result r = RunCmd({kBin, "metrics"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* set : {"verdict", "roofline", "sol", "occupancy", "stalls", "memory", "full"}) {
    EXPECT_TRUE(Has(r.out, std::string("\n") + set + " ")) << set << "\n" << r.out;
  }
  EXPECT_TRUE(Has(r.out, " passes")) << r.out;
  if (Has(r.err, "no GPU visible") || Has(r.err, "no CUDA driver")) {
    EXPECT_TRUE(Has(r.err, "showing GH100")) << r.err;
    EXPECT_TRUE(Has(r.out, "Metric sets on GH100 (Hopper")) << r.out;
  }
}

TEST(MetricsCommand, ASetOnAnotherChipShowsSubstitutesAndWhatItCannotMeasure) {
  Result r = RunCmd({kBin, "metrics", "--chip", "GA100", "--set", "roofline"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(Has(r.out, "Metric sets on GA100 (Ampere")) << r.out;
  EXPECT_TRUE(Has(r.out,
                  "on GA100: sm__ops_path_tensor_src_fp16_dst_fp16.sum + "
                  "sm__ops_path_tensor_src_fp16_dst_fp32.sum ("))
      << r.out;
  EXPECT_TRUE(Has(r.out, "  sm__ops_path_tensor_src_fp8.sum\n      not on GA100")) << r.out;
  EXPECT_TRUE(Has(r.out, "# of bytes accessed in DRAM")) << r.out;  // CUPTI's description
  EXPECT_FALSE(Has(r.out, "stalled")) << "only the set asked for";
  r = RunCmd({kBin, "metrics", "--chip=GA100", "--set=stalls,dram__bytes.sum"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "smsp__warps_issue_stalled_gmma.avg\n      not on GA100: ")) << r.out;
  EXPECT_TRUE(Has(r.out, "\nmetrics: ")) << r.out;
}

// A submetric is described as what it is (a peak per cycle, a percentage, a rate), not
// with its base counter's words alone; text and JSON.
TEST(MetricsCommand, SubmetricsAreDescribedAsWhatTheyAre) {
  const std::string set =
      "dram__bytes.sum.peak_sustained,l1tex__t_bytes.sum.pct_of_peak_sustained_elapsed,"
      "sm__cycles_elapsed.avg.per_second";
  Result r = RunCmd({kBin, "metrics", "--chip=GH100", "--set", set});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out,
                  "  dram__bytes.sum.peak_sustained\n"
                  "      peak sustained rate per cycle of: # of bytes accessed in DRAM\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "      % of peak sustained rate over the elapsed cycles of: # of bytes"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "      per second (rate) of: # of cycles elapsed on SM")) << r.out;
  r = RunCmd({kBin, "metrics", "--chip=GH100", "--format=json", "--set", set});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "\"peak sustained rate per cycle of: # of bytes accessed in DRAM\""))
      << r.out;
}

TEST(MetricsCommand, Json) {
  Result r = RunCmd({kBin, "metrics", "--chip=GB100", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out;
  EXPECT_STREQ(doc["chip"].GetString(), "GB100");
  ASSERT_EQ(doc["sets"].Size(), 7u);
  // The verdict's inputs first, in one pass on this chip.
  EXPECT_STREQ(doc["sets"][0]["name"].GetString(), "verdict");
  EXPECT_EQ(doc["sets"][0]["passes"].GetUint64(), 1u);
  const auto& roofline = doc["sets"][1];
  EXPECT_STREQ(roofline["name"].GetString(), "roofline");
  EXPECT_GE(roofline["passes"].GetUint64(), 1u);
  bool fp4_fp6_fp8 = false;
  for (const auto& m : roofline["metrics"].GetArray()) {
    fp4_fp6_fp8 =
        fp4_fp6_fp8 ||
        std::string(m["collected_as"][0].GetString()).find("fp4_fp6_fp8") != std::string::npos;
  }
  EXPECT_TRUE(fp4_fp6_fp8) << r.out;
  EXPECT_EQ(roofline["not_measurable"].Size(), 1u);  // the FP8 dense (sparsity off) peak
  r = RunCmd({kBin, "metrics", "--chips", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out;
  EXPECT_GE(doc["chips"].Size(), 20u);
}

TEST(MetricsCommand, ChipsAndErrors) {
  Result r = RunCmd({kBin, "metrics", "--chips"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* chip : {"GA100", "GA102", "AD102", "GH100", "GB100", "GB202"}) {
    EXPECT_TRUE(Has(r.out, std::string("  ") + chip + " ")) << chip;
  }
  r = RunCmd({kBin, "metrics", "--chip=GX999"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Has(r.err, "chip \"GX999\" is not one the Range Profiler supports")) << r.err;
  r = RunCmd({kBin, "metrics", "--chip=GH100", "--set=rooflin"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Has(r.err, "nearest: roofline")) << r.err;
  EXPECT_EQ(RunCmd({kBin, "metrics", "--format=xml"}).code, 2);
  EXPECT_EQ(RunCmd({kBin, "metrics", "extra"}).code, 2);
  // A library that cannot be loaded: one line, exit 1.
  r = RunCmd({kBin, "metrics"}, {{"CUSCOPE_LIBRARY", "/no/such/libcuscope.so"}});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(Has(r.err, "cuscope: metrics: cannot load /no/such/libcuscope.so")) << r.err;
}

// `--chip gh100` and `--chip H200` were refused with no list of names. An empty value
// is the default, as every empty flag is (Cli.EmptyFlagAndEmptyVariableAreTheDefault).
TEST(MetricsCommand, ChipNamesInAnyCaseAndGpuNamesAreAccepted) {
  for (const char* chip : {"gh100", "H200", "h100", "GH200"}) {
    Result r = RunCmd({kBin, "metrics", "--chip", chip, "--set", "roofline"});
    ASSERT_EQ(r.code, 0) << chip << ": " << r.err;
    EXPECT_TRUE(Has(r.out, "Metric sets on GH100 (Hopper")) << chip << "\n" << r.out;
  }
  Result r = RunCmd({kBin, "metrics", "--chip=a100", "--format=json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "\"GA100\"")) << r.out;
  r = RunCmd({kBin, "metrics", "--chip=GX999"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Has(r.err, "accepted: TU102, TU104, ")) << r.err;
  EXPECT_TRUE(Has(r.err, "GH100")) << r.err;
  EXPECT_TRUE(Has(r.err, "H200")) << r.err;
  const Result plain = RunCmd({kBin, "metrics"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  for (const std::vector<std::string>& argv :
       {std::vector<std::string>{kBin, "metrics", "--chip", ""},
        std::vector<std::string>{kBin, "metrics", "--chip="}}) {
    r = RunCmd(argv);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, plain.out);
  }
}

TEST(MetricsCommand, Help) {
  Result r = RunCmd({kBin, "metrics", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("usage: cuscope metrics", 0), 0u) << r.out;
  for (const char* flag : {"--chip=NAME", "--set=NAME", "--format=FORMAT", "--chips"}) {
    EXPECT_TRUE(Has(r.out, flag)) << flag << "\n" << r.out;
  }
  EXPECT_FALSE(Has(r.out, "CUSCOPE_"));
  EXPECT_TRUE(Has(RunCmd({kBin, "--help"}).out, "cuscope metrics"));
}

// CPU time of the command (user + system), robust to a loaded machine.
double ChildCpuSeconds(const std::vector<std::string>& argv) {
  struct rusage before, after;
  getrusage(RUSAGE_CHILDREN, &before);
  Result r = RunCmd(argv);
  getrusage(RUSAGE_CHILDREN, &after);
  EXPECT_NE(r.code, -1);
  auto secs = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) -
         secs(before.ru_stime);
}

// CPU time of a child that only loads libnvperf_host.so (CUPTI's metrics library, which
// every metric lookup needs): its constructor clears about 100 MB, 0.1 to 0.4 s of page
// faults depending on the machine. cuscope's own work is what the command costs beyond it.
double LibraryLoadCpuSeconds() {
  struct rusage before, after;
  getrusage(RUSAGE_CHILDREN, &before);
  const pid_t pid = fork();
  if (pid == 0) _exit(dlopen(CUSCOPE_NVPERF_HOST, RTLD_NOW | RTLD_LOCAL) != nullptr ? 0 : 1);
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "cannot load " CUSCOPE_NVPERF_HOST;
  getrusage(RUSAGE_CHILDREN, &after);
  auto secs = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return secs(after.ru_utime) - secs(before.ru_utime) + secs(after.ru_stime) -
         secs(before.ru_stime);
}

// Under half a second where loading NVIDIA's library is cheap. Beyond that load (the
// smallest of three) each command costs 0.1-0.3 s on a 2-core VM, nearly all of it
// cuptiProfilerHostInitialize clearing its own memory (perf, 2026-12-02): under 0.4 s.
TEST(MetricsCommand, TheListAndTheOfflineCheckTakeUnderHalfASecond) {
  double load = 1e9;
  for (int i = 0; i < 3; ++i) load = std::min(load, LibraryLoadCpuSeconds());
  // The smallest of three runs each, as for the load: beside other tests (ctest -j)
  // one run's CPU time grows with the contention for memory, not with cuscope's work.
  auto least = [](const std::vector<std::string>& argv) {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) best = std::min(best, ChildCpuSeconds(argv));
    return best;
  };
  double list = least({kBin, "metrics"});
  double check = least({kBin, "run", "--metrics=roofline,stalls,dram__bytes.sum", "--", "true"});
  double typo = least({kBin, "run", "--metrics=rooflin", "--", "true"});
  std::printf(
      "cpu seconds: loading libnvperf_host %.3f; metrics %.3f, offline check %.3f, refused "
      "typo %.3f\n",
      load, list, check, typo);
  EXPECT_LT(list - load, 0.4);
  EXPECT_LT(check - load, 0.4);
  EXPECT_LT(typo - load, 0.4);
}

}  // namespace
