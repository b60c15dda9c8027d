#include "lib/inject/flush_thread.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

namespace cuscope::inject {
namespace {

// While a flush waits for a measured region instance to end: a look every few ms.
constexpr int kRegionRetryMs = 5;

timespec RealtimeIn(int ms) {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_sec += ms / 1000;
  t.tv_nsec += (ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec += 1;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

// Waits for a post on `sem` at most `ms`; true if it came.
bool TimedWait(sem_t* sem, int ms) {
  const timespec deadline = RealtimeIn(ms);
  int rc;
  do {
    rc = sem_timedwait(sem, &deadline);
  } while (rc != 0 && errno == EINTR);
  return rc == 0;
}

}  // namespace

FlushThread::FlushThread(SignalStop& signals) : signals_(signals) {
  sem_init(&wake_, 0, 0);
  sem_init(&ended_, 0, 0);
}

bool FlushThread::Start(int period_ms, Work work) {
  if (abandoned_) return false;
  if (thread_ != nullptr && thread_->joinable()) thread_->join();
  thread_.reset();
  while (sem_trywait(&wake_) == 0) {
  }
  while (sem_trywait(&ended_) == 0) {
  }
  stop_.store(false);
  period_ms_ = period_ms;
  work_ = std::move(work);
  signals_.Arm(getpid(), &wake_);
  try {
    thread_ = std::make_unique<std::thread>(&FlushThread::Loop, this);
  } catch (const std::system_error&) {
    signals_.Release();
    return false;
  }
  return true;
}

void FlushThread::End() {
  if (thread_ == nullptr) return;
  stop_.store(true);
  sem_post(&wake_);
  if (thread_->get_id() == std::this_thread::get_id()) return;  // a stop on a signal
  if (TimedWait(&ended_, kEndWaitMs)) {
    thread_->join();
    thread_.reset();
  } else {
    // It returns once CUPTI lets it (stop_ stays set); it is never restarted.
    thread_->detach();
    thread_.reset();
    abandoned_ = true;
  }
}

void FlushThread::Nudge() {
  if (!nudged_.exchange(true)) sem_post(&wake_);
}

void FlushThread::ForgetInChild() {
  // No join or detach: the handle names a thread of the parent. The object is let
  // go without its destructor (which would end the process on a joinable thread).
  (void)thread_.release();
}

void FlushThread::Loop() {
  // Process-directed SIGINT/SIGTERM must not land here: the handler waits for this
  // thread to write the profile.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);
  int deferred_ms = 0;  // how long the current period's flush has waited for a region
  while (!stop_.load()) {
    // A flush inside a measured region instance would show in its span: wait for the
    // instance to end, a few ms at a time, but not longer than one more period (a
    // crash keeps what was flushed).
    const int period = period_ms_;
    bool woken;
    if (period > 0) {
      woken = TimedWait(&wake_, deferred_ms > 0 ? kRegionRetryMs : period);
    } else {
      while (sem_wait(&wake_) != 0 && errno == EINTR) {
      }
      woken = true;
    }
    if (stop_.load()) break;
    if (const int sig = signals_.Pending(); sig != 0) {
      work_.stop_on_signal(sig);
      break;
    }
    if (woken) {
      if (nudged_.exchange(false) && work_.tick) work_.tick();
      continue;
    }
    if (!work_.flush(/*even_if_held=*/deferred_ms >= period)) {
      deferred_ms += kRegionRetryMs;
      continue;
    }
    deferred_ms = 0;
  }
  signals_.Release();
  sem_post(&ended_);
}

}  // namespace cuscope::inject
