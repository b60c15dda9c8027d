// Collection tested on a real GPU: the examples run under cuscope (by injection and
// by `cuscope run`), and their profiles are checked against what the programs did.
// Skipped, with the reason, where there is no GPU or the examples were not built.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "lib/analysis/gpu_samples.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/regions.h"
#include "lib/model/metrics.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/verdict_text.h"
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "tests/gpu/gpu_paths.h"
#include "tests/test_util.h"

namespace cuscope {
namespace {

using gpu_paths::BuildDir;
using gpu_paths::Exists;
using gpu_paths::SourceDir;
using testing_util::ReadFile;
using testing_util::RunProgram;
using testing_util::TempPath;
using Result = testing_util::ProgramResult;

std::string Library() { return BuildDir() + "/lib/libcuscope.so"; }

// python3 with a CUDA PyTorch: asked once per test binary (an import costs seconds).
bool TorchAvailable() {
  static const bool available =
      RunProgram({"python3", "-c", "import torch; assert torch.cuda.is_available()"}, {})
          .exit_code == 0;
  return available;
}
std::string Example(const std::string& name) { return BuildDir() + "/examples/" + name; }

std::map<std::string, std::string> InjectEnv(const std::string& output) {
  return {{"CUDA_INJECTION64_PATH", Library()},
          {"NVTX_INJECTION64_PATH", Library()},
          {"CUSCOPE_OUTPUT", output},
          {"CUSCOPE_OWNER_PID", ""}};
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Exists("/dev/nvidia0") && !Exists("/dev/nvidiactl")) {
      GTEST_SKIP() << "no NVIDIA GPU on this machine (/dev/nvidia0 missing)";
    }
    if (!Exists(Example("timeline_demo"))) {
      GTEST_SKIP() << "examples not built (no nvcc at configure time)";
    }
  }
};

std::vector<double> EventTimes(const std::string& out, const std::string& name) {
  std::vector<double> ms;
  std::istringstream in(out);
  std::string tag, n;
  double v;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    if (l >> tag >> n >> v && tag == "EVENT" && n == name) ms.push_back(v);
  }
  return ms;
}

int LaunchCount(const std::string& out) {
  size_t at = out.find("LAUNCHES ");
  return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + 9);
}

TEST_F(GpuTest, InjectionRecordsTheWholeTimeline) {
  std::string path = TempPath("timeline_demo.sqlite");
  // The trace alone: the CUDA events below would also time the counters' sweep window
  // around a measured launch (the kernel records do not).
  std::map<std::string, std::string> env = InjectEnv(path);
  env["CUSCOPE_METRICS"] = "none";
  Result r = RunProgram({Example("timeline_demo"), "7"}, env);
  ASSERT_EQ(r.exit_code, 7) << r.err;  // the exit code passes through
  int launches = LaunchCount(r.out);
  ASSERT_GT(launches, 0) << r.out;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status() << "\n" << r.err;
  const model::Profile& p = *profile;

  // Kernel records equal launches.
  EXPECT_EQ(static_cast<int>(p.kernels.size()), launches);
  ASSERT_FALSE(p.devices.empty());
  EXPECT_GT(p.devices[0].sm_count, 0);
  EXPECT_EQ(p.run.exit_reason, "exit");
  EXPECT_EQ(p.run.dropped_records, 0u);

  // Kernel durations agree with CUDA events (kernels of 100 us or more).
  std::map<std::string, std::vector<uint64_t>> durations;
  std::set<uint32_t> streams;
  int graph_kernels = 0;
  for (const auto& k : p.kernels) {
    std::string name = p.str(k.name);
    durations[name.substr(0, name.find('('))].push_back(k.duration_ns());
    streams.insert(k.stream_id);
    if (k.graph_id != 0) ++graph_kernels;
    EXPECT_GT(k.grid.x, 0u);
    EXPECT_GT(k.block.x, 0u);
    EXPECT_GT(k.correlation_id, 0u);
  }
  EXPECT_EQ(graph_kernels, 25);
  EXPECT_GE(streams.size(), 2u);
  std::vector<double> busy_events = EventTimes(r.out, "busy");
  ASSERT_EQ(busy_events.size(), 3u);
  ASSERT_EQ(durations["busy"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    double event_ns = busy_events[i] * 1e6;
    double kernel_ns = static_cast<double>(durations["busy"][i]);
    ASSERT_GE(kernel_ns, 100000) << "busy kernel too short for the 5% check";
    EXPECT_NEAR(kernel_ns, event_ns, 0.05 * event_ns) << "busy launch " << i;
  }
  std::vector<double> saxpy_events = EventTimes(r.out, "saxpy");
  ASSERT_EQ(durations["saxpy"].size(), saxpy_events.size());
  for (size_t i = 0; i < saxpy_events.size(); ++i) {
    // The first launch's event also times lazy module loading; the criterion is on
    // kernels of 100 us or more, and saxpy runs about 64 us on an H200.
    double event_ns = saxpy_events[i] * 1e6;
    if (durations["saxpy"][i] >= 100000) {
      EXPECT_NEAR(durations["saxpy"][i], event_ns, 0.05 * event_ns);
    }
  }

  // Copies from pageable and pinned memory, both directions; one memset.
  int htod_pageable = 0, htod_pinned = 0, dtoh = 0;
  for (const auto& m : p.memcpys) {
    if (m.kind == model::MemcpyKind::kHtoD && m.src_kind == model::MemoryKind::kPageable)
      ++htod_pageable;
    if (m.kind == model::MemcpyKind::kHtoD && m.src_kind == model::MemoryKind::kPinned)
      ++htod_pinned;
    if (m.kind == model::MemcpyKind::kDtoH) ++dtoh;
  }
  EXPECT_GE(htod_pageable, 1);
  EXPECT_EQ(htod_pinned, 1);
  EXPECT_GE(dtoh, 2);
  ASSERT_EQ(p.memsets.size(), 1u);
  EXPECT_EQ(p.memsets[0].bytes, uint64_t{1} << 26);
  EXPECT_FALSE(p.syncs.empty());

  // API calls: launches (with correlation to kernels), graph launches.
  std::map<std::string, int> api;
  std::set<uint32_t> api_correlations;
  for (const auto& a : p.api_calls) {
    ++api[p.str(a.name)];
    api_correlations.insert(a.correlation_id);
  }
  EXPECT_EQ(api["cudaGraphLaunch"], 5) << "graph launches";
  // 8 direct launches and the 5 made while capturing the graph.
  EXPECT_EQ(api["cudaLaunchKernel"], 13);
  int kernels_with_api = 0;
  for (const auto& k : p.kernels) kernels_with_api += api_correlations.count(k.correlation_id);
  EXPECT_EQ(kernels_with_api, launches);

  // NVTX ranges, push/pop and start/end, and the mark.
  std::multiset<std::string> ranges;
  for (const auto& rr : p.ranges) ranges.insert(p.str(rr.name));
  EXPECT_EQ(ranges.count("setup"), 1u);
  EXPECT_EQ(ranges.count("copies"), 1u);
  EXPECT_EQ(ranges.count("compute"), 1u);
  EXPECT_EQ(ranges.count("saxpy"), 3u);
  EXPECT_EQ(ranges.count("graph"), 1u);
  EXPECT_EQ(ranges.count("done"), 1u);

  // The Chrome trace parses and has the categories.
  std::string trace = TempPath("timeline_demo.trace.json");
  ASSERT_TRUE(report::WriteChromeTrace(p, trace).ok());
  rapidjson::Document doc;
  std::string json = ReadFile(trace);
  ASSERT_FALSE(doc.Parse(json.c_str()).HasParseError());
  std::set<std::string> cats;
  for (const auto& e : doc["traceEvents"].GetArray()) {
    if (e.HasMember("cat")) cats.insert(e["cat"].GetString());
  }
  for (const char* c : {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_sync",
                        "gpu_user_annotation", "ac2g"}) {
    EXPECT_EQ(cats.count(c), 1u) << "category " << c;
  }
}

TEST_F(GpuTest, CuscopeRunPassesExitCodeAndWritesProfile) {
  std::string path = TempPath("run_demo.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--top=5", "--",
                         Example("timeline_demo"), "5"},
                        {});
  ASSERT_EQ(r.exit_code, 5) << r.err;
  EXPECT_NE(r.err.find("GPU kernels"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("profile written to " + path), std::string::npos) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(static_cast<int>(profile->kernels.size()), LaunchCount(r.out));
  // The report command reads it.
  Result rep = RunProgram({BuildDir() + "/bin/cuscope", "report", path, "--format=json"}, {});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  rapidjson::Document doc;
  EXPECT_FALSE(doc.Parse(rep.out.c_str()).HasParseError());
}

TEST_F(GpuTest, ForkedChildDoesNotTouchTheProfile) {
  std::string path = TempPath("fork_demo.sqlite");
  Result r = RunProgram({Example("fork_demo")}, InjectEnv(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("child_status 0"), std::string::npos) << r.out;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->kernels.size(), 20u);
  EXPECT_EQ(profile->run.exit_reason, "exit");
}

TEST_F(GpuTest, SigtermWritesTheProfileAndEndsAsTheProgramWould) {
  std::string path = TempPath("sigterm.sqlite");
  auto env = InjectEnv(path);
  env["CUSCOPE_VERBOSE"] = "1";
  auto t0 = std::chrono::steady_clock::now();
  Result r = RunProgram({Example("launch_loop"), "100000000"}, env, 3000);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 3 + 5) << r.err;  // the handler waits at most 3 s
  std::cerr << "SIGTERM: ended after " << seconds << " s\n" << r.err;
  EXPECT_EQ(r.signal, SIGTERM) << "exit " << r.exit_code << "\n" << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status() << "\n" << r.err;
  EXPECT_GT(profile->kernels.size(), 1000u);
  EXPECT_EQ(profile->run.exit_reason, "signal 15");
}

