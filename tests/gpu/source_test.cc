// PC sampling on a real GPU (`cuscope run --source`, issue 36): examples/source_hotspots
// runs under cuscope and its profile's source hotspots are checked against the lines
// the program was written to make hot. Skipped, with the reason, where there is no
// GPU, the example was not built, or the driver refuses PC sampling.
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/analysis/source_hotspots.h"
#include "lib/store/reader.h"
#include "tests/gpu/gpu_paths.h"
#include "tests/test_util.h"

namespace cuscope {
namespace {

using gpu_paths::BuildDir;
using gpu_paths::Exists;
using gpu_paths::SourceDir;
using testing_util::RunProgram;
using testing_util::TempPath;
using Result = testing_util::ProgramResult;

std::string Cuscope() { return BuildDir() + "/bin/cuscope"; }
std::string Example() { return BuildDir() + "/examples/source_hotspots"; }

// The line of examples/source_hotspots.cu that holds `marker`; 0 if none.
uint32_t MarkedLine(const std::string& marker) {
  std::ifstream in(SourceDir() + "/examples/source_hotspots.cu");
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find("// " + marker) != std::string::npos) return n;
  }
  return 0;
}

const analysis::FunctionHotspots* Function(const analysis::SourceHotspots& h,
                                           const std::string& part) {
  for (const auto& f : h.functions) {
    if (f.name.find(part) != std::string::npos) return &f;
  }
  return nullptr;
}

// One run of the example with --source, shared by the tests (a run takes seconds).
struct SourceRun {
  Result result;
  std::string path;
  absl::StatusOr<model::Profile> profile = absl::UnknownError("not run");
};

const SourceRun& TheRun() {
  static const SourceRun* run = [] {
    auto* r = new SourceRun;
    r->path = TempPath("source_hotspots.sqlite");
    r->result = RunProgram(
        {Cuscope(), "run", "--source", "--output=" + r->path, "--", Example(), "20"}, {});
    r->profile = store::LoadProfile(r->path);
    return r;
  }();
  return *run;
}

class SourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Exists("/dev/nvidia0") && !Exists("/dev/nvidiactl")) {
      GTEST_SKIP() << "no NVIDIA GPU on this machine (/dev/nvidia0 missing)";
    }
    if (!Exists(Example())) GTEST_SKIP() << "examples not built (no nvcc at configure time)";
    const SourceRun& r = TheRun();
    ASSERT_EQ(r.result.exit_code, 0) << r.result.err;
    ASSERT_TRUE(r.profile.ok()) << r.profile.status() << "\n" << r.result.err;
    if (r.profile->pc_samples.empty()) {
      GTEST_SKIP() << "no PC samples: " << r.profile->run.notes.source_status << "\n"
                   << r.result.err;
    }
    analysis::HotspotOptions all;
    all.top_functions = 0;
    all.top_lines = 0;
    hotspots_ = analysis::FindSourceHotspots(*r.profile, all);
  }
  analysis::SourceHotspots hotspots_;
};

bool IsMath(model::StallKind k) {
  return k == model::StallKind::kWait || k == model::StallKind::kMathPipeThrottle ||
         k == model::StallKind::kSelected || k == model::StallKind::kNotSelected ||
         k == model::StallKind::kDispatchStall;
}

TEST_F(SourceTest, MemoryLineFirstWaitingOnMemoryThenTheMathLine) {
  const uint32_t memory = MarkedLine("HOT_MEMORY"), math = MarkedLine("HOT_MATH");
  ASSERT_GT(memory, 0u);
  const analysis::FunctionHotspots* f = Function(hotspots_, "mixed_kernel");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->has_lines);
  ASSERT_GE(f->lines.size(), 2u);
  EXPECT_EQ(f->lines[0].line, memory) << f->lines[0].file;
  const model::StallKind top = f->lines[0].stalls.at(0).kind;
  EXPECT_TRUE(top == model::StallKind::kLongScoreboard || top == model::StallKind::kLgThrottle)
      << model::StallKindKey(top);
  EXPECT_NE(f->lines[0].text.find("HOT_MEMORY"), std::string::npos) << f->lines[0].text;
  EXPECT_EQ(f->lines[1].line, math);
  EXPECT_TRUE(IsMath(f->lines[1].stalls.at(0).kind))
      << model::StallKindKey(f->lines[1].stalls.at(0).kind);
  std::cerr << "mixed_kernel: line " << f->lines[0].line << " " << f->lines[0].pct << "% "
            << model::StallKindKey(top) << "; line " << f->lines[1].line << " " << f->lines[1].pct
            << "% " << model::StallKindKey(f->lines[1].stalls[0].kind) << "\n";
}

