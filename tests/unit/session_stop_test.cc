// How a session's run ends, without a GPU (the fake CUPTI of tests/fake_cupti): the
// stored reason for each way, the background thread started and joined by every
// run, and the process-level stops: a terminating signal writes the profile and the
// process still dies by that signal; exit writes it with the program's exit code;
// a program's own handler is left to decide; a forked child neither stops nor
// flushes the parent's run. The process-level cases run in child processes (gtest
// death tests, "threadsafe": a fresh process each).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>

#include "cuscope/cuscope_c.h"
#include "gtest/gtest.h"
#include "lib/inject/session.h"
#include "lib/store/reader.h"
#include "tests/fake_cupti/fake_cupti.h"

namespace cuscope::inject {
namespace {

using fake_cupti::Kind;

constexpr int kRecords = 300;

class SessionStopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    fake_cupti::Reset();
    path_ = ::testing::TempDir() + "session_stop_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".cuscope";
    std::remove(path_.c_str());
    env_ = {
        {"CUSCOPE_OUTPUT", path_}, {"CUSCOPE_REPORT", "none"}, {"CUSCOPE_FLUSH_PERIOD_MS", "1"}};
  }

  absl::Status StartSession() {
    return TheSession().Start([this](const char* name) -> const char* {
      auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    });
  }

  // kRecords runtime API records, as the program's calls would make them.
  void MakeRecords() {
    for (uint32_t n = 1; n <= kRecords; ++n) fake_cupti::Emit(Kind::kRuntimeApi, next_++);
  }

  model::Profile Load() {
    absl::StatusOr<model::Profile> p = store::LoadProfile(path_);
    EXPECT_TRUE(p.ok()) << p.status();
    return p.ok() ? *std::move(p) : model::Profile();
  }

  void StopAndDrain() {
    ASSERT_TRUE(TheSession().Stop(StopReason::StopCall()).ok());
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }

  std::string path_;
  std::map<std::string, std::string> env_;
  uint32_t next_ = 1;
};

TEST_F(SessionStopTest, StopCallIsStoredAsStop) {
  ASSERT_TRUE(StartSession().ok());
  MakeRecords();
  StopAndDrain();
  EXPECT_FALSE(TheSession().Active());
  model::Profile p = Load();
  EXPECT_EQ(p.run.exit_reason, "stop");
  EXPECT_EQ(p.api_calls.size(), size_t{kRecords});
  EXPECT_GE(p.run.end_ns, p.run.start_ns);
}