TEST_F(GpuTest, InvalidSettingDisablesProfilingButNotTheProgram) {
  std::string path = TempPath("invalid.sqlite");
  auto env = InjectEnv(path);
  env["CUSCOPE_API"] = "bogus";
  Result r = RunProgram({Example("fork_demo")}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("CUSCOPE_API=\"bogus\" is not valid; accepted: default, all or none"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(Exists(path));
}

TEST_F(GpuTest, UnwritableOutputIsOneLineAndTheProgramRunsOn) {
  auto env = InjectEnv("/nonexistent-dir/x.sqlite");
  Result r = RunProgram({Example("fork_demo")}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cannot write the profile"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("LAUNCHES 20"), std::string::npos);
}

TEST_F(GpuTest, PyTorchUnderCuscopeRun) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string path = TempPath("torch_loop.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--", "python3",
                         SourceDir() + "/examples/python/torch_loop.py", "20"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status() << "\n" << r.err;
  EXPECT_GE(profile->kernels.size(), 20u * 4);
  std::multiset<std::string> ranges;
  for (const auto& rr : profile->ranges) ranges.insert(profile->str(rr.name));
  EXPECT_EQ(ranges.count("step"), 20u);
  EXPECT_EQ(ranges.count("matmul"), 20u);
}

const analysis::KernelCounters* Find(const std::vector<analysis::KernelCounters>& all,
                                     const std::string& prefix) {
  for (const auto& k : all) {
    if (k.name.rfind(prefix, 0) == 0) return &k;
  }
  return nullptr;
}

// Issue 3: exact counts, verdicts, default (kernel replay, one sample per signature).
TEST_F(GpuTest, RooflineCountersAreExactAndVerdictsRight) {
  std::string path = TempPath("counters_roofline.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path,
                         "--metrics=roofline", "--", Example("counters_demo"), "5", "3", "1000"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->run.notes.counters_strategy, "kernel replay") << r.err;
  std::vector<analysis::KernelCounters> all = analysis::AnalyzeCounters(*profile);
  const auto* saxpy = Find(all, "saxpy");
  const auto* sgemm = Find(all, "sgemm_naive");
  const auto* tiny = Find(all, "one_block");
  ASSERT_TRUE(saxpy && sgemm && tiny) << r.err;
  const double n = 1 << 26, m = 2048;
  EXPECT_EQ(saxpy->fp32_flops, 2 * n);
  EXPECT_EQ(sgemm->fp32_flops, 2 * m * m * m);
  EXPECT_NEAR(saxpy->dram_bytes, 12 * n, 0.03 * 12 * n);
  EXPECT_EQ(saxpy->verdict.bound, analysis::Bound::kDram) << report::CountersReason(*saxpy);
  EXPECT_EQ(sgemm->verdict.bound, analysis::Bound::kL1) << report::CountersReason(*sgemm);
  EXPECT_EQ(tiny->verdict.bound, analysis::Bound::kLatency) << report::CountersReason(*tiny);
  EXPECT_TRUE(tiny->verdict.small_grid);
  std::cerr << "saxpy: " << report::CountersReason(*saxpy)
            << "\nsgemm: " << report::CountersReason(*sgemm)
            << "\none_block: " << report::CountersReason(*tiny) << "\n";
  // Measured launches are marked; the kernel table's timing comes from the others.
  int measured = 0;
  for (const auto& k : profile->kernels)
    measured += (k.flags & model::kKernelCountersMeasured) != 0;
  EXPECT_EQ(measured, 3);
  EXPECT_EQ(profile->kernels.size(), 1008u);
  // The chart is written.
  Result rep = RunProgram(
      {BuildDir() + "/bin/cuscope", "report", path, "--roofline", TempPath("roofline.svg")}, {});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("DRAM-bound"), std::string::npos) << rep.out;
}

// No counter flags: the default measures the verdict set by the sweep, every launch's
// time kept, and the report says how much of the kernel time has a verdict.
TEST_F(GpuTest, NoFlagsGiveVerdictsByTheSweep) {
  std::string path = TempPath("counters_default.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--",
                         Example("counters_demo"), "5", "3", "1000"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->run.notes.counters_strategy, "sweep") << r.err;
  std::vector<analysis::KernelCounters> all = analysis::AnalyzeCounters(*profile);
  const auto* saxpy = Find(all, "saxpy");
  const auto* sgemm = Find(all, "sgemm_naive");
  const auto* tiny = Find(all, "one_block");
  ASSERT_TRUE(saxpy && sgemm && tiny) << r.err;
  for (const auto* k : {saxpy, sgemm, tiny}) {
    EXPECT_NE(k->verdict.bound, analysis::Bound::kUnknown) << k->name;
    std::cerr << k->name << ": " << report::CountersReason(*k) << "\n";
  }
  EXPECT_EQ(saxpy->verdict.bound, analysis::Bound::kDram) << report::CountersReason(*saxpy);
  EXPECT_EQ(tiny->verdict.bound, analysis::Bound::kLatency) << report::CountersReason(*tiny);
  EXPECT_EQ(profile->kernels.size(), 1008u);
  EXPECT_NE(r.err.find("verdicts cover 100"), std::string::npos) << r.err;
  // The window's later launches of a sampled signature are kept as further samples.
  EXPECT_NE(profile->run.notes.counters_summary.find("further samples"), std::string::npos)
      << profile->run.notes.counters_summary;
  EXPECT_GT(saxpy->sets + sgemm->sets + tiny->sets, 3u);
  std::cerr << "sweep: " << profile->run.notes.counters_summary << "\n";
}

// Issue 3: every launch with the 6 metrics of measured.md, rotating passes.
TEST_F(GpuTest, RotateMeasuresEveryLaunchExactly) {
  std::string path = TempPath("counters_rotate.sqlite");
  std::string six =
      std::string("gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,") +
      metrics::kFadd + "," + metrics::kFmul + "," + metrics::kFfma;
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--metrics=" + six,
                         "--per_signature=all", "--", Example("counters_demo"), "5", "3", "1000"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->run.notes.counters_strategy, "rotate");
  int saxpy_sets = 0, tiny_sets = 0;
  for (const auto& set : profile->counters) {
    std::string name = profile->str(set.name);
    double ffma = set.value(profile->strings, metrics::kFfma, -1);
    if (name.rfind("saxpy", 0) == 0) {
      ++saxpy_sets;
      EXPECT_EQ(ffma, double(1 << 26));
      EXPECT_NEAR(set.value(profile->strings, "dram__bytes_read.sum", 0), 8.0 * (1 << 26),
                  0.03 * 8.0 * (1 << 26));
    }
    if (name.rfind("one_block", 0) == 0) ++tiny_sets;
    EXPECT_EQ(set.strategy, model::CounterStrategy::kRotate);
    EXPECT_EQ(set.correlation_ids.size(), 2u);
  }
  EXPECT_GT(tiny_sets, 100);
  // Every launch but the first of each run of a signature (a window opens between
  // launches) is in a set, but the last window of a run when it had no partner.
  int sgemm_sets = 0;
  for (const auto& set : profile->counters) {
    if (profile->str(set.name).rfind("sgemm_naive", 0) == 0) ++sgemm_sets;
  }
  EXPECT_GE(sgemm_sets, 1);  // launches 2 and 3 of 3
  EXPECT_GE(saxpy_sets, 1);  // launches 2+3 (4+5 then lack their second pass)
  // Windows grow to 32 launches: the last set of the 1-block run (up to 64 launches)
  // ends incomplete; about 960 of 1,008 launches are in complete sets.
  ASSERT_TRUE(profile->run.notes.counters_samples_complete.has_value());
  const uint64_t complete = *profile->run.notes.counters_samples_complete;
  EXPECT_GE(complete * 2, 900u) << "launches in complete sets, of 1,008";
  // FFMA is an instruction counter: CUPTI's kernel records were held off while the sets
  // ran, and the launches measured in them got records made from their launches,
  // placed from their API calls with their samples' durations. One record a launch.
  size_t made = 0, placed = 0;
  for (const model::KernelRecord& k : profile->kernels) {
    if (!(k.flags & model::kKernelFromLaunch)) continue;
    ++made;
    placed += (k.flags & model::kKernelTimePlaced) != 0 && k.end_ns > k.start_ns ? 1 : 0;
  }
  EXPECT_EQ(profile->kernels.size(), 1008u);
  EXPECT_GE(made, 900u);
  EXPECT_EQ(placed, made);
  // One context and one stream in the demo: made records name them as CUPTI's do.
  std::set<std::pair<uint32_t, uint32_t>> tracks;
  for (const model::KernelRecord& k : profile->kernels) tracks.insert({k.context_id, k.stream_id});
  EXPECT_EQ(tracks.size(), 1u);
  // The sampler's held time, named by what it did: passes' Start and Stop and the
  // counter images at least (lib/collect/held_phases.h).
  std::map<std::string, double> held_ms;
  for (const model::OverheadRecord& o : profile->overheads) {
    const std::string& kind = profile->str(o.kind);
    if (model::IsCountersOverhead(kind)) held_ms[kind] += (o.end_ns - o.start_ns) / 1e6;
  }
  EXPECT_GT(held_ms[model::kCountersMeasure], 0.0);
  EXPECT_GT(held_ms[model::kCountersImage], 0.0);
  for (const auto& [kind, ms] : held_ms) std::cerr << kind << ": " << ms << " ms\n";
  std::cerr << "rotate: " << profile->counters.size() << " sets (saxpy " << saxpy_sets
            << ", one_block " << tiny_sets << "); "
            << profile->run.notes.counters_launches_measured.value_or(0) << " launches measured\n";
}

// Idle launch callbacks (lib/collect/launch_switch.h): 3,000 launches of one kernel,
// sampled once, turn the launch callbacks off; a SAXPY on a new grid after a pause
// wakes them from its kernel record, and a later launch of it is measured. Both
// strategies; every launch keeps its kernel record.
TEST_F(GpuTest, IdleLaunchCallbacksWakeForANewSignature) {
  const uint32_t late_grid = ((1u << 25) + 255) / 256;
  for (const std::string replay : {"kernel", "rotate"}) {
    SCOPED_TRACE(replay);
    std::string path = TempPath("idle_" + replay + ".sqlite");
    Result r = RunProgram(
        {BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none",
         "--metrics=roofline", "--per-signature=1", "--replay=" + replay, "--idle-launches=200",
         "--flush-period-ms=200", "--", Example("counters_demo"), "0", "0", "3000", "1500", "60"},
        {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto profile = store::LoadProfile(path);
    ASSERT_TRUE(profile.ok()) << profile.status();
    const std::string idle = profile->run.notes.counters_idle;
    std::cerr << replay << ": counters.idle: " << idle << "\n";
    EXPECT_NE(idle.find("off 1 time(s)"), std::string::npos) << idle;
    EXPECT_NE(idle.find("back on 1 time(s), for saxpy"), std::string::npos) << idle;
    EXPECT_NE(idle.find(absl::StrCat("<<<(", late_grid, ",1,1)")), std::string::npos) << idle;
    int one_block = 0, late = 0;
    for (const auto& set : profile->counters) {
      const std::string name = profile->str(set.name);
      if (name.rfind("one_block", 0) == 0) ++one_block;
      if (name.rfind("saxpy", 0) == 0 && set.grid.x == late_grid) ++late;
    }
    EXPECT_EQ(one_block, 1);
    EXPECT_EQ(late, 1) << "the late signature is measured once the callbacks are back";
    EXPECT_EQ(profile->kernels.size(), 3060u);  // every launch, callbacks on or off
  }
}

// Every-launch rotate under a time budget: 200 SAXPYs 50 ms apart (10 s). After a set,
// the budget allows none for seconds, so the launch callbacks go off and come back; sets
// begin again, and every launch keeps its kernel record.
TEST_F(GpuTest, RotateBudgetSpacesSetsAndTurnsTheCallbacksOff) {
  std::string path = TempPath("rotate_budget.sqlite");
  Result r = RunProgram(
      {BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none",
       "--metrics=roofline", "--per-signature=all", "--replay=rotate", "--rotate-budget-pct=20",
       "--flush-period-ms=200", "--", Example("counters_demo"), "0", "0", "0", "0", "200"},
      {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  const std::string summary = profile->run.notes.counters_summary;
  const std::string idle = profile->run.notes.counters_budget_idle;
  std::cerr << "counters.summary: " << summary << "\ncounters.budget_idle: " << idle << "\n";
  EXPECT_NE(summary.find("of the time outside them (budget 20%)"), std::string::npos) << summary;
  EXPECT_NE(idle.find("launch callbacks off"), std::string::npos) << idle;
  EXPECT_EQ(idle.find("back on 0 time(s)"), std::string::npos) << "they come back for the next set";
  int sets = 0;
  for (const auto& set : profile->counters) sets += profile->str(set.name).rfind("saxpy", 0) == 0;
  EXPECT_GE(sets, 2) << "sets begin again once the budget allows them";
  // Without a budget nearly all 200 launches run inside windows; with 20%, about a
  // sixth of the time (and of these evenly spaced launches) is in sets.
  const int measured = static_cast<int>(profile->run.notes.counters_launches_measured.value_or(0));
  EXPECT_GT(measured, 0);
  EXPECT_LT(measured, 100) << "the budget spaces the sets";
  EXPECT_EQ(profile->kernels.size(), 200u);  // every launch, callbacks on or off
}

// A step of 100 launches, each its own signature (examples/step_loop): with a budget,
// rotate's windows hold 64 launches of it, the next pass one step later, and the
// launches between keep CUPTI's kernel records (held off only in windows). FFMA, an
// instruction counter, is exact in every sample: each pass measured the same launch.
TEST_F(GpuTest, RotateBudgetWindowsShorterThanTheStep) {
  std::string path = TempPath("rotate_budget_step.sqlite");
  const int steps = 8000, kernels = 100;
  std::string six =
      std::string("gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,") +
      metrics::kFadd + "," + metrics::kFmul + "," + metrics::kFfma;
  Result r = RunProgram(
      {BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none", "--metrics=" + six,
       "--per-signature=all", "--replay=rotate", "--rotate-budget-pct=30", "--",
       Example("step_loop"), std::to_string(steps), std::to_string(kernels)},
      {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::cerr << r.out;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  const std::string summary = profile->run.notes.counters_summary;
  std::cerr << "counters.summary: " << summary << "\n";
  EXPECT_EQ(profile->kernels.size(), size_t{steps} * kernels);  // every launch, gaps included
  std::set<uint32_t> sampled;                                   // grid sizes with a sample
  size_t samples = 0;
  for (const auto& set : profile->counters) {
    if (profile->str(set.name).rfind("saxpy", 0) != 0) continue;
    ++samples;
    sampled.insert(set.grid.x);
    const double ffma = set.value(profile->strings, metrics::kFfma, -1);
    ASSERT_EQ(ffma, double(set.grid.x) * 256) << "grid " << set.grid.x;
  }
  EXPECT_GE(samples, 64u);
  EXPECT_GE(sampled.size(), size_t{kernels} * 95 / 100) << summary;
  // Windows of 64 of the step's 100 launches: sets left launches of every step out.
  const int measured = static_cast<int>(profile->run.notes.counters_launches_measured.value_or(0));
  EXPECT_GT(measured, 0);
  EXPECT_LT(measured, steps * kernels / 4) << summary;
  EXPECT_EQ(summary.find("mismatch"), std::string::npos) << summary;
  // The share of the time outside the sets, as the summary says it: at most the budget.
  const size_t at = summary.find("% of the time outside them");
  ASSERT_NE(at, std::string::npos) << summary;
  const size_t from = summary.rfind(' ', at) + 1;
  EXPECT_LE(std::atoi(summary.c_str() + from), 30) << summary;
}

TEST_F(GpuTest, UnknownMetricIsRefusedWithNearestNames) {
  std::string path = TempPath("bad_metric.sqlite");
  // `cuscope run` refuses it for this GPU's chip before the program starts.
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path,
                         "--metrics=dram__byte.sum", "--", Example("counters_demo"), "1", "0", "1"},
                        {});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nor a metric of GH100"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nearest: dram__bytes"), std::string::npos) << r.err;
  // Injected without the command, the library refuses it at the first measured launch.
  auto env = InjectEnv(path);
  env["CUSCOPE_METRICS"] = "dram__byte.sum";
  r = RunProgram({Example("counters_demo"), "1", "0", "1"}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("metric \"dram__byte.sum\" is not available on GH100"), std::string::npos)
      << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(profile->kernels.size(), 2u);  // the trace went on
  EXPECT_NE(profile->run.notes.counters_status.find("dram__bytes"), std::string::npos);
}

TEST_F(GpuTest, Bf16GemmIsComputeBoundOnTensorCores) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string path = TempPath("bf16_gemm.sqlite");
  Result r =
      RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--metrics=roofline",
                  "--launch_skip=1", "--kernels=gemm|sm90|nvjet|cutlass", "--", "python3",
                  SourceDir() + "/examples/python/bf16_gemm.py", "8192", "3"},
                 {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  std::vector<analysis::KernelCounters> all = analysis::AnalyzeCounters(*profile);
  ASSERT_FALSE(all.empty()) << r.err;
  const auto& gemm = all[0];
  std::cerr << "bf16 GEMM " << gemm.name << ": " << report::CountersReason(gemm)
            << "; tensor FLOPs " << gemm.tensor_flops << " vs 2n^3 "
            << 2.0 * 8192.0 * 8192.0 * 8192.0 << "\n";
  EXPECT_EQ(gemm.verdict.bound, analysis::Bound::kCompute) << report::CountersReason(gemm);
  double expected = 2.0 * 8192.0 * 8192.0 * 8192.0 / (gemm.duration_ns * 1e-9);
  EXPECT_NEAR(gemm.tensor_flops_per_s, expected, 0.05 * expected);
}

// Issue 4: regions match the kernels launched inside them (C++, NVTX).
TEST_F(GpuTest, CppRegionsHoldTheirKernels) {
  std::string path = TempPath("regions_demo.sqlite");
  Result r = RunProgram({Example("timeline_demo")}, InjectEnv(path));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok());
  std::map<std::string, analysis::RegionSummaryRow> rows;
  for (auto& row : analysis::SummarizeRegions(*profile)) rows[row.path] = row;
  ASSERT_EQ(rows.count("compute/saxpy"), 1u);
  EXPECT_EQ(rows["compute/saxpy"].kernel_count, 3u);
  ASSERT_EQ(rows["compute/saxpy"].top_kernels.size(), 1u);
  EXPECT_EQ(rows["compute/saxpy"].top_kernels[0].name.rfind("saxpy", 0), 0u);
  EXPECT_EQ(rows["compute"].kernel_count, 8u);  // 3 saxpy + 3 busy + 2 scale
  EXPECT_EQ(rows["setup"].kernel_count, 0u);
}

// Issue 4: a linked application with scopes; injected as well, one profiler.
TEST_F(GpuTest, LinkedScopesAndInjectionGiveOneProfiler) {
  if (!Exists(Example("scopes_demo"))) GTEST_SKIP() << "scopes_demo not built";
  std::string own = TempPath("scopes_own.sqlite");
  Result r = RunProgram({Example("scopes_demo"), own}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  auto profile = store::LoadProfile(own);
  ASSERT_TRUE(profile.ok()) << profile.status() << r.err;
  std::map<std::string, analysis::RegionSummaryRow> rows;
  for (auto& row : analysis::SummarizeRegions(*profile)) rows[row.path] = row;
  EXPECT_EQ(rows["step"].stats.count, 3u);
  EXPECT_EQ(rows["step/compute"].kernel_count, 12u);
  EXPECT_EQ(rows["step/init"].kernel_count, 3u);

  // Injected too: the program's Start runs before its first CUDA call, so its session
  // is the one; the injection (at cuInit) finds it running and adds nothing. One
  // profile, the program's.
  std::string injected = TempPath("scopes_injected.sqlite");
  std::string linked = TempPath("scopes_linked.sqlite");
  r = RunProgram({Example("scopes_demo"), linked}, InjectEnv(injected));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Exists(injected));
  EXPECT_EQ(r.err.find("cuscope: profiling pid"), r.err.rfind("cuscope: profiling pid")) << r.err;
  profile = store::LoadProfile(linked);
  ASSERT_TRUE(profile.ok()) << profile.status();
  rows.clear();
  for (auto& row : analysis::SummarizeRegions(*profile)) rows[row.path] = row;
  EXPECT_EQ(rows["step/compute"].kernel_count, 12u);
}

// Issue 4: PyTorch, unmodified, eager and compiled; per-region report.
TEST_F(GpuTest, PyTorchRegionsEagerAndCompiled) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::map<std::string, std::map<std::string, analysis::RegionSummaryRow>> runs;
  for (std::string mode : {"eager", "compiled"}) {
    std::string path = TempPath("transformer_" + mode + ".sqlite");
    std::vector<std::string> cmd = {BuildDir() + "/bin/cuscope",
                                    "run",
                                    "--output=" + path,
                                    "--report=none",
                                    "--",
                                    "python3",
                                    SourceDir() + "/examples/python/transformer_regions.py"};
    if (mode == "compiled") cmd.push_back("--compile");
    Result r = RunProgram(cmd, {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto profile = store::LoadProfile(path);
    ASSERT_TRUE(profile.ok()) << profile.status();
    for (auto& row : analysis::SummarizeRegions(*profile)) runs[mode][row.path] = row;
    Result rep = RunProgram({BuildDir() + "/bin/cuscope", "report", path, "--top=8"}, {});
    std::cerr << "=== " << mode << "\n" << rep.out.substr(rep.out.find("Regions")) << "\n";
  }
  for (const char* path : {"step", "step/forward", "step/forward/attention", "step/forward/mlp",
                           "step/backward", "step/optimizer"}) {
    EXPECT_EQ(runs["eager"][path].stats.count, 5u) << path;
    EXPECT_EQ(runs["compiled"][path].stats.count, 5u) << path;
  }
  // Fusion: the compiled forward launches fewer kernels.
  EXPECT_LT(runs["compiled"]["step/forward"].kernel_count,
            runs["eager"]["step/forward"].kernel_count);
  std::cerr << "forward kernels: eager " << runs["eager"]["step/forward"].kernel_count
            << ", compiled " << runs["compiled"]["step/forward"].kernel_count << "\n";
}

// Issue 4: a region measured as a whole (user range). scopes_demo's "compute" scope
// holds 4 launches that each multiply 2^20 floats once.
TEST_F(GpuTest, RegionCountersOfACppScopeAreExact) {
  if (!Exists(Example("scopes_demo"))) GTEST_SKIP() << "scopes_demo not built";
  std::string path = TempPath("region_counters_cpp.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none",
                         "--metrics=roofline", "--regions=^compute$", "--region_counters=1", "--",
                         // scopes_demo starts its own session before CUDA starts (the
                         // injected one joins it): give it the same output path.
                         Example("scopes_demo"), path, "8"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->run.notes.counters_strategy, "region (user range)") << r.err;
  ASSERT_EQ(profile->counters.size(), 1u) << r.err;  // one sample (per_signature=1)
  const model::CounterSet& set = profile->counters[0];
  EXPECT_EQ(profile->str(set.name), "step/compute");
  EXPECT_EQ(set.strategy, model::CounterStrategy::kUserRange);
  EXPECT_TRUE(set.correlation_ids.empty());
  std::vector<analysis::KernelCounters> all = analysis::AnalyzeCounters(*profile);
  const auto* region = Find(all, "step/compute");
  ASSERT_NE(region, nullptr);
  EXPECT_TRUE(region->region);
  EXPECT_EQ(region->fp32_flops, 4.0 * (1 << 20));
  EXPECT_GT(region->duration_ns, 0);
  EXPECT_NE(region->verdict.bound, analysis::Bound::kUnknown);
  std::cerr << "step/compute: " << region->fp32_flops << " FP32 FLOPs in " << region->duration_ns
            << " ns; " << report::CountersReason(*region) << "\n";
  // The instances after the measured ones are traced as usual: their kernels are in
  // the region report (passes = measured instances, the rest traced).
  size_t passes = set.passes;
  size_t compute_kernels = 0;
  for (const auto& row : analysis::SummarizeRegions(*profile)) {
    if (row.path == "step/compute") compute_kernels = row.kernel_count;
  }
  EXPECT_EQ(compute_kernels, 4 * (8 - passes)) << "passes " << passes;
}

TEST_F(GpuTest, RegionCountersOfThePyTorchForwardPass) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string path = TempPath("region_counters_forward.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none",
                         "--metrics=roofline", "--regions=^forward$", "--region_counters=1", "--",
                         "python3", SourceDir() + "/examples/python/transformer_regions.py",
                         // one forward pass per pass of the roofline set (7 on GH100), and more
                         "--steps", "12"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  std::vector<analysis::KernelCounters> all = analysis::AnalyzeCounters(*profile);
  const auto* forward = Find(all, "step/forward");
  ASSERT_NE(forward, nullptr) << r.err;
  EXPECT_TRUE(forward->region);
  // The block's forward in FP32 (no TF32): linear layers 2*B*T*(3d^2 + d^2 + 2*d*4d) and
  // attention 2 * 2*B*T^2*d, B=8, T=256, d=512: 13.96 GFLOP, plus a little elementwise.
  const double b = 8, t = 256, d = 512;
  const double expected = 2 * b * t * (3 * d * d + d * d + 8 * d * d) + 4 * b * t * t * d;
  const double flops = forward->total_flops;
  EXPECT_GT(flops, 0.98 * expected);
  EXPECT_LT(flops, 1.10 * expected);
  EXPECT_NE(forward->verdict.bound, analysis::Bound::kUnknown);
  std::cerr << "step/forward: " << flops << " FLOPs (" << flops / expected
            << " of the matmuls' 2mnk), " << forward->duration_ns << " ns, DRAM "
            << forward->dram_bytes << " B; " << analysis::VerdictName(forward->verdict.bound)
            << ": " << report::CountersReason(*forward) << "\n";
  Result rep = RunProgram({BuildDir() + "/bin/cuscope", "report", path, "--top=5"}, {});
  EXPECT_EQ(rep.exit_code, 0);
  std::cerr << rep.out.substr(
                   rep.out.find("Counters") == std::string::npos ? 0 : rep.out.find("Counters"))
            << "\n";
}

// Issue 4: capture control.
TEST_F(GpuTest, CaptureBetweenProfilerStartAndStop) {
  std::string path = TempPath("capture_api.sqlite");
  Result r =
      RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--capture=profiler-api",
                  "--report=none", "--", Example("profiler_api_demo")},
                 {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->kernels.size(), 20u) << r.err;
  EXPECT_EQ(profile->run.notes.capture_windows, 1);
}

TEST_F(GpuTest, CaptureFirstInstancesOfARegion) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string all_path = TempPath("capture_all.sqlite");
  std::string two_path = TempPath("capture_two.sqlite");
  std::string script = SourceDir() + "/examples/python/transformer_regions.py";
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + all_path,
                         "--report=none", "--", "python3", script},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + two_path, "--report=none",
                  "--capture=range:^step$:2", "--", "python3", script},
                 {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto all = store::LoadProfile(all_path);
  auto two = store::LoadProfile(two_path);
  ASSERT_TRUE(all.ok() && two.ok());
  std::map<std::string, analysis::RegionSummaryRow> rows_all, rows_two;
  for (auto& row : analysis::SummarizeRegions(*all)) rows_all[row.path] = row;
  for (auto& row : analysis::SummarizeRegions(*two)) rows_two[row.path] = row;
  // Every instance is still a region; kernels only in the first two steps.
  EXPECT_EQ(rows_two["step"].stats.count, 5u);
  EXPECT_EQ(rows_two["step"].kernel_count * 5, rows_all["step"].kernel_count * 2);
  // Nothing from the warm-up or the last three steps. (Autograd launches backward
  // kernels from its own thread: captured, but attributed to no region of the main
  // thread, hence the total rather than the region count here.)
  EXPECT_LT(two->kernels.size() * 2, all->kernels.size());
  std::cerr << "capture range: " << two->kernels.size() << " kernels of " << all->kernels.size()
            << "; step kernels " << rows_two["step"].kernel_count << " of "
            << rows_all["step"].kernel_count << "\n";
  EXPECT_EQ(two->run.notes.capture_windows, 2);
}

