// Faults in the profiled process, on a real GPU (issue 14, item 5): examples/fault_demo
// killed by SIGKILL, crashed by SIGSEGV, writing to a full disk or into a directory
// removed while it runs, launching from 64 threads, and traced with tiny buffers.
// Skipped, with the reason, where there is no GPU or the examples were not built.
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "lib/store/reader.h"
#include "tests/gpu/gpu_paths.h"
#include "tests/test_util.h"

namespace cuscope {
namespace {

using testing_util::ReadFile;
using testing_util::TempPath;

using gpu_paths::BuildDir;
using gpu_paths::Exists;
std::string Cuscope() { return BuildDir() + "/bin/cuscope"; }
std::string Demo() { return BuildDir() + "/examples/fault_demo"; }
std::string Library() { return BuildDir() + "/lib/libcuscope.so"; }

std::map<std::string, std::string> InjectEnv(const std::string& output) {
  return {{"CUDA_INJECTION64_PATH", Library()},
          {"NVTX_INJECTION64_PATH", Library()},
          {"CUSCOPE_OUTPUT", output},
          {"CUSCOPE_OWNER_PID", ""},
          {"CUSCOPE_FLUSH_PERIOD_MS", "100"}};
}

using Child = testing_util::SpawnedProgram;
using testing_util::SpawnProgram;

struct Result : testing_util::ProgramResult {
  Result() = default;
  Result(testing_util::ProgramResult r, bool t)
      : testing_util::ProgramResult(std::move(r)), timed_out(t) {}
  bool timed_out = false;
};

// Waits for `c`, killing it (SIGKILL) past `timeout_s`: a hang fails the test, not the run.
Result Wait(const Child& c, int timeout_s) {
  bool timed_out = false;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (waitpid(c.pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
      kill(c.pid, SIGKILL);
      waitpid(c.pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Result(testing_util::Collect(c, status), timed_out);
}

Result RunFor(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              int timeout_s = 120) {
  return Wait(SpawnProgram(argv, env), timeout_s);
}

// The number after `key ` in the program's output, or -1.
long Count(const std::string& out, const std::string& key) {
  size_t at = out.find(key + " ");
  return at == std::string::npos ? -1 : std::atol(out.c_str() + at + key.size() + 1);
}

// cuscope's lines on stderr ("cuscope: ...").
std::vector<std::string> CuscopeLines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cuscope:", 0) == 0) lines.push_back(line);
  }
  return lines;
}

// `cuscope report PATH` exits 0: the profile a fault left is readable by the command.
void ExpectReportReads(const std::string& path) {
  Result rep = RunFor({Cuscope(), "report", path}, {}, 60);
  EXPECT_FALSE(rep.timed_out);
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
}

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Exists("/dev/nvidia0") && !Exists("/dev/nvidiactl")) {
      GTEST_SKIP() << "no NVIDIA GPU on this machine (/dev/nvidia0 missing)";
    }
    if (!Exists(Demo())) GTEST_SKIP() << "examples not built (no nvcc at configure time)";
  }
};

// Killed mid-run (no handler can run): the profile holds what the periodic flushes
// wrote (every 100 ms over a 1.5 s loop), and reads.
// A process ended by `signal`: the profile reads, and it keeps at least half the
// launches (lost: what came after the last flush, 100 ms, in a loop of 1.5 s). The
// profile, when it loaded.
std::optional<model::Profile> ExpectFlushedKept(const Result& r, int signal,
                                                const std::string& path, const std::string& label) {
  EXPECT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.signal, signal) << "exit " << r.exit_code << "\n" << r.err;
  const long launches = Count(r.out, "LAUNCHES");
  EXPECT_GT(launches, 0) << r.out;
  if (r.timed_out || launches <= 0) return std::nullopt;
  ExpectReportReads(path);
  auto profile = store::LoadProfile(path);
  EXPECT_TRUE(profile.ok()) << profile.status() << "\n" << r.err;
  if (!profile.ok()) return std::nullopt;
  const long kernels = static_cast<long>(profile->kernels.size());
  std::cerr << label << ": " << kernels << " kernels of " << launches << " launches kept\n";
  EXPECT_GT(kernels, 0);
  EXPECT_LE(kernels, launches);
  EXPECT_GE(kernels * 2, launches);
  return *std::move(profile);
}

