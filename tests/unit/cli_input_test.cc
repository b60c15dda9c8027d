// What the user gives cuscope, checked before anything runs: a
// damaged profile is refused by every subcommand the same way; CUSCOPE_* variables
// that are not settings get one warning naming the nearest setting; settings that
// cannot work together are refused at the start with one line. Runs the built
// command and library, no GPU needed.
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace {

const std::string kBin = std::string(CUSCOPE_BINARY_DIR) + "/bin/cuscope";
const std::string kLib = std::string(CUSCOPE_BINARY_DIR) + "/lib/libcuscope.so";
// A profile with stored findings: `advise` could print them without reading records.
const std::string kWithFindings =
    std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h200-gpt2-rotate-roofline.sqlite";

using cuscope::testing_util::TempPath;

using Result = cuscope::testing_util::ProgramResult;
using cuscope::testing_util::RunProgram;

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

// A copy of `from` at `to` with `sql` run on it.
void Damage(const std::string& from, const std::string& to, const std::string& sql) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(to.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error != nullptr ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(Input, EverySubcommandRefusesADamagedProfileTheSameWay) {
  const std::string bad = TempPath("damaged_findings.sqlite");
  Damage(kWithFindings, bad, "UPDATE kernels SET stream_id = -1 WHERE rowid = 1");
  const std::string chrome = TempPath("damaged.json");
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"report", {kBin, "report", bad}},
      {"report", {kBin, "report", kWithFindings, bad}},
      {"advise", {kBin, "advise", bad}},
      {"advise", {kBin, "advise", bad, "--recompute"}},
      {"advise", {kBin, "advise", bad, "--format=json"}},
      {"export", {kBin, "export", bad, "--chrome", "-o", chrome}},
      {"diff", {kBin, "diff", kWithFindings, bad}},
      {"diff", {kBin, "diff", bad, kWithFindings}},
  };
  for (const auto& [command, argv] : commands) {
    Result r = RunProgram(argv);
    const std::string what = argv[1] + " " + argv.back();
    EXPECT_EQ(r.code(), 1) << what << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "") << what;
    ASSERT_EQ(Lines(r.err).size(), 1u) << what << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("cuscope: " + command + ": " + bad + " is damaged: ", 0), 0u)
        << what << "\n"
        << r.err;
    EXPECT_NE(r.err.find("stream_id"), std::string::npos) << r.err;
  }
  // The undamaged profile: its stored findings, as before.
  Result r = RunProgram({kBin, "advise", kWithFindings});
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_NE(r.out, "");
}

TEST(Input, RunWarnsOnceOfAVariableThatIsNotASetting) {
  // --enable=0 runs the program without injecting: only the command speaks.
  Result r =
      RunProgram({kBin, "run", "--enable=0", "--", "true"}, {{"CUSCOPE_TOP", "5"},
                                                             {"CUSCOPE_LIBRARY", kLib},
                                                             {"CUSCOPE_INTERNAL_IMAGE_SIZING", "0"},
                                                             {"CUSCOPE_REPORT_TOP", "5"}});
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_EQ(r.err,
            "cuscope: CUSCOPE_TOP is not a setting (did you mean CUSCOPE_REPORT_TOP?); ignored\n");
  r = RunProgram({kBin, "run", "--enable=0", "--", "true"}, {{"CUSCOPE_BUFER_SIZE", "1M"}});
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_EQ(r.err,
            "cuscope: CUSCOPE_BUFER_SIZE is not a setting (did you mean CUSCOPE_BUFFER_SIZE?); "
            "ignored\n");
}

// A sanitized libcuscope.so leaves the sanitizer runtimes to the executable that loads
// it: an unsanitized python3 cannot load it, so the cases that inject through Python
// run in the normal build only.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CUSCOPE_SANITIZED_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CUSCOPE_SANITIZED_BUILD 1
#endif
#ifdef CUSCOPE_SANITIZED_BUILD
#define SKIP_IF_SANITIZED() GTEST_SKIP() << "a sanitized library cannot be loaded by python3"
#else
#define SKIP_IF_SANITIZED() (void)0
#endif

// Python loads the library and calls InitializeInjection, as the CUDA driver would.
Result Inject(const std::map<std::string, std::string>& env) {
  const std::string script = TempPath("inject_input.py");
  {
    std::ofstream f(script);
    f << "import ctypes, sys\n"
         "lib = ctypes.CDLL(sys.argv[1])\n"
         "print('init', lib.InitializeInjection())\n"
         "print('active', lib.cuscope_is_active())\n";
  }
  std::map<std::string, std::string> with_output = env;
  with_output["CUSCOPE_OUTPUT"] = TempPath("input.sqlite");
  return RunProgram({"python3", script, kLib}, with_output);
}

TEST(Input, TheLibraryWarnsOfAVariableThatIsNotASetting) {
  SKIP_IF_SANITIZED();
  Result r = Inject({{"CUSCOPE_TOP", "5"}});
  ASSERT_EQ(r.code(), 0) << r.err;
  EXPECT_EQ(r.out, "init 1\nactive 0\n");
  // The warning, then the line saying there is no GPU.
  std::vector<std::string> lines = Lines(r.err);
  ASSERT_EQ(lines.size(), 2u) << r.err;
  EXPECT_EQ(lines[0],
            "cuscope: CUSCOPE_TOP is not a setting (did you mean CUSCOPE_REPORT_TOP?); ignored");
  // Under `cuscope run` (the owner pid set), the command has said it.
  r = Inject({{"CUSCOPE_TOP", "5"}, {"CUSCOPE_OWNER_PID", "1"}});
  EXPECT_EQ(r.err.find("CUSCOPE_TOP"), std::string::npos) << r.err;
}

TEST(Input, SettingsThatCannotWorkTogetherAreRefusedAtTheStart) {
  const std::string started = TempPath("input_started");
  std::filesystem::remove(started);
  Result r =
      RunProgram({kBin, "run", "--gpu-metrics=1", "--metrics=roofline", "--", "touch", started});
  EXPECT_EQ(r.code(), 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(started)) << "the program must not start";
  ASSERT_FALSE(Lines(r.err).empty());
  EXPECT_EQ(Lines(r.err)[0],
            "cuscope: run: CUSCOPE_GPU_METRICS=1 (--gpu-metrics) and CUSCOPE_METRICS (--metrics) "
            "cannot work together: both use the GPU's performance monitors; give one of them");
  // One given, the other's default: no conflict.
  r = RunProgram({kBin, "run", "--gpu-metrics=1", "--enable=0", "--", "true"});
  EXPECT_EQ(r.code(), 0) << r.err;
  // The injected library: one line, and the program runs on unprofiled.
  SKIP_IF_SANITIZED();
  r = Inject({{"CUSCOPE_GPU_METRICS", "1"}, {"CUSCOPE_METRICS", "roofline"}});
  ASSERT_EQ(r.code(), 0) << r.err;
  EXPECT_EQ(r.out, "init 1\nactive 0\n");
  ASSERT_EQ(Lines(r.err).size(), 1u) << r.err;
  EXPECT_NE(r.err.find("cannot work together"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the program runs without profiling"), std::string::npos) << r.err;
}

}  // namespace