// Issue 4: counters limited to kernels inside matching regions.
TEST_F(GpuTest, CountersOnlyInsideMatchingRegions) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string path = TempPath("region_counters.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none",
                         "--metrics=roofline", "--regions=^mlp$", "--", "python3",
                         SourceDir() + "/examples/python/transformer_regions.py"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_FALSE(profile->counters.empty()) << r.err;
  // Every measured launch was made inside an `mlp` range on its thread.
  std::map<uint32_t, const model::ApiRecord*> api;
  for (const auto& a : profile->api_calls) api[a.correlation_id] = &a;
  for (const auto& set : profile->counters) {
    for (uint32_t corr : set.correlation_ids) {
      ASSERT_EQ(api.count(corr), 1u);
      const model::ApiRecord* a = api[corr];
      bool inside = false;
      for (const auto& range : profile->ranges) {
        inside = inside || (profile->str(range.name) == "mlp" && range.thread_id == a->thread_id &&
                            range.start_ns <= a->start_ns && a->start_ns <= range.end_ns);
      }
      EXPECT_TRUE(inside) << profile->str(set.name);
    }
  }
  std::cerr << "region counters: " << profile->counters.size() << " signatures measured in mlp\n";
}

// Issue 2: another CUPTI client (torch.profiler) in a traced process. Kineto registers
// its own activity callbacks and disables the kinds when it stops (run of 2026-11-30
// 12:30: 100 events for torch.profiler, fewer than 300 kernels for cuscope, nothing
// said); cuscope's end-of-run probe finds it and says so.
TEST_F(GpuTest, TorchProfilerInsideATracedProgram) {
  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string path = TempPath("with_torch_profiler.sqlite");
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--report=none",
                         "--flush_period_ms=50", "--", "python3",
                         SourceDir() + "/examples/python/with_torch_profiler.py"},
                        {});
  std::cerr << r.err << r.out;
  ASSERT_EQ(r.exit_code, 0) << r.err;  // the program runs on
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_GE(profile->kernels.size(), 100u);  // at least the launches before torch.profiler
  std::cerr << "cuscope kernels: " << profile->kernels.size() << "\n";
  // Either cuscope kept every record, or it said in one line what it lost.
  if (profile->kernels.size() < 300u) {  // the 0.3 s after torch.profiler add more
    EXPECT_NE(r.err.find("another CUPTI client"), std::string::npos) << r.err;
  }
}