// Traced, and with counters by kernel replay: CUPTI zeroes a replayed launch's times,
// and an unforced flush never hands over a buffer holding that record, so before the
// flush after each replay (GpuKindControl::FlushAfterReplay) a kill kept nothing after
// the first measured launch.
TEST_F(FaultTest, SigkillLeavesAReadableProfileUpToTheLastFlush) {
  // The trace alone, kernel replay (roofline, 1 per signature), PC sampling (source).
  for (const std::string mode : {"", "roofline", "source"}) {
    SCOPED_TRACE(mode);
    std::string path = TempPath("fault_sigkill" + mode + ".sqlite");
    std::map<std::string, std::string> env = InjectEnv(path);
    if (mode == "roofline") env["CUSCOPE_METRICS"] = mode;
    if (mode == "source") env["CUSCOPE_SOURCE"] = "1";
    Result r = RunFor({Demo(), "loop", "1500", "kill"}, env);
    const auto profile =
        ExpectFlushedKept(r, SIGKILL, path, mode.empty() ? "SIGKILL" : "SIGKILL (" + mode + ")");
    if (!profile.has_value()) continue;
    EXPECT_EQ(profile->run.exit_reason, "");  // nothing ran at the end
    // PC samples drained before the kill's last flush are kept.
    if (mode == "source") EXPECT_FALSE(profile->pc_samples.empty());
  }
}

// A crash: what was flushed stays, and the process (and `cuscope run`) ends by SIGSEGV.
TEST_F(FaultTest, SegfaultKeepsWhatWasFlushedAndEndsBySigsegv) {
  for (const char* how_text : {"injected", "cuscope run"}) {
    const std::string how = how_text;
    SCOPED_TRACE(how);
    std::string path =
        TempPath("fault_segv_" + std::string(how == "injected" ? "inject" : "run") + ".sqlite");
    std::vector<std::string> demo = {Demo(), "loop", "1500", "segv"};
    Result r;
    if (how == "injected") {
      r = RunFor(demo, InjectEnv(path));
    } else {
      std::vector<std::string> cmd = {
          Cuscope(), "run", "--output=" + path, "--flush_period_ms=100", "--report=none", "--"};
      cmd.insert(cmd.end(), demo.begin(), demo.end());
      r = RunFor(cmd, {});
    }
    ExpectFlushedKept(r, SIGSEGV, path, "SIGSEGV (" + how + ")");
  }
}

// A 256 KiB tmpfs at `dir`, unmounted at the end.
struct SmallDisk {
  std::string dir;
  std::string error;  // why it could not be mounted; empty when mounted
  explicit SmallDisk(const std::string& d) : dir(d) {
    std::filesystem::create_directories(dir);
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=256k") != 0) error = std::strerror(errno);
  }
  ~SmallDisk() {
    if (error.empty()) umount2(dir.c_str(), MNT_DETACH);
  }
};

TEST_F(FaultTest, FullDiskIsOneLineAndTheProgramRunsOn) {
  SmallDisk disk(TempPath("fault_tmpfs"));
  if (!disk.error.empty()) {
    GTEST_SKIP() << "cannot mount a 256 KiB tmpfs at " << disk.dir << " (" << disk.error
                 << "; the test needs root)";
  }
  std::string path = disk.dir + "/full.sqlite";
  Result r = RunFor({Demo(), "loop", "1500"}, InjectEnv(path));
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(Count(r.out, "LAUNCHES"), 0) << r.out;
  std::vector<std::string> lines = CuscopeLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("disk is full"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(path), std::string::npos) << lines[0];
  std::cerr << "full disk: " << lines[0] << "\n";
  // What was written before the disk filled stays readable.
  auto profile = store::LoadProfile(path);
  EXPECT_TRUE(profile.ok()) << profile.status();
  if (profile.ok()) std::cerr << "full disk: " << profile->kernels.size() << " kernels kept\n";
}