TEST_F(SourceTest, CublasGemmByFunctionWithoutLines) {
  const analysis::FunctionHotspots* gemm = Function(hotspots_, "gemm");
  ASSERT_NE(gemm, nullptr) << "no sampled function named like a GEMM";
  EXPECT_FALSE(gemm->has_lines);
  EXPECT_GT(gemm->samples, 0u);
  EXPECT_EQ(gemm->lines.at(0).line, 0u);
}

TEST_F(SourceTest, GraphAndConcurrentStreamKernelsAreKept) {
  for (const char* name : {"graph_kernel", "stream_kernel_a", "stream_kernel_b"}) {
    const analysis::FunctionHotspots* f = Function(hotspots_, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_GT(f->samples, 0u) << name;
    EXPECT_TRUE(f->has_lines) << name;
  }
}

TEST_F(SourceTest, SameKernelCountAsTheTraceWithout) {
  const std::string plain = TempPath("source_plain.sqlite");
  Result r = RunProgram(
      {Cuscope(), "run", "--metrics=none", "--output=" + plain, "--", Example(), "20"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  absl::StatusOr<model::Profile> p = store::LoadProfile(plain);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(TheRun().profile->kernels.size(), p->kernels.size());
  unlink(plain.c_str());
}

TEST_F(SourceTest, ReportSourceTextJsonAndAdvice) {
  Result text = RunProgram({Cuscope(), "report", TheRun().path, "--source", "--kernels=mixed"}, {});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("HOT_MEMORY"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("waiting on global/local memory"), std::string::npos) << text.out;
  Result json = RunProgram({Cuscope(), "report", TheRun().path, "--source", "--format=json"}, {});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"long_scoreboard\""), std::string::npos);
  Result advise = RunProgram({Cuscope(), "advise", TheRun().path}, {});
  EXPECT_NE(advise.out.find("source_stalls"), std::string::npos) << advise.out;
  std::cerr << text.out;
}

// A module unloaded mid-run: examples/module_unload loads its own cubin (with line info)
// three times, launches busy_kernel 20 times each, and unloads it each time, so samples
// of each module are drained after it is gone. Every launch is kept, the program runs
// to its end, and the samples keep their lines.
TEST(SourceUnloadTest, ModuleUnloadedMidRunKeepsItsSamplesAndLines) {
  if (!Exists("/dev/nvidia0") && !Exists("/dev/nvidiactl")) {
    GTEST_SKIP() << "no NVIDIA GPU on this machine (/dev/nvidia0 missing)";
  }
  const std::string program = BuildDir() + "/examples/module_unload";
  const std::string cubin = BuildDir() + "/examples/module_unload_kernel.cubin";
  if (!Exists(program) || !Exists(cubin)) GTEST_SKIP() << "examples not built (no nvcc)";
  const std::string path = TempPath("module_unload.sqlite");
  Result r = RunProgram(
      {Cuscope(), "run", "--source", "--output=" + path, "--", program, cubin, "3", "20"}, {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("LAUNCHES 60"), std::string::npos) << r.out;
  absl::StatusOr<model::Profile> p = store::LoadProfile(path);
  ASSERT_TRUE(p.ok()) << p.status() << "\n" << r.err;
  size_t busy = 0;
  for (const model::KernelRecord& k : p->kernels) {
    busy += p->str(k.name).find("busy_kernel") != std::string::npos;
  }
  EXPECT_EQ(busy, 60u);
  if (p->pc_samples.empty()) GTEST_SKIP() << "no PC samples: " << p->run.notes.source_status;
  analysis::HotspotOptions all;
  all.top_functions = 0;
  all.top_lines = 0;
  const analysis::SourceHotspots h = analysis::FindSourceHotspots(*p, all);
  const analysis::FunctionHotspots* f = Function(h, "busy_kernel");
  ASSERT_NE(f, nullptr) << "busy_kernel was not sampled";
  EXPECT_TRUE(f->has_lines);
  ASSERT_FALSE(f->lines.empty());
  EXPECT_NE(f->lines[0].file.find("module_unload_kernel.cu"), std::string::npos)
      << f->lines[0].file;
  EXPECT_NE(f->lines[0].text.find("HOT_LOOP"), std::string::npos) << f->lines[0].text;
  EXPECT_EQ(p->run.notes.source_no_cubin.value_or(0), 0) << "samples of an unloaded module lost";
  std::cerr << "busy_kernel: " << f->samples << " samples, top line " << f->lines[0].line << " "
            << f->lines[0].pct << "%\n";
  unlink(path.c_str());
}

}  // namespace
}  // namespace cuscope
