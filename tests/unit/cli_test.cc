// The `cuscope` command and libcuscope.so, as a user meets them, without a GPU:
// help, bad flags and values, reports and exports of a recorded H200 profile,
// corrupt and missing profiles, the exported symbol list, and injection's
// behaviour on a machine without a GPU.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "tests/test_util.h"

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

TEST(Cli, HelpListsTheCommands) {
  Result r = RunCmd({kBin, "--help"});
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"cuscope run", "cuscope report", "cuscope diff", "cuscope export",
                        "--chrome", "cuscope COMMAND --help"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  EXPECT_EQ(r.out.find("CUSCOPE_BUFFER_SIZE"), std::string::npos) << "run's flags are run's help";
  EXPECT_EQ(RunCmd({kBin, "help"}).out, r.out);
  EXPECT_EQ(RunCmd({kBin, "help", "report"}).out, RunCmd({kBin, "report", "--help"}).out);
  EXPECT_EQ(RunCmd({kBin, "help", "nope"}).code, 2);
}

// `cuscope run --help` is the settings' rows: each flag with its variable, what it
// accepts and its default; no flag of another command.
TEST(Cli, RunHelpListsEverySettingAndNothingElse) {
  Result r = RunCmd({kBin, "run", "--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string flat;  // the help with its wrapped lines joined
  for (size_t i = 0; i < r.out.size(); ++i) {
    if (r.out[i] != '\n') {
      flat += r.out[i];
    } else {
      flat += ' ';
      while (i + 1 < r.out.size() && r.out[i + 1] == ' ') ++i;
    }
  }
  for (const auto& s : cuscope::config::Settings()) {
    std::string dashed = s.flag;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    EXPECT_NE(r.out.find("--" + dashed + " "), std::string::npos) << s.flag;
    EXPECT_NE(r.out.find(s.env), std::string::npos) << s.env;
    EXPECT_NE(flat.find("accepts: " + s.value.accepts), std::string::npos) << s.env;
    std::string def = s.default_text().empty() ? "(empty)" : s.default_text();
    EXPECT_NE(flat.find("; default: " + def), std::string::npos) << s.env;
  }
  EXPECT_NE(r.out.find("-o, --output "), std::string::npos);
  for (const char* other : {"--format", "--roofline", "--chrome"}) {
    EXPECT_EQ(r.out.find(other), std::string::npos) << other;
  }
  EXPECT_EQ(RunCmd({kBin, "run", "-h", "--", "true"}).out, r.out);
}

TEST(Cli, EachCommandsHelpListsItsOwnFlags) {
  struct Case {
    const char* command;
    std::vector<std::string> has, lacks;
  } cases[] = {
      {"report",
       {"--format=FORMAT", "--top=N", "-o, --output=FILE", "--roofline=FILE", "--html=FILE"},
       {"--chrome", "CUSCOPE_", "--enable"}},
      {"diff",
       {"--format=FORMAT", "--top=N", "-o, --output=FILE", "--html=FILE"},
       {"--roofline", "--chrome", "CUSCOPE_"}},
      {"export", {"--chrome", "-o, --output=FILE"}, {"--format", "--top", "CUSCOPE_"}},
  };
  for (const Case& c : cases) {
    Result r = RunCmd({kBin, c.command, "--help"});
    EXPECT_EQ(r.code, 0) << c.command;
    EXPECT_EQ(r.out.rfind(std::string("usage: cuscope ") + c.command, 0), 0u) << r.out;
    for (const auto& s : c.has)
      EXPECT_NE(r.out.find(s), std::string::npos) << c.command << " " << s;
    for (const auto& s : c.lacks)
      EXPECT_EQ(r.out.find(s), std::string::npos) << c.command << " " << s;
  }
}

// A flag is its command's: another command's flag is a usage error naming it.
TEST(Cli, FlagsBelongToTheirCommand) {
  Result r = RunCmd({kBin, "report", kProfile, "--metrics=roofline"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cuscope: report: unknown flag --metrics=roofline"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("cuscope report --help"), std::string::npos) << r.err;
  r = RunCmd({kBin, "run", "--format=csv", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown flag --format=csv"), std::string::npos) << r.err;
  EXPECT_EQ(RunCmd({kBin, "export", kProfile, "--chrome", "--top=3"}).code, 2);
  r = RunCmd({kBin, "export", kProfile, "--chrome", "--gpu-metrics-bin=soon"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--gpu-metrics-bin: "), std::string::npos) << r.err;
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile, kProfile, "--roofline=x.svg"}).code, 2);
  EXPECT_EQ(RunCmd({kBin, "report", kProfile, "--", "x"}).code, 2);
}

// Every spelling of a flag gives the same output.
TEST(Cli, FlagSpellings) {
  const std::string expected = RunCmd({kBin, "report", kProfile, "--top=0", "--format=csv"}).out;
  ASSERT_FALSE(expected.empty());
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {"--top", "0", "--format", "csv"},
           {"-top=0", "-format", "CSV"},
           {"--format=json", "--top=5", "--top=0", "--format=csv"}}) {
    std::vector<std::string> argv = {kBin, "report"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(kProfile);
    Result r = RunCmd(argv);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, expected) << flags[0];
  }
  int n = 0;
  for (const std::vector<std::string>& out :
       std::vector<std::vector<std::string>>{{"-o"}, {"--output"}, {"-output"}}) {
    std::string path = TempPath("spelling" + std::to_string(n++) + ".csv");
    Result r = RunCmd({kBin, "report", kProfile, "--top=0", "--format=csv", out[0], path});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(ReadFile(path), expected) << out[0];
  }
  std::string path = TempPath("spelling-eq.csv");
  EXPECT_EQ(RunCmd({kBin, "report", kProfile, "--top=0", "--format=csv", "-o=" + path}).code, 0);
  EXPECT_EQ(ReadFile(path), expected);
  EXPECT_EQ(RunCmd({kBin, "report", kProfile, "-o", "-", "--top=0", "--format=csv"}).out, expected);
  // Switches.
  for (const char* chrome : {"--chrome", "-chrome", "--chrome=true", "--chrome=1"}) {
    Result r = RunCmd({kBin, "export", kProfile, chrome, "-o", TempPath("s.trace.json")});
    EXPECT_EQ(r.code, 0) << chrome << ": " << r.err;
  }
  EXPECT_EQ(RunCmd({kBin, "export", kProfile, "--nochrome"}).code, 2);
  EXPECT_EQ(RunCmd({kBin, "export", kProfile, "--chrome=false"}).code, 2);
  Result r = RunCmd({kBin, "export", kProfile, "--chrome=maybe"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--chrome: \"maybe\" is not valid"), std::string::npos) << r.err;
  r = RunCmd({kBin, "report", kProfile, "--top"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--top needs a value"), std::string::npos) << r.err;
}

// Issue 13: nsys and ncu users write --launch-skip; `--launch_skip` still works, and
// both reach the program as the same variable.
TEST(Cli, DashesAndUnderscoresAreTheSameFlag) {
  for (const char* flag : {"--launch-skip=4", "--launch_skip=4", "-launch-skip=4"}) {
    Result r =
        RunCmd({kBin, "run", flag, "--report=none", "--", "sh", "-c", "echo $CUSCOPE_LAUNCH_SKIP"});
    EXPECT_EQ(r.code, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.out, "4\n") << flag;
  }
  Result r = RunCmd({kBin, "run", "--launch-skip=x", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("cuscope: run: --launch-skip: CUSCOPE_LAUNCH_SKIP=\"x\" is not valid", 0),
            0u)
      << r.err;
  r = RunCmd({kBin, "run", "-o", "/tmp/x.sqlite", "--", "sh", "-c", "echo $CUSCOPE_OUTPUT"});
  EXPECT_EQ(r.out, "/tmp/x.sqlite\n") << r.err;
  for (const char* off : {"--no-chrome", "--nochrome", "--no_chrome"}) {
    r = RunCmd({kBin, "export", kProfile, off});
    EXPECT_EQ(r.code, 2) << off;
    EXPECT_NE(r.err.find("choose one format"), std::string::npos) << off << ": " << r.err;
  }
}

// Issue 13: an unknown flag or command names the nearest ones.
TEST(Cli, UnknownFlagsSuggestTheNearestNames) {
  Result r = RunCmd({kBin, "run", "--launchskip=3", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "cuscope: run: unknown flag --launchskip=3; did you mean --launch-skip?");
  r = RunCmd({kBin, "report", kProfile, "--formt", "csv"});
  EXPECT_NE(r.err.find("unknown flag --formt; did you mean --format?"), std::string::npos) << r.err;
  r = RunCmd({kBin, "run", "--frobnicate-everything", "--", "true"});
  EXPECT_NE(r.err.find("unknown flag --frobnicate-everything\n"), std::string::npos) << r.err;
  r = RunCmd({kBin, "reprot", kProfile});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("; did you mean report?"), std::string::npos) << r.err;
}

// Issue 13: `cuscope run python3 -c 1` runs python3: the first word that is not a
// flag starts the program, and every word after it is the program's.
TEST(Cli, RunTakesTheProgramWithoutDashDash) {
  Result r = RunCmd({kBin, "run", "sh", "-c", "echo \"$0 $1\"; exit 3", "--top", "--"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(r.out, "--top --\n");
  r = RunCmd(
      {kBin, "run", "--api", "all", "--report=none", "sh", "-c", "echo $CUSCOPE_API", "--help"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "all\n");
  EXPECT_EQ(RunCmd({kBin, "run", "--help", "sh"}).out, RunCmd({kBin, "run", "--help"}).out);
  r = RunCmd({kBin, "run", "--api=all"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("expected PROGRAM"), std::string::npos) << r.err;
}

// Issue 31: a yes/no flag is a switch and never takes the next word as its value:
// `cuscope run --verbose python3 -c pass` read python3 as --verbose's value and
// refused "-c" as an unknown flag.
TEST(Cli, RunSwitchesNeverTakeTheNextWord) {
  Result r = RunCmd({kBin, "run", "--verbose", "python3", "-c", "print('ran')"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "ran\n") << r.err;
  EXPECT_EQ(r.err.find("unknown flag"), std::string::npos) << r.err;
  struct Case {
    std::vector<std::string> flags;
    const char* env;
  } cases[] = {{{"--verbose"}, "true,"},
               {{"--verbose=false"}, "false,"},
               {{"--verbose=1", "--no-verbose"}, "false,"},
               {{"-verbose", "--advise=off"}, "true,off"},
               {{"--noadvise", "--verbose="}, ",false"}};
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kBin, "run", "--report=none"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    argv.insert(argv.end(), {"sh", "-c", "echo $CUSCOPE_VERBOSE,$CUSCOPE_ADVISE"});
    r = RunCmd(argv);
    EXPECT_EQ(r.code, 0) << c.flags[0] << ": " << r.err;
    EXPECT_EQ(r.out, std::string(c.env) + "\n") << c.flags[0];
  }
  r = RunCmd({kBin, "run", "--verbose=maybe", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("cuscope: run: --verbose: CUSCOPE_VERBOSE=\"maybe\" is not valid; "
                        "accepted: 1, 0, true, false, yes, no, on, off",
                        0),
            0u)
      << r.err;
  // advise's switch too: the profile after it is the profile.
  r = RunCmd({kBin, "advise", "--recompute", kProfile, "--format", "json"});
  EXPECT_EQ(r.code, 0) << r.err;
}

// Issue 13: a program that never used CUDA (here: no GPU, so no process loads the
// library) gets one line saying so, and no profile; with --enable=0, nothing.
TEST(Cli, RunSaysOnceWhenNoCudaWorkWasSeen) {
  const std::string out = TempPath("nocuda-%p.sqlite");
  Result r = RunCmd({kBin, "run", "-o", out, "sh", "-c", "sh -c true; exit 5"});
  EXPECT_EQ(r.code, 5);
  EXPECT_EQ(r.err, "cuscope: no CUDA work was seen: nothing to profile\n");
  r = RunCmd({kBin, "run", "--enable=0", "true"});
  EXPECT_EQ(r.err, "");
  // A process that reported where its profile went: no such line.
  r = RunCmd({kBin, "run", "sh", "-c", "echo \"written x.sqlite\" >> \"$CUSCOPE_RUN_LOG\""});
  EXPECT_EQ(r.err, "") << r.err;
}

// Issue 13: several profiles are reported side by side, as text.
TEST(Cli, ReportComparesSeveralProfiles) {
  const std::string torch = std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-torch-loop.sqlite";
  Result r = RunCmd({kBin, "report", kProfile, torch, "--top=3"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("cuscope report: 2 profiles\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Stragglers"), std::string::npos);
  EXPECT_NE(r.out.find("GPU kernels by rank"), std::string::npos);
  EXPECT_EQ(RunCmd({kBin, "report", kProfile, torch, "--format=json"}).code, 2);
  EXPECT_EQ(RunCmd({kBin, "report", kProfile, "/no/such.sqlite"}).code, 1);
}

// Issue 13: every help fits 100 columns.
TEST(Cli, HelpLinesFitOneHundredColumns) {
  std::vector<std::vector<std::string>> helps = {{kBin, "--help"}};
  for (const char* c : {"run", "report", "diff", "export", "metrics"})
    helps.push_back({kBin, c, "--help"});
  for (const auto& argv : helps) {
    Result r = RunCmd(argv);
    EXPECT_EQ(r.code, 0) << argv[1];
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
      EXPECT_LE(line.size(), 100u) << argv[1] << ": " << line;
    }
  }
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
  // Every row's bad value: one line with the flag, the variable, the value given and
  // the row's text of what it accepts.
  for (const auto& s : cuscope::config::Settings()) {
    // Any text but blanks is a path, and blank is the default: the output's folder is
    // checked before the program runs (RunChecksTheOutputPathFirst).
    if (std::string(s.env) == "CUSCOPE_OUTPUT") continue;
    std::string bad =
        std::string(s.env) == "CUSCOPE_KERNELS" || std::string(s.env) == "CUSCOPE_REGIONS"
            ? "(x"
            : "bad value!";
    r = RunCmd({kBin, "run", std::string("--") + s.flag + "=" + bad, "--", "true"});
    EXPECT_EQ(r.code, 2) << s.env;
    std::string line = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(line.rfind(std::string("cuscope: run: --") + s.flag + ": " + s.env + "=\"" + bad +
                             "\" is not valid",
                         0),
              0u)
        << line;
    const std::string tail = "accepted: " + s.value.accepts;
    EXPECT_EQ(line.substr(line.size() - std::min(line.size(), tail.size())), tail) << line;
  }
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
  EXPECT_NE(r.err.find("expected PROGRAM [ARGS...] (or -- PROGRAM [ARGS...])"), std::string::npos)
      << r.err;
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
  for (const char* section : {"  GPU busy    GPU 0: ", "  Copies      ", "  Sync calls  ",
                              "\nMemory operations (by change of total time)\n",
                              "\nCUDA API calls (by change of total time)\n"}) {
    EXPECT_NE(r.out.find(section), std::string::npos) << section << "\n" << r.out;
  }
  r = RunCmd({kBin, "diff", kProfile, kProfile, "--format=json", "--top=0"});
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
  for (const auto& k : doc["kernels"].GetArray()) EXPECT_EQ(k["change_ns"].GetInt64(), 0);
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile}).code, 2);
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile, "/no/such.sqlite"}).code, 1);
  EXPECT_EQ(RunCmd({kBin, "diff", kProfile, kProfile, "--format=csv"}).code, 2);
}

// The comparison page: from diff --html, and from report with two profiles and --html.
TEST(Cli, DiffAndReportOfTwoWriteTheComparisonPage) {
  const std::string torch = std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-torch-loop.sqlite";
  const std::string from_diff = TempPath("diff_page.html"), from_report = TempPath("report2.html");
  unlink(from_diff.c_str());
  unlink(from_report.c_str());
  Result r = RunCmd({kBin, "diff", kProfile, torch, "--html", from_diff});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "cuscope: HTML diff written to " + from_diff + "\n");
  EXPECT_NE(r.out.find("cuscope diff"), std::string::npos);  // the text still goes to stdout
  const std::string page = ReadFile(from_diff);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("id=\"diff-kernels\""), std::string::npos);
  r = RunCmd({kBin, "report", kProfile, torch, "--html", from_report});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Stragglers"), std::string::npos) << r.out;  // the ranks' text
  EXPECT_TRUE(ReadFile(from_report) == page);
  // Three profiles have no comparison page.
  r = RunCmd({kBin, "report", kProfile, torch, kProfile, "--html", from_report});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--html takes one profile (its report) or two"), std::string::npos) << r.err;
  r = RunCmd({kBin, "diff", kProfile, torch, "--html", "/no/such/dir/d.html"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cuscope: diff: --html: cannot"), std::string::npos) << r.err;
}

// A failed write is one line and exit 1, for diff as for report.
TEST(Cli, AFailedWriteIsOneLineAndExitsOne) {
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {kBin, "diff", kProfile, kProfile, "-o", "/dev/full"},
           {kBin, "diff", kProfile, kProfile, "--format=json", "-o", "/dev/full"},
           {kBin, "report", kProfile, "-o", "/dev/full"}}) {
    Result r = RunCmd(argv);
    EXPECT_EQ(r.code, 1) << argv[1];
    EXPECT_EQ(r.err,
              "cuscope: " + argv[1] + ": writing /dev/full failed: No space left on device\n");
  }
  Result r = RunCmd({kBin, "diff", kProfile, kProfile, "-o", "/no/such/dir/d.txt"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "cuscope: diff: cannot write /no/such/dir/d.txt: No such file or directory\n");
}

// Issue 14: every flag error of every command is one line starting "cuscope:" and
// exit 2 (the flag library the redesign removed said "ERROR:" and exited 1).
TEST(Cli, FlagErrorsOfEveryCommandExitTwo) {
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {kBin, "report", kProfile, "--nope"},
           {kBin, "report", kProfile, "--output"},
           {kBin, "diff", kProfile, kProfile, "--top"},
           {kBin, "diff", kProfile, kProfile, "-x"},
           {kBin, "export", kProfile, "--chrome=maybe"},
           {kBin, "export", kProfile, "--chrome", "--format=json"},
           {kBin, "run", "--kernels", "--", "true"},
           {kBin, "run", "--nokernels", "--", "true"},
           {kBin, "report", kProfile, "--a\nb"},  // the fuzzer's: one line all the same
           {kBin, "run", "--" + std::string(5000, 'x'), "--", "true"}}) {
    Result r = RunCmd(argv);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;  // and the help line
    EXPECT_LT(r.err.size(), 400u) << r.err;
    EXPECT_EQ(r.code, 2) << argv[1] << " " << argv.back();
    EXPECT_EQ(r.err.rfind("cuscope: " + argv[1] + ": ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find("ERROR"), std::string::npos) << r.err;
  }
}

// Issue 14: `report F -o F`, `report F --roofline F`, `export F --chrome -o F` (and
// diff's -o) replaced the profile. Now refused, by file identity (another path, a
// link), exit 2 and one line, and the profile is left as it was.
TEST(Cli, OutputThatIsTheProfileIsRefused) {
  const std::string copy = TempPath("self_out.sqlite"), link = TempPath("self_out_link.sqlite");
  const std::string original = ReadFile(kProfile);
  std::string dir = copy.substr(0, copy.rfind('/'));
  std::string other_spelling = dir + "/./" + copy.substr(copy.rfind('/') + 1);
  for (const std::vector<std::string>& tail :
       std::vector<std::vector<std::string>>{{"report", copy, "-o", copy},
                                             {"report", copy, "--output", other_spelling},
                                             {"report", copy, "--roofline", link},
                                             {"report", copy, "--html", copy},
                                             {"report", copy, "--format=json", "-o=" + link},
                                             {"export", copy, "--chrome", "-o", copy},
                                             {"export", copy, "--chrome", "--output=" + link},
                                             {"diff", kProfile, copy, "-o", link},
                                             {"diff", kProfile, copy, "--html", link},
                                             {"report", kProfile, copy, "--html", copy}}) {
    std::ofstream(copy, std::ios::binary) << original;
    unlink(link.c_str());
    ASSERT_EQ(symlink(copy.c_str(), link.c_str()), 0);
    std::vector<std::string> argv = {kBin};
    argv.insert(argv.end(), tail.begin(), tail.end());
    Result r = RunCmd(argv);
    EXPECT_EQ(r.code, 2) << tail[0] << " " << tail.back();
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("refusing to write over it"), std::string::npos) << r.err;
    EXPECT_TRUE(ReadFile(copy) == original) << "the profile was changed: " << tail.back();
  }
  unlink(link.c_str());
  unlink(copy.c_str());
}

// The help says the extension chooses the format: a flag that contradicts it was
// obeyed silently (protobuf in x.json). Now one line naming both, exit 2, no file.
TEST(Cli, ExportRefusesAFormatFlagThatTheExtensionContradicts) {
  struct Case {
    const char* flag;
    const char* name;
    const char* says;
  };
  for (const Case& c : {Case{"--perfetto", "x.json", "--perfetto writes a .pftrace"},
                        Case{"--perfetto", "x.json.gz", "--perfetto writes a .pftrace"},
                        Case{"--chrome", "x.pftrace", "--chrome writes a Chrome trace"},
                        Case{"--chrome", "x.pftrace.gz", "--chrome writes a Chrome trace"}}) {
    const std::string out = TempPath(c.name);
    unlink(out.c_str());
    Result r = RunCmd({kBin, "export", kProfile, c.flag, "-o", out});
    EXPECT_EQ(r.code, 2) << c.flag << " " << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    const std::string ext = std::string(c.name).substr(1);
    EXPECT_NE(r.err.find("ends in " + ext), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.flag[2] == 'p' ? "or write --chrome" : "or write --perfetto"),
              std::string::npos)
        << r.err;
    EXPECT_NE(access(out.c_str(), F_OK), 0) << "wrote " << out;
  }
  // A flag that agrees with the name, or a name without a trace extension, is taken.
  for (const auto& [flag, name] : {std::pair{"--perfetto", "y.pftrace"},
                                   {"--chrome", "y.json"},
                                   {"--perfetto", "y.trace"},
                                   {"--chrome", "y.trace"}}) {
    Result r = RunCmd({kBin, "export", kProfile, flag, "-o", TempPath(name)});
    EXPECT_EQ(r.code, 0) << flag << " " << name << ": " << r.err;
  }
}

// An export whose filters leave nothing said nothing (exit 0, 2 metadata events).
// Now one warning line; the trace is still written.
TEST(Cli, ExportWarnsWhenItsFiltersLeaveNothing) {
  const std::string loop = std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-torch-loop.sqlite";
  const std::string out = TempPath("empty_window.json");
  Result r = RunCmd({kBin, "export", loop, "--chrome", "--from=100s", "-o", out});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("cuscope: export: warning: --from=100.000 s starts after the run's end "
                       "(it lasted "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(access(out.c_str(), F_OK), 0);
  r = RunCmd({kBin, "export", loop, "--chrome", "--kernels=nomatch_xyz", "-o", out});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("cuscope: export: warning: --kernels=nomatch_xyz matches none of the "
                       "run's "),
            std::string::npos)
      << r.err;
  r = RunCmd({kBin, "export", loop, "--chrome", "--from=100ms", "-o", out});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// Issue 14: an empty flag value counted as not given while an empty variable was an
// error. Now both are the default, and an empty flag overrides the environment.
TEST(Cli, EmptyFlagAndEmptyVariableAreTheDefault) {
  Result r = RunCmd({kBin, "run", "--trace=", "--", "sh", "-c", "echo \"[$CUSCOPE_TRACE]\""});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[]\n");
  r = RunCmd({kBin, "run", "--", "true"}, {{"CUSCOPE_TRACE", ""}});
  EXPECT_EQ(r.code, 0) << r.err;
  r = RunCmd({kBin, "run", "--kernels=", "--", "sh", "-c", "echo \"[$CUSCOPE_KERNELS]\""},
             {{"CUSCOPE_KERNELS", "gemm"}});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "[]\n");
  // Blank in the environment, bad as a flag: the flag is what is checked.
  r = RunCmd({kBin, "run", "--trace=oops", "--", "true"}, {{"CUSCOPE_TRACE", ""}});
  EXPECT_EQ(r.code, 2);
}

// Issue 14: the output was only found unwritable inside the program. Now checked
// before it starts: one line, exit 2, the program not run; %p still works.
TEST(Cli, RunChecksTheOutputPathFirst) {
  const std::string marker = TempPath("ran_marker");
  unlink(marker.c_str());
  for (const std::string& out : {std::string("/nonexistent/dir/x.sqlite"),
                                 std::string("/etc/passwd/x.sqlite"), ::testing::TempDir()}) {
    Result r = RunCmd({kBin, "run", "--output=" + out, "--", "touch", marker});
    EXPECT_EQ(r.code, 2) << out;
    EXPECT_EQ(r.err.rfind("cuscope: run: cannot write the profile " + out, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(access(marker.c_str(), F_OK), 0) << "the program ran for " << out;
  }
  Result r =
      RunCmd({kBin, "run", "--", "touch", marker}, {{"CUSCOPE_OUTPUT", "/nonexistent/%p.sqlite"}});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent"), std::string::npos) << r.err;
  for (const std::string& out : {TempPath("run-%p.sqlite"), std::string("/tmp/%p/x.sqlite")}) {
    r = RunCmd({kBin, "run", "--output=" + out, "--", "true"});
    EXPECT_EQ(r.code, 0) << out << ": " << r.err;
  }
}

// Issue 14: a program that exists but cannot be run exited 127; shells say 126.
TEST(Cli, RunExitCodesForProgramsThatDoNotStart) {
  const std::string script = TempPath("not_executable.sh");
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  chmod(script.c_str(), 0644);
  Result r = RunCmd({kBin, "run", "--", script});
  EXPECT_EQ(r.code, 126) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  r = RunCmd({kBin, "run", "--", ::testing::TempDir()});
  EXPECT_EQ(r.code, 126) << r.err;
  r = RunCmd({kBin, "run", "--", "no-such-program-anywhere"});
  EXPECT_EQ(r.code, 127) << r.err;
  unlink(script.c_str());
}

// Issue 14: 20,000 nested parentheses crashed `cuscope run` (std::regex's recursion).
TEST(Cli, DeeplyNestedKernelsPatternIsAUsageError) {
  const std::string deep = std::string(20000, '(') + "a" + std::string(20000, ')');
  Result r = RunCmd({kBin, "run", "--kernels=" + deep, "--", "true"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("cuscope: run: --kernels: CUSCOPE_KERNELS=\"", 0), 0u) << r.err;
  EXPECT_LT(r.err.size(), 800u) << r.err;
  r = RunCmd({kBin, "run", "--", "true"}, {{"CUSCOPE_REGIONS", deep}});
  EXPECT_EQ(r.code, 2) << r.err;
  r = RunCmd({kBin, "run", "--capture=range:a:b", "--", "true"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("range:REGEX[:N]"), std::string::npos) << r.err;
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
  std::set<std::string> expected = {"InitializeInjection", "InitializeInjectionNvtx2",
                                    "cuscope_start",       "cuscope_stop",
                                    "cuscope_flush",       "cuscope_is_active",
                                    "cuscope_output_path", "cuscope_last_error",
                                    "cuscope_version"};
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
  EXPECT_NE(
      r.err.find("CUSCOPE_MAX_BUFFERS=\"1\" is not valid; accepted: an integer from 2 to 65536"),
      std::string::npos)
      << r.err;
}

// cuscope_start's settings: a ';' inside a value (a regular expression) stays in it.
TEST(Library, StartSettingsKeepASemicolonInAValue) {
  std::string code =
      "import ctypes, sys\n"
      "lib = ctypes.CDLL(sys.argv[1])\n"
      "lib.cuscope_last_error.restype = ctypes.c_char_p\n"
      "print(lib.cuscope_start(b'CUSCOPE_KERNELS=gemm;fused;CUSCOPE_ENABLE=0'))\n"
      "print(lib.cuscope_start(b'CUSCOPE_REGIONS=a(;b;CUSCOPE_ENABLE=0'))\n"
      "print(lib.cuscope_last_error().decode())\n";
  std::string script = TempPath("start_text.py");
  {
    std::ofstream f(script);
    f << code;
  }
  Result r = RunCmd({"python3", script, kLib});
  ASSERT_EQ(r.code, 0) << r.err;
  // -6: disabled (both settings read); -1: a setting refused.
  EXPECT_EQ(r.out.rfind("-6\n-1\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("CUSCOPE_REGIONS=\"a(;b\" is not valid"), std::string::npos) << r.out;
}

}  // namespace
