// A run's end (lib/inject/run_end.h) in a process of its own, `cuscope _end-run`
// (lib/inject/end_process.h, lib/cli/end_run.cc), against the end in this process: the
// same report on stderr, byte for byte, and the same findings stored, for recorded
// profiles and settings that change both; the settings reach the command from the
// run's config, not from this process's CUSCOPE_* variables; a command that is
// another version, or not one that knows _end-run, leaves the end to this process; a
// command that crashes is said in one line and not followed by a second end here.
#include "lib/inject/run_end.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "lib/config/from_env.h"
#include "lib/inject/end_process.h"
#include "lib/store/reader.h"
#include "tests/test_util.h"

namespace cuscope::inject {
namespace {

const std::string kCommand = std::string(CUSCOPE_BINARY_DIR) + "/bin/cuscope";

// A temporary file of this process: ctest runs this binary's tests as processes side by
// side, which must not share a file.
std::string Temp(const std::string& name) {
  return testing_util::TempPath(absl::StrCat("run_end_", getpid(), "_", name));
}

std::string Copy(const std::string& name, const std::string& to) {
  const std::string from = std::string(CUSCOPE_TEST_DATA_DIR) + "/" + name;
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  return to;
}

std::string Absolute(const std::string& path) {
  char resolved[4096];
  return realpath(path.c_str(), resolved) != nullptr ? resolved : "";
}

// An executable shell script at `path`.
std::string Script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

// What `run` writes on stderr, with `path` as PATH.
template <typename Run>
std::string Captured(const std::string& path, const Run& run) {
  const std::string file = Temp("run_end_stderr.txt");
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, STDERR_FILENO);
  close(fd);
  run();
  dup2(saved, STDERR_FILENO);
  close(saved);
  return absl::StrReplaceAll(testing_util::ReadFile(file), {{path, "PATH"}});
}

// What FinishRun writes on stderr, with the profile's path as PATH.
std::string EndOf(const RunEnd& end) {
  return Captured(end.path, [&end] { FinishRun(end); });
}

std::vector<model::Finding> Stored(const std::string& path) {
  absl::StatusOr<model::Profile> p = store::LoadStoredFindings(path);
  EXPECT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p.ok() && p->findings.has_value()) << path << ": no findings stored";
  return p.ok() && p->findings ? *p->findings : std::vector<model::Finding>{};
}

RunEnd EndAt(const std::string& path, const config::Config& config, const std::string& command) {
  RunEnd end;
  end.path = path;
  end.pid = 1;
  end.config = config;
  end.end_command = command;
  return end;
}

TEST(RunEnd, InItsOwnProcessAsInThisOne) {
  ASSERT_EQ(access(kCommand.c_str(), X_OK), 0) << kCommand;
  // This process's variables do not reach the command: the run's config does.
  setenv("CUSCOPE_ADVISE_MIN_GAIN_PCT", "not a number", 1);
  config::Config changed;
  changed.report_top = 3;
  changed.report_width = 90;
  changed.thresholds.min_gain_pct = 0.5;
  config::Config no_advice;
  no_advice.advise = false;
  for (const char* name :
       {"h200-timeline-demo.sqlite", "h200-counters-demo.sqlite", "real/h100-gpt2-trace.sqlite",
        "real/h200-gpt2-rotate-roofline.sqlite"}) {
    for (const config::Config& config : {config::Config(), changed, no_advice}) {
      const std::string there = Copy(name, Temp("run_end_there.sqlite"));
      const std::string here = Copy(name, Temp("run_end_here.sqlite"));
      EndOutcome outcome = EndOutcome::kNotRun;
      const std::string text = Captured(
          there, [&] { outcome = RunEndProcess(kCommand, there, config, /*print_report=*/true); });
      EXPECT_EQ(outcome, EndOutcome::kDone) << name << "\n" << text;
      EXPECT_EQ(text + "cuscope: profile written to PATH\n", EndOf(EndAt(here, config, "")))
          << name;
      EXPECT_GT(text.size(), 1000u) << name << ": no report?\n" << text;
      if (config.advise) {
        EXPECT_EQ(Stored(there), Stored(here)) << name;
      }
      const std::string again = Copy(name, Temp("run_end_again.sqlite"));
      EXPECT_EQ(EndOf(EndAt(again, config, kCommand)), EndOf(EndAt(here, config, ""))) << name;
    }
  }
  unsetenv("CUSCOPE_ADVISE_MIN_GAIN_PCT");
}