// GPU metrics sampling (docs/gpu-metrics.md): every kernel of the counter demo keeps
// its record, samples arrive with their configuration, and the sampled rates tell a
// DRAM-bound SAXPY from the naive SGEMM; then a bf16 GEMM through PyTorch reads a busy
// tensor pipe. The rates are printed for docs/validation.md.
TEST_F(GpuTest, GpuMetricsSampleEveryKernelWithTheTimelineKept) {
  std::string path = TempPath("gpu_metrics.sqlite");
  // About 2 s of kernels: sampling is in bursts (gpu_metrics_burst_samples), and the
  // first samples of a run come about 0.7 s after sampling starts (H200).
  Result r = RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + path, "--gpu-metrics=1",
                         "--", Example("counters_demo"), "4000", "300", "1000"},
                        {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->kernels.size(), 5300u) << r.err;  // no launch lost
  EXPECT_EQ(profile->run.notes.gpu_metrics_status, "") << profile->run.notes.gpu_metrics_status;
  ASSERT_EQ(profile->sample_configs.size(), 1u) << profile->run.notes.gpu_metrics_status;
  std::cerr << "sampled metrics: " << profile->run.notes.gpu_metrics_metrics
            << "\nleft out: " << profile->run.notes.gpu_metrics_left_out
            << "\nsamples: " << profile->samples.size()
            << "\nsampled: " << profile->run.notes.gpu_metrics_sampled_ms << " ms in "
            << profile->run.notes.gpu_metrics_bursts << "\n";
  EXPECT_GE(profile->sample_configs[0].metrics.size(), 4u);
  EXPECT_GT(profile->samples.size(), 100u);
  const analysis::GpuSampleAnalysis a = analysis::AnalyzeGpuSamples(*profile);
  const analysis::SampledKernel* saxpy = nullptr;
  const analysis::SampledKernel* sgemm = nullptr;
  for (const auto& k : a.kernels) {
    if (k.name.find("saxpy") != std::string::npos) saxpy = &k;
    if (k.name.find("sgemm_naive") != std::string::npos) sgemm = &k;
  }
  ASSERT_TRUE(saxpy && sgemm);
  auto line = [](const analysis::SampledKernel& k) {
    return absl::StrCat(k.name, ": ", k.rates.samples, " samples, covered ", k.coverage_pct(),
                        "%, SM active ", k.rates.sm_active_pct.value_or(-1), "%, DRAM ",
                        k.rates.dram_pct.value_or(-1), "%, DRAM B/s ",
                        k.rates.dram_bytes_per_s.value_or(-1), ", SM clock ",
                        k.rates.sm_clock_hz.value_or(-1));
  };
  std::cerr << line(*saxpy) << "\n" << line(*sgemm) << "\n";
  // Bursts: a share of each kernel's time is sampled (about the share of the run).
  EXPECT_GT(saxpy->coverage_pct(), 1);
  EXPECT_GT(sgemm->coverage_pct(), 1);
  ASSERT_TRUE(saxpy->rates.dram_pct && sgemm->rates.dram_pct);
  EXPECT_GT(*saxpy->rates.dram_pct, 60);  // streaming 768 MB
  EXPECT_LT(*sgemm->rates.dram_pct, *saxpy->rates.dram_pct);
  if (sgemm->rates.sm_active_pct) {
    EXPECT_GT(*sgemm->rates.sm_active_pct, 80);
  }
  // The report prints the section.
  Result rep = RunProgram({BuildDir() + "/bin/cuscope", "report", path}, {});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("GPU metrics (sampled every 10 us"), std::string::npos) << rep.out;

  if (!TorchAvailable()) GTEST_SKIP() << "python3 with CUDA PyTorch not available";
  std::string gemm_path = TempPath("gpu_metrics_gemm.sqlite");
  Result g =
      RunProgram({BuildDir() + "/bin/cuscope", "run", "--output=" + gemm_path, "--gpu-metrics=1",
                  "--", "python3", SourceDir() + "/examples/python/bf16_gemm.py", "8192", "1500"},
                 {});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  auto gp = store::LoadProfile(gemm_path);
  ASSERT_TRUE(gp.ok()) << gp.status();
  // A Python program's exit: sampling stopped and its last samples decoded (the run's
  // notes are written after that).
  EXPECT_TRUE(gp->run.notes.gpu_metrics_samples.has_value()) << g.err;
  EXPECT_EQ(gp->run.notes.gpu_metrics_status, "") << gp->run.notes.gpu_metrics_status;
  const analysis::GpuSampleAnalysis ga = analysis::AnalyzeGpuSamples(*gp);
  ASSERT_FALSE(ga.kernels.empty());
  const analysis::SampledKernel& top = ga.kernels[0];  // the GEMM: most of the time
  std::cerr << line(top) << ", tensor " << top.rates.tensor_pct.value_or(-1) << "%\n";
  ASSERT_TRUE(top.rates.tensor_pct.has_value());
  EXPECT_GT(*top.rates.tensor_pct, 60) << top.name;
}

