// The stop reasons' text in the profile (RunInfo::exit_reason): reports and older
// profiles' readers show it as is, so each stays byte-identical.
#include "lib/inject/stop_reason.h"

#include <signal.h>

#include "gtest/gtest.h"

namespace cuscope::inject {
namespace {

TEST(StopReasonTest, EachCauseKeepsItsStoredText) {
  EXPECT_EQ(ExitReasonText(StopReason::Exit()), "exit");
  EXPECT_EQ(ExitReasonText(StopReason::StopCall()), "stop");
  EXPECT_EQ(ExitReasonText(StopReason::Signal(SIGINT)), "signal 2");
  EXPECT_EQ(ExitReasonText(StopReason::Signal(SIGTERM)), "signal 15");
  EXPECT_EQ(ExitReasonText(StopReason::NotStarted()), "not started");
}

TEST(StopReasonTest, OnlyASignalIsOnSignal) {
  EXPECT_TRUE(StopReason::Signal(SIGINT).on_signal());
  EXPECT_FALSE(StopReason::Exit().on_signal());
  EXPECT_FALSE(StopReason::StopCall().on_signal());
  EXPECT_FALSE(StopReason::NotStarted().on_signal());
}

}  // namespace
}  // namespace cuscope::inject