TEST_F(FaultTest, VanishedOutputDirectoryIsOneLineAndTheProgramRunsOn) {
  std::string dir = TempPath("fault_vanish");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string path = dir + "/vanish.sqlite";
  Child c = SpawnProgram({Demo(), "loop", "2000"}, InjectEnv(path));
  // Once the loop runs and the profile exists, wait for a few flushes, then remove.
  bool started = false;
  for (int i = 0; i < 3000 && !started; ++i) {
    started = ReadFile(c.out_path).find("STARTED") != std::string::npos && Exists(path);
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::filesystem::remove_all(dir);
  Result r = Wait(c, 120);
  ASSERT_TRUE(started) << "the loop did not start within 60 s\n" << r.err;
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(Count(r.out, "LAUNCHES"), 0) << r.out;
  std::vector<std::string> lines = CuscopeLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("failed"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(path), std::string::npos) << lines[0];
  std::cerr << "vanished directory: " << lines[0] << "\n";
  EXPECT_FALSE(Exists(dir));  // nothing re-created it
}

// 64 threads, each on its own stream: every launch, scope and NVTX range is recorded.
TEST_F(FaultTest, SixtyFourThreadsLoseNothing) {
  std::string path = TempPath("fault_threads.sqlite");
  Result r = RunFor({Cuscope(), "run", "--output=" + path, "--report=none", "--", Demo(), "threads",
                     "64", "100", "4"},
                    {});
  ASSERT_FALSE(r.timed_out) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const long launches = Count(r.out, "LAUNCHES"), scopes = Count(r.out, "SCOPES"),
             nvtx = Count(r.out, "NVTX");
  ASSERT_EQ(launches, 64 * 100 * 4) << r.out;
  ASSERT_EQ(scopes, 64 * 100) << r.out;
  ASSERT_EQ(nvtx, 64 * 100) << r.out;
  EXPECT_EQ(r.err.find("another CUPTI client"), std::string::npos) << r.err;
  auto profile = store::LoadProfile(path);
  ASSERT_TRUE(profile.ok()) << profile.status() << "\n" << r.err;
  const model::Profile& p = *profile;
  EXPECT_EQ(p.run.dropped_records, 0u);
  EXPECT_EQ(static_cast<long>(p.kernels.size()), launches);
  std::set<uint32_t> correlations;
  for (const auto& k : p.kernels) correlations.insert(k.correlation_id);
  EXPECT_EQ(static_cast<long>(correlations.size()), launches);
  long launch_calls = 0;
  for (const auto& a : p.api_calls) launch_calls += p.str(a.name) == "cudaLaunchKernel";
  EXPECT_EQ(launch_calls, launches);
  long scope_records = 0, nvtx_records = 0, nvtx_push_pop = 0;
  std::set<uint32_t> scope_threads;
  for (const auto& range : p.ranges) {
    const std::string name = p.str(range.name);
    if (name == "fault_scope" && range.source == model::RangeSource::kScope) {
      ++scope_records;
      scope_threads.insert(range.thread_id);
    }
    if (name == "fault_nvtx") {
      ++nvtx_records;
      nvtx_push_pop += range.source == model::RangeSource::kNvtxPushPop;
    }
  }
  EXPECT_EQ(scope_records, scopes);
  EXPECT_EQ(nvtx_records, nvtx);
  EXPECT_EQ(nvtx_push_pop, nvtx);  // each ended on the thread that pushed it
  // Each thread's scopes carry its id: as many ids as the threads had (pthread_self()
  // cut to 32 bits, CUPTI's kind of id: two threads can share one).
  EXPECT_EQ(static_cast<long>(scope_threads.size()), Count(r.out, "THREADIDS")) << r.out;
  EXPECT_FALSE(p.run.notes.scopes_dropped.has_value()) << *p.run.notes.scopes_dropped;
  std::cerr << "64 threads: " << p.kernels.size() << " kernels, " << scope_records << " scopes, "
            << nvtx_records << " NVTX ranges\n";
}

// Kernel and API records of a profile: the kinds traced by the tiny-buffer runs.
uint64_t Records(const model::Profile& p) { return p.kernels.size() + p.api_calls.size(); }

// With 2 buffers of 64 KiB, CUPTI drops what finds no buffer, and counts it: the
// records kept plus those counted dropped are the records of a run with room for all
// (the same program; periodic flushes off, so no probe records), give or take the
// end-of-run probe and the device records, which the count may include.
TEST_F(FaultTest, TinyBuffersCountEveryDroppedRecord) {
  const std::vector<std::string> demo = {Demo(), "threads", "64", "50", "20"};
  auto run = [&](const std::string& path, std::vector<std::string> flags) {
    // The trace's records alone: with the default counters on, the two runs' record
    // counts differed by one more than the allowance.
    std::vector<std::string> cmd = {
        Cuscope(),       "run", "--output=" + path, "--flush_period_ms=0", "--trace=kernel,api",
        "--metrics=none"};
    cmd.insert(cmd.end(), flags.begin(), flags.end());
    cmd.push_back("--");
    cmd.insert(cmd.end(), demo.begin(), demo.end());
    return RunFor(cmd, {});
  };
  std::string roomy_path = TempPath("fault_buffers_roomy.sqlite");
  Result roomy = run(roomy_path, {"--report=none"});
  ASSERT_FALSE(roomy.timed_out) << roomy.err;
  ASSERT_EQ(roomy.exit_code, 0) << roomy.err;
  const long launches = Count(roomy.out, "LAUNCHES");
  auto all = store::LoadProfile(roomy_path);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->run.dropped_records, 0u) << "the reference run dropped records";
  ASSERT_EQ(static_cast<long>(all->kernels.size()), launches);

  std::string tiny_path = TempPath("fault_buffers_tiny.sqlite");
  Result tiny = run(tiny_path, {"--buffer_size=64K", "--max_buffers=2", "--report=text"});
  ASSERT_FALSE(tiny.timed_out) << tiny.err;
  ASSERT_EQ(tiny.exit_code, 0) << tiny.err;
  EXPECT_EQ(Count(tiny.out, "LAUNCHES"), launches);
  EXPECT_EQ(tiny.err.find("another CUPTI client"), std::string::npos) << tiny.err;
  auto kept = store::LoadProfile(tiny_path);
  ASSERT_TRUE(kept.ok()) << kept.status();
  const uint64_t total = Records(*all), dropped = kept->run.dropped_records;
  std::cerr << "tiny buffers: " << Records(*kept) << " kept + " << dropped << " dropped of "
            << total << " records (" << kept->kernels.size() << " kernels of " << launches << "); "
            << kept->run.buffers_refused << " buffer requests refused\n";
  EXPECT_GE(Records(*kept) + dropped, total);
  EXPECT_LE(Records(*kept) + dropped, total + 1 + all->devices.size());
  if (dropped == 0) {
    GTEST_SKIP() << "nothing was dropped (" << kept->run.buffers_refused
                 << " buffer requests refused): the accounting held, but the pool cap was "
                    "never short of a buffer";
  }
  // Said at the end of the run, stored, and in the report.
  EXPECT_NE(tiny.err.find("cuscope: " + std::to_string(dropped) + " records were dropped"),
            std::string::npos)
      << tiny.err;
  Result rep = RunFor({Cuscope(), "report", tiny_path}, {}, 60);
  EXPECT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("WARNING: " + std::to_string(dropped) + " records were dropped by CUPTI"),
            std::string::npos)
      << rep.out;
}

}  // namespace
}  // namespace cuscope
