#include "lib/inject/signal_stop.h"

#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

namespace cuscope::inject {
namespace {

// The SignalStop the handler serves (SignalStop::Install); never cleared.
std::atomic<SignalStop*> g_signal_stop{nullptr};

static_assert(std::atomic<SignalStop*>::is_always_lock_free &&
                  std::atomic<sem_t*>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free &&
                  std::atomic<pid_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the signal handler uses only lock-free atomics");

int64_t MonotonicMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000 + ts.tv_nsec / 1000000;
}

bool IsFunction(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO)
             ? action.sa_sigaction != nullptr
             : (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
}

}  // namespace

void SignalStop::Install() {
  struct sigaction sa = {};
  sa.sa_sigaction = OnSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  g_signal_stop.store(this);
  sigaction(SIGINT, &sa, &previous_int_);
  sigaction(SIGTERM, &sa, &previous_term_);
}

void SignalStop::Arm(pid_t owner, sem_t* wake) {
  pending_.store(0);
  released_.store(false);
  wake_.store(wake);
  owner_.store(owner);
}

void SignalStop::Release() {
  released_.store(true);
  owner_.store(0);
}

void SignalStop::OnSignal(int sig, siginfo_t* info, void* context) {
  if (SignalStop* self = g_signal_stop.load()) self->Handle(sig, info, context);
}

void SignalStop::Handle(int sig, siginfo_t* info, void* context) {
  struct sigaction& prev = sig == SIGINT ? previous_int_ : previous_term_;
  if (IsFunction(prev)) {
    if (prev.sa_flags & SA_SIGINFO) {
      prev.sa_sigaction(sig, info, context);
    } else {
      prev.sa_handler(sig);
    }
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  // Only the first signal is handed over; a second one ends the process at once.
  if (owner_.load() == getpid() && pending_.exchange(sig) == 0) {
    sem_post(wake_.load());
    WaitForRelease();
  }
  sigaction(sig, &prev, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

// Sleeps of 10 ms in poll() with no descriptor, between looks at the flag, until
// Release or kMaxWaitMs. POSIX lists poll and clock_gettime as async-signal-safe;
// neither nanosleep nor sem_wait, sem_timedwait or sem_trywait is on its list. A
// wait that never wakes early would need a descriptor to poll (a pipe the thread
// writes to), taken from the host, which may close or reuse descriptors it did not
// open: a write then lands in one of the program's files. The sleeps cost at most
// 300 wake-ups on the way out of a process that is ending, and the handler goes on
// within 10 ms of Release.
void SignalStop::WaitForRelease() const {
  const int64_t deadline = MonotonicMs() + kMaxWaitMs;
  for (int64_t now = MonotonicMs(); !released_.load() && now < deadline; now = MonotonicMs()) {
    const int64_t left = deadline - now;
    poll(nullptr, 0, static_cast<int>(left < 10 ? left : 10));
  }
}

}  // namespace cuscope::inject
