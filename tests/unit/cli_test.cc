// The `cuscope` command and libcuscope.so, as a user meets them, without a GPU:
// help, bad flags and values, reports and exports of a recorded H200 profile,
// corrupt and missing profiles, the exported symbol list, and injection's
// behaviour on a machine without a GPU.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/config/setting.h"
#include "lib/model/store.h"
#include "tests/test_util.h"
#include "rapidjson/document.h"

namespace {

const std::string kBin = std::string(CUSCOPE_BINARY_DIR) + "/bin/cuscope";
const std::string kLib = std::string(CUSCOPE_BINARY_DIR) + "/lib/libcuscope.so";
const std::string kProfile = std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-timeline-demo.sqlite";

using cuscope::testing_util::ReadFile;
using cuscope::testing_util::TempPath;

struct Result {
  int code = -1;  // the exit code, or 128 + the signal
  std::string out, err;
};

Result RunCmd(const std::vector<std::string>& argv,
              const std::map<std::string, std::string>& env = {}) {
  cuscope::testing_util::ProgramResult r = cuscope::testing_util::RunProgram(argv, env);
  return {r.code(), std::move(r.out), std::move(r.err)};
}

TEST(Cli, HelpListsEveryCommandAndSetting) {
  Result r = RunCmd({kBin, "--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"cuscope run", "cuscope report", "cuscope export", "--chrome"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  for (const auto& s : cuscope::config::Settings()) {
    EXPECT_NE(r.out.find(s.env), std::string::npos) << s.env;
    EXPECT_NE(r.out.find(std::string("--") + s.flag), std::string::npos) << s.flag;
  }
  EXPECT_EQ(RunCmd({kBin, "run", "--help"}).code, 0);
}

TEST(Cli, RunAcceptsEverySettingAsAFlag) {
  for (const auto& s : cuscope::config::Settings()) {
    std::string flag = std::string("--") + s.flag + "=" + s.default_text();
    Result r = RunCmd({kBin, "run", "--enable=0", "--report=none", flag, "--", "true"});
    EXPECT_EQ(r.code, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.err.find("unknown flag"), std::string::npos) << flag << ": " << r.err;
  }
  // Settings that go together are accepted together, refused apart.
  Result r = RunCmd({kBin, "run", "--enable=0", "--report=none", "--region_counters=1",
                     "--metrics=roofline", "--regions=^forward$", "--", "true"});
  EXPECT_EQ(r.code, 0) << r.err;
  r = RunCmd({kBin, "run", "--region_counters=1", "--metrics=roofline", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("needs CUSCOPE_REGIONS"), std::string::npos) << r.err;
  // A bad value is named with its flag.
  r = RunCmd({kBin, "run", "--region_counters=maybe", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--region_counters: CUSCOPE_REGION_COUNTERS=\"maybe\""), std::string::npos)
      << r.err;
}

TEST(Cli, UsageErrorsExitTwoWithOneClearLine) {
  Result r = RunCmd({kBin});
  EXPECT_EQ(r.code, 2);
  r = RunCmd({kBin, "frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command \"frobnicate\"; accepted: run, report, diff, export"),
            std::string::npos)
      << r.err;
  r = RunCmd({kBin, "run", "--api=bogus", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--api: CUSCOPE_API=\"bogus\" is not valid; accepted: default, all or none"),
            std::string::npos)
      << r.err;
  r = RunCmd({kBin, "run", "--buffer_size=12Q", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("CUSCOPE_BUFFER_SIZE"), std::string::npos) << r.err;
  r = RunCmd({kBin, "run", "--no-such-flag", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown flag --no-such-flag"), std::string::npos) << r.err;
  r = RunCmd({kBin, "run"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("expected -- PROGRAM"), std::string::npos) << r.err;
  r = RunCmd({kBin, "report", kProfile, "--format=xml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("accepted: text, csv, json"), std::string::npos) << r.err;
  r = RunCmd({kBin, "report", kProfile, "--top=-3"});
  EXPECT_EQ(r.code, 2);
  r = RunCmd({kBin, "export", kProfile});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--chrome"), std::string::npos) << r.err;
  // A bad value already in the environment is caught before the program starts.
  r = RunCmd({kBin, "run", "--", "true"}, {{"CUSCOPE_TRACE", "kernels,oops"}});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("CUSCOPE_TRACE"), std::string::npos) << r.err;
}

TEST(Cli, RunPassesTheExitCodeThroughWithoutAGpu) {
  // No GPU here: the program never initializes CUDA, so the injection is never
  // loaded; the command must still run it and pass its exit code through.
  Result r = RunCmd({kBin, "run", "--", "sh", "-c", "echo hello; exit 42"});
  EXPECT_EQ(r.code, 42);
  EXPECT_EQ(r.out, "hello\n");
  r = RunCmd({kBin, "run", "--", "/no/such/program"});
  EXPECT_EQ(r.code, 127);
  EXPECT_NE(r.err.find("cannot run /no/such/program"), std::string::npos) << r.err;
  // The environment the program sees.
  r = RunCmd({kBin, "run", "--api=all", "--output=x.sqlite", "--", "sh", "-c",
           "echo $CUDA_INJECTION64_PATH; echo $CUSCOPE_API; echo $CUSCOPE_OUTPUT; "
           "test \"$CUSCOPE_OWNER_PID\" = \"$$\" && echo owner"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("libcuscope.so\nall\nx.sqlite\nowner\n"), std::string::npos) << r.out;
}

TEST(Cli, RunEndsTheWayTheProgramEnded) {
  // Killed by a signal: cuscope ends by the same signal (the shell sees 128 + 15).
  Result r = RunCmd({kBin, "run", "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.code, 128 + SIGTERM) << r.err;
}

TEST(Cli, RunForwardsSigtermToTheProgram) {
  // SIGTERM to `cuscope run` reaches the program, which ends; cuscope follows.
  pid_t pid = fork();
  if (pid == 0) {
    execl(kBin.c_str(), kBin.c_str(), "run", "--", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  usleep(300 * 1000);
  auto t0 = std::chrono::steady_clock::now();
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
}

TEST(Cli, ReportsARecordedH200Profile) {
  Result r = RunCmd({kBin, "report", kProfile});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("busy"), std::string::npos) << r.out;
  r = RunCmd({kBin, "report", kProfile, "--format=json", "--top=0"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out.substr(0, 200);
  r = RunCmd({kBin, "report", kProfile, "--format=csv", "-o", TempPath("r.csv")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(ReadFile(TempPath("r.csv")).find("busy"), std::string::npos);
}

TEST(Cli, ExportsAChromeTrace) {
  std::string out = TempPath("demo.trace.json");
  Result r = RunCmd({kBin, "export", kProfile, "--chrome", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document doc;
  std::string json = ReadFile(out);
  ASSERT_FALSE(doc.Parse(json.c_str()).HasParseError());
  ASSERT_TRUE(doc.HasMember("traceEvents"));
  std::set<std::string> cats;
  for (const auto& e : doc["traceEvents"].GetArray()) {
    if (e.HasMember("cat")) cats.insert(e["cat"].GetString());
  }
  for (const char* c : {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_sync",
                        "gpu_user_annotation", "ac2g"}) {
    EXPECT_EQ(cats.count(c), 1u) << c;
  }
}

TEST(Cli, MissingAndCorruptProfilesGiveAClearError) {
  Result r = RunCmd({kBin, "report", "/no/such.sqlite"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/no/such.sqlite"), std::string::npos) << r.err;
  std::string bad = TempPath("corrupt.sqlite");
  {
    std::ofstream f(bad);
    f << "this is not a database";
  }
  r = RunCmd({kBin, "report", bad});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is not a cuscope profile"), std::string::npos) << r.err;
  r = RunCmd({kBin, "export", bad, "--chrome"});
  EXPECT_EQ(r.code, 1);
  // Truncated real profile: an error or a partial report, never a crash.
  std::string data = ReadFile(kProfile);
  std::string cut = TempPath("truncated.sqlite");
  {
    std::ofstream f(cut, std::ios::binary);
    f << data.substr(0, data.size() / 2);
  }
  r = RunCmd({kBin, "report", cut});
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.code << r.err;
}

TEST(Cli, DiffComparesTwoProfiles) {
  const std::string torch = std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-torch-loop.sqlite";
  Result r = RunCmd({kBin, "diff", kProfile, torch});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("cuscope diff"), std::string::npos);
  EXPECT_NE(r.out.find("GPU kernels (by change of total time)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gone"), std::string::npos) << r.out;  // demo kernels absent in torch
  EXPECT_NE(r.out.find("new"), std::string::npos) << r.out;
  r = RunCmd({kBin, "diff", kProfile, kProfile, "--format=json", "--top=0"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
  for (const auto& k : doc["kernels"].GetArray()) EXPECT_EQ(k["change_ns"].GetInt64(), 0);
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile}).code, 2);
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile, "/no/such.sqlite"}).code, 1);
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile, kProfile, "--format=csv"}).code, 2);
}

TEST(Library, ExportsOnlyTheEntryPointsAndTheCApi) {
  Result r = RunCmd({"nm", "-D", "--defined-only", kLib});
  ASSERT_EQ(r.code, 0) << r.err;
  std::set<std::string> symbols;
  std::istringstream in(r.out);
  std::string addr, type, name;
  while (in >> addr >> type >> name) {
    if (type == "T" || type == "W" || type == "D" || type == "B" || type == "V" || type == "u") {
      symbols.insert(name);
    }
  }
  std::set<std::string> expected = {
      "InitializeInjection", "InitializeInjectionNvtx2", "cuscope_start",
      "cuscope_stop",        "cuscope_flush",            "cuscope_is_active",
      "cuscope_output_path", "cuscope_last_error",       "cuscope_version"};
  for (const auto& s : symbols) {
    bool allowed = expected.count(s) > 0 || s.rfind("cuscope_", 0) == 0;
    EXPECT_TRUE(allowed) << "unexpected exported symbol " << s;
  }
  for (const auto& s : expected) EXPECT_EQ(symbols.count(s), 1u) << "missing " << s;
}

TEST(Library, InjectionWithoutAGpuIsOneLineAndReturns) {
  // What CUDA would do: load the library and call InitializeInjection. With no
  // driver, cuscope must say so in one line and let the program run on.
  std::string out = TempPath("nogpu.sqlite");
  std::string code =
      "import ctypes, os, sys\n"
      "lib = ctypes.CDLL(sys.argv[1])\n"
      "print('init', lib.InitializeInjection())\n"
      "print('active', lib.cuscope_is_active())\n";
  std::string script = TempPath("inject.py");
  {
    std::ofstream f(script);
    f << code;
  }
  Result r = RunCmd({"python3", script, kLib}, {{"CUSCOPE_OUTPUT", out}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "init 1\nactive 0\n");
  size_t lines = 0;
  for (char c : r.err) lines += c == '\n';
  EXPECT_EQ(lines, 1u) << r.err;
  EXPECT_EQ(r.err.rfind("cuscope: ", 0), 0u) << r.err;
  // An invalid setting: one line naming it, nothing else happens.
  r = RunCmd({"python3", script, kLib}, {{"CUSCOPE_MAX_BUFFERS", "1"}});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("CUSCOPE_MAX_BUFFERS=\"1\" is not valid; accepted: an integer from 2 to 65536"),
            std::string::npos)
      << r.err;
}

}  // namespace
