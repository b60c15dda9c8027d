// ThreadSanitizer builds only (tests/CMakeLists.txt links it with -Wl,--wrap=...).
//
// Debian's Abseil is not built with -fsanitize=thread, so absl::Mutex's own TSan
// annotations are compiled out and its lock/unlock (futexes and atomics inside
// libabsl_synchronization.so) are invisible to TSan: every variable guarded by an
// absl::Mutex would be reported as a race. The calls that cuscope's code makes to
// absl::Mutex are wrapped here and told to TSan with its mutex annotations, as
// Abseil does itself when built with TSan. lib/collect uses only Lock/Unlock/TryLock/
// ReaderLock/ReaderUnlock and the destructor (no CondVar, no Await). lib/inject's
// Session::Start calls Mutex::Await, which, when it waits, releases and retakes the
// lock inside libabsl where these wrappers do not see it; it waits only while a Stop
// is joining its background thread, which the tests scripts/tsan.sh runs never
// overlap with a Start (they start a session after the last Stop returned).
#include <sanitizer/tsan_interface.h>

// Default visibility: the project builds with hidden symbols, and the linker
// wants the wrappers visible.
#pragma GCC visibility push(default)
extern "C" {

// The symbols of absl::debian3::Mutex (nm -D libabsl_synchronization.so).
void __real__ZN4absl7debian35Mutex4LockEv(void* mu);
void __real__ZN4absl7debian35Mutex6UnlockEv(void* mu);
bool __real__ZN4absl7debian35Mutex7TryLockEv(void* mu);
void __real__ZN4absl7debian35Mutex10ReaderLockEv(void* mu);
void __real__ZN4absl7debian35Mutex12ReaderUnlockEv(void* mu);
void __real__ZN4absl7debian35MutexD1Ev(void* mu);

void __wrap__ZN4absl7debian35Mutex4LockEv(void* mu) {
  __tsan_mutex_pre_lock(mu, 0);
  __real__ZN4absl7debian35Mutex4LockEv(mu);
  __tsan_mutex_post_lock(mu, 0, 0);
}

void __wrap__ZN4absl7debian35Mutex6UnlockEv(void* mu) {
  __tsan_mutex_pre_unlock(mu, 0);
  __real__ZN4absl7debian35Mutex6UnlockEv(mu);
  __tsan_mutex_post_unlock(mu, 0);
}

bool __wrap__ZN4absl7debian35Mutex7TryLockEv(void* mu) {
  __tsan_mutex_pre_lock(mu, __tsan_mutex_try_lock);
  const bool locked = __real__ZN4absl7debian35Mutex7TryLockEv(mu);
  __tsan_mutex_post_lock(mu, __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed),
                         0);
  return locked;
}

void __wrap__ZN4absl7debian35Mutex10ReaderLockEv(void* mu) {
  __tsan_mutex_pre_lock(mu, __tsan_mutex_read_lock);
  __real__ZN4absl7debian35Mutex10ReaderLockEv(mu);
  __tsan_mutex_post_lock(mu, __tsan_mutex_read_lock, 0);
}

void __wrap__ZN4absl7debian35Mutex12ReaderUnlockEv(void* mu) {
  __tsan_mutex_pre_unlock(mu, __tsan_mutex_read_lock);
  __real__ZN4absl7debian35Mutex12ReaderUnlockEv(mu);
  __tsan_mutex_post_unlock(mu, __tsan_mutex_read_lock);
}

void __wrap__ZN4absl7debian35MutexD1Ev(void* mu) {
  __tsan_mutex_destroy(mu, 0);
  __real__ZN4absl7debian35MutexD1Ev(mu);
}

}  // extern "C"
#pragma GCC visibility pop