// Without the report (CUSCOPE_REPORT=none, or another rank prints it) the findings are
// still stored; with neither, nothing is read back.
TEST(RunEnd, FindingsWithoutTheReport) {
  config::Config quiet;
  quiet.report = config::ReportMode::kNone;
  const std::string path = Copy("h200-timeline-demo.sqlite", Temp("q.sqlite"));
  EXPECT_EQ(EndOf(EndAt(path, quiet, kCommand)), "cuscope: profile written to PATH\n");
  EXPECT_FALSE(Stored(path).empty());
  config::Config other_rank;
  other_rank.report_rank = 0;
  RunEnd end = EndAt(path, other_rank, kCommand);
  end.rank = 1;
  EXPECT_EQ(EndOf(end), "cuscope: profile written to PATH\n");
  // A command that would fail says nothing: with neither findings nor report it is
  // not run.
  end.config.advise = false;
  end.end_command = Script(Temp("loud.sh"), "echo ran >&2; exit 1");
  EXPECT_EQ(EndOf(end), "cuscope: profile written to PATH\n");
}

// On a signal the user wants the program gone: no end, the line naming the profile.
TEST(RunEnd, NoEndOnASignal) {
  const std::string path = Copy("h200-timeline-demo.sqlite", Temp("s.sqlite"));
  RunEnd end = EndAt(path, config::Config(), kCommand);
  end.on_signal = true;
  EXPECT_EQ(EndOf(end), "cuscope: profile written to PATH\n");
}

// A `cuscope` of another version (exit 3), one without _end-run (a usage error, 2)
// or one that cannot run: this process ends the run itself.
TEST(RunEnd, AnotherCommandLeavesTheEndHere) {
  const std::string path = Copy("h200-timeline-demo.sqlite", Temp("v.sqlite"));
  const std::string expected = EndOf(EndAt(path, config::Config(), ""));
  for (const char* body : {"exit 3", "exit 2"}) {
    const std::string script = Script(Temp("other.sh"), body);
    EXPECT_EQ(EndOf(EndAt(path, config::Config(), script)), expected) << body;
  }
  EXPECT_EQ(EndOf(EndAt(path, config::Config(), Temp("no-such-command"))), expected);
  // The real command refuses another library version, doing nothing.
  testing_util::ProgramResult r =
      testing_util::RunProgram({kCommand, "_end-run", path, "--library-version=0.0.0-other"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err, "");
}

// A command that crashes: one line, and no second end in this process.
TEST(RunEnd, ACrashedCommandIsSaid) {
  const std::string path = Copy("h200-timeline-demo.sqlite", Temp("c.sqlite"));
  const std::string script = Script(Temp("crash.sh"), "kill -KILL $$");
  const std::string text = EndOf(EndAt(path, config::Config(), script));
  EXPECT_NE(text.find("ended by signal 9"), std::string::npos) << text;
  EXPECT_NE(text.find("`cuscope report PATH` prints it"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
}

// A program traced on the fake CUPTI under `cuscope run`: its exit code passed on, the
// report at its end printed by the command's _end-run, the findings stored; and the
// same program injected by hand (no command named, none beside this test's code) ends
// its run itself, with the same report.
TEST(RunEnd, UnderCuscopeRunAndWithout) {
  const std::string path = Temp("run_end_run.sqlite");
  testing_util::ProgramResult r =
      testing_util::RunProgram({kCommand, "run", "--metrics=none", "--verbose", "-o", path, "--",
                                CUSCOPE_TRACED_PROGRAM, "3000", "7"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find(" _end-run\n"), std::string::npos) << r.err;
  const size_t report = r.err.find("GPU kernels");
  const size_t written = r.err.find("cuscope: profile written to " + path + "\n");
  EXPECT_NE(report, std::string::npos) << r.err;
  EXPECT_NE(written, std::string::npos) << r.err;
  EXPECT_LT(report, written) << r.err;
  EXPECT_FALSE(Stored(path).empty());

  testing_util::ProgramResult bare = testing_util::RunProgram(
      {CUSCOPE_TRACED_PROGRAM, "3000", "5"},
      {{"CUSCOPE_OUTPUT", path}, {"CUSCOPE_METRICS", "none"}, {"CUSCOPE_VERBOSE", "1"}});
  EXPECT_EQ(bare.exit_code, 5) << bare.err;
  EXPECT_EQ(bare.err.find(" _end-run\n"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("GPU kernels"), std::string::npos) << bare.err;
  EXPECT_FALSE(Stored(path).empty());
}

// CUSCOPE_COMMAND names the command when it is an executable file; outside
// libcuscope.so (this test links the session's code) nothing else is looked for.
TEST(RunEnd, FindEndCommand) {
  auto env = [](const char* value) {
    return [value](const char* name) -> const char* {
      return std::string(name) == "CUSCOPE_COMMAND" ? value : nullptr;
    };
  };
  EXPECT_EQ(FindEndCommand(env(kCommand.c_str())), Absolute(kCommand));
  EXPECT_EQ(FindEndCommand(env("/no/such/cuscope")), "");
  EXPECT_EQ(FindEndCommand(env(CUSCOPE_TEST_DATA_DIR)), "");  // a folder
  EXPECT_EQ(FindEndCommand(env(nullptr)), "");
}

}  // namespace
}  // namespace cuscope::inject