// A second stop has no run to end; a start while one runs is refused.
TEST_F(SessionStopTest, StopWithoutARunAndStartDuringOneAreRefused) {
  EXPECT_EQ(TheSession().Stop(StopReason::StopCall()).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(StartSession().ok());
  EXPECT_EQ(StartSession().code(), absl::StatusCode::kAlreadyExists);
  StopAndDrain();
  EXPECT_EQ(TheSession().Stop(StopReason::StopCall()).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(TheSession().Flush().code(), absl::StatusCode::kFailedPrecondition);
}

// Each run starts its background thread and its stop joins it: runs one after the
// other each get every record (flushed every millisecond while they run).
TEST_F(SessionStopTest, RunsOneAfterTheOtherEachJoinTheirThread) {
  for (int run = 0; run < 20; ++run) {
    fake_cupti::Reset();
    ASSERT_TRUE(StartSession().ok()) << "run " << run;
    MakeRecords();
    std::this_thread::sleep_for(std::chrono::milliseconds(run % 3));
    StopAndDrain();
    model::Profile p = Load();
    EXPECT_EQ(p.api_calls.size(), size_t{kRecords}) << "run " << run;
    EXPECT_EQ(p.run.exit_reason, "stop");
  }
}

// SIGTERM with its default disposition: the profile is written on the background
// thread ("signal 15", every record), then the process ends by SIGTERM.
TEST_F(SessionStopTest, TerminatingSignalWritesTheProfileAndEndsBySignal) {
  EXPECT_EXIT(
      {
        if (!StartSession().ok()) std::_Exit(20);
        MakeRecords();
        raise(SIGTERM);
        std::_Exit(21);  // not reached: SIGTERM ends the process
      },
      ::testing::KilledBySignal(SIGTERM), "");
  model::Profile p = Load();
  EXPECT_EQ(p.run.exit_reason, "signal 15");
  EXPECT_EQ(p.api_calls.size(), size_t{kRecords});
}

TEST_F(SessionStopTest, InterruptWritesTheProfileAndEndsBySignal) {
  EXPECT_EXIT(
      {
        if (!StartSession().ok()) std::_Exit(20);
        MakeRecords();
        raise(SIGINT);
        std::_Exit(21);
      },
      ::testing::KilledBySignal(SIGINT), "");
  EXPECT_EQ(Load().run.exit_reason, "signal 2");
}

// At exit (atexit): the profile is written ("exit"), the exit code is the program's.
TEST_F(SessionStopTest, ExitWritesTheProfileAndKeepsTheExitCode) {
  EXPECT_EXIT(
      {
        if (!StartSession().ok()) std::_Exit(20);
        MakeRecords();
        std::exit(3);
      },
      ::testing::ExitedWithCode(3), "profile written to");
  model::Profile p = Load();
  EXPECT_EQ(p.run.exit_reason, "exit");
  EXPECT_EQ(p.api_calls.size(), size_t{kRecords});
}

// At exit without one record: no file, and the exit code stays the program's.
TEST_F(SessionStopTest, ExitWithNothingRecordedLeavesNoFile) {
  EXPECT_EXIT(
      {
        if (!StartSession().ok()) std::_Exit(20);
        std::exit(4);
      },
      ::testing::ExitedWithCode(4), "");
  EXPECT_NE(access(path_.c_str(), F_OK), 0) << path_;
}

std::atomic<int> g_own_handler_calls{0};

// The program's own SIGTERM handler is called and the run goes on; the profile is
// written at exit.
TEST_F(SessionStopTest, ProgramsOwnHandlerDecides) {
  EXPECT_EXIT(
      {
        struct sigaction own = {};
        own.sa_handler = [](int) { g_own_handler_calls.fetch_add(1); };
        sigemptyset(&own.sa_mask);
        sigaction(SIGTERM, &own, nullptr);
        if (!StartSession().ok()) std::_Exit(20);
        MakeRecords();
        raise(SIGTERM);
        if (g_own_handler_calls.load() != 1 || !TheSession().Active()) std::_Exit(22);
        std::exit(5);
      },
      ::testing::ExitedWithCode(5), "");
  EXPECT_EQ(Load().run.exit_reason, "exit");
}

// A forked child neither stops nor flushes the parent's run, and its exit hook and
// a terminating signal leave the parent's profile alone.
TEST_F(SessionStopTest, ForkedChildLeavesTheParentsRunAlone) {
  ASSERT_TRUE(StartSession().ok());
  MakeRecords();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    if (cuscope_stop() != CUSCOPE_ERROR_NOT_ACTIVE) code |= 1;
    if (cuscope_flush() != CUSCOPE_ERROR_NOT_ACTIVE) code |= 2;
    TheSession().OnExit();  // what the atexit hook does: nothing here
    raise(SIGTERM);         // no wait for the parent's thread: the child ends now
    std::_Exit(code | 4);
  }
  const auto forked = std::chrono::steady_clock::now();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  // Well under the handler's wait for a thread (SignalStop::kMaxWaitMs): none here.
  EXPECT_LT(std::chrono::steady_clock::now() - forked, std::chrono::milliseconds(1500));
  EXPECT_TRUE(TheSession().Active());
  MakeRecords();
  StopAndDrain();
  model::Profile p = Load();
  EXPECT_EQ(p.run.exit_reason, "stop");
  EXPECT_EQ(p.api_calls.size(), size_t{2 * kRecords});
}

}  // namespace
}  // namespace cuscope::inject
