// The session's background thread (lib/inject/flush_thread.h): a Nudge runs the tick
// at once, not at the next flush period, and many nudges before the thread takes one
// ask for one tick.
#include "lib/inject/flush_thread.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gtest/gtest.h"
#include "lib/inject/signal_stop.h"

namespace cuscope::inject {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Polls `done` for up to `limit`; whether it came true.
template <typename Done>
bool WaitFor(Done done, milliseconds limit) {
  const auto until = steady_clock::now() + limit;
  while (!done()) {
    if (steady_clock::now() > until) return false;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return true;
}

TEST(FlushThreadTest, ANudgeTicksNowAndFlushesNothing) {
  SignalStop signals;
  FlushThread thread(signals);
  std::atomic<int> flushes{0}, ticks{0};
  FlushThread::Work work;
  work.flush = [&](bool) {
    ++flushes;
    return true;
  };
  work.stop_on_signal = [](int) {};
  work.tick = [&] { ++ticks; };
  ASSERT_TRUE(thread.Start(/*period_ms=*/60000, std::move(work)));
  const auto t0 = steady_clock::now();
  thread.Nudge();
  EXPECT_TRUE(WaitFor([&] { return ticks.load() == 1; }, milliseconds(5000)));
  EXPECT_LT(steady_clock::now() - t0, milliseconds(5000));
  EXPECT_EQ(flushes.load(), 0);  // a minute's period: no periodic flush yet
  // Taken: the next nudge asks again.
  thread.Nudge();
  EXPECT_TRUE(WaitFor([&] { return ticks.load() == 2; }, milliseconds(5000)));
  thread.End();
  EXPECT_EQ(ticks.load(), 2);
}

TEST(FlushThreadTest, NudgesBeforeTheThreadWakesAskForOneTick) {
  SignalStop signals;
  FlushThread thread(signals);
  std::atomic<int> ticks{0};
  FlushThread::Work work;
  work.flush = [](bool) { return true; };
  work.stop_on_signal = [](int) {};
  work.tick = [&] {
    ++ticks;
    std::this_thread::sleep_for(milliseconds(50));  // nudges pile up meanwhile
  };
  ASSERT_TRUE(thread.Start(60000, std::move(work)));
  thread.Nudge();
  ASSERT_TRUE(WaitFor([&] { return ticks.load() == 1; }, milliseconds(5000)));
  for (int i = 0; i < 100; ++i) thread.Nudge();  // while the first tick runs
  std::this_thread::sleep_for(milliseconds(300));
  thread.End();
  EXPECT_EQ(ticks.load(), 2);
}

TEST(FlushThreadTest, ANudgeWithoutAThreadIsHarmless) {
  SignalStop signals;
  FlushThread thread(signals);
  thread.Nudge();
  thread.End();
}

}  // namespace
}  // namespace cuscope::inject