// Kernels that run only inside a CUDA graph (examples/graph_only.cu): the Range
// Profiler measures none of them kernel by kernel (docs/performance.md, "Kernels inside
// CUDA graphs"), so the default's outcome line says they ran only inside graphs, and
// GPU metrics sampling gives each its verdict: the 256 MiB copy memory-bound, the FMA
// chains compute-bound, the one warp's chain latency-bound.
TEST_F(GpuTest, GraphOnlyKernelsGetSampledVerdicts) {
  const std::string cuscope = BuildDir() + "/bin/cuscope";
  const std::string plain = TempPath("graph_only_default.sqlite");
  Result d =
      RunProgram({cuscope, "run", "--output=" + plain, "--", Example("graph_only"), "1"}, {});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  // The outcome line unwrapped, as JSON gives it.
  Result dr = RunProgram({cuscope, "report", plain, "--format=json"}, {});
  EXPECT_EQ(dr.exit_code, 0) << dr.err;
  EXPECT_NE(dr.out.find("3 ran only inside CUDA graphs"), std::string::npos) << dr.out;

  const std::string path = TempPath("graph_only.sqlite");
  Result r = RunProgram(
      {cuscope, "run", "--output=" + path, "--gpu-metrics=1", "--", Example("graph_only"), "3"},
      {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->run.notes.gpu_metrics_status, "") << profile->run.notes.gpu_metrics_status;
  const analysis::GpuSampleAnalysis a = analysis::AnalyzeGpuSamples(*profile);
  std::map<std::string, analysis::SolClass> expected = {
      {"stream_copy", analysis::SolClass::kMemory},
      {"fma_chains", analysis::SolClass::kCompute},
      {"lonely_walk", analysis::SolClass::kLatency}};
  int found = 0;
  for (const analysis::SampledKernel& k : a.kernels) {
    for (const auto& [name, cls] : expected) {
      if (k.name.find(name) == std::string::npos) continue;
      ++found;
      std::cerr << "graph_only " << name << ": " << k.rates.samples << " samples, "
                << (k.verdict ? report::VerdictReason(*k.verdict) : "no verdict") << "\n";
      ASSERT_TRUE(k.verdict.has_value()) << name << ": " << k.rates.samples << " samples";
      EXPECT_EQ(k.verdict->sol_class, cls) << name << ": " << report::VerdictReason(*k.verdict);
    }
  }
  EXPECT_EQ(found, 3);
  Result rep = RunProgram({cuscope, "report", path}, {});
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("DRAM-bound"), std::string::npos) << rep.out;
}

}  // namespace
}  // namespace cuscope
