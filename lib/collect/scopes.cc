#include "lib/collect/scopes.h"

#include <cupti.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/node_hash_map.h"

namespace cuscope::collect::scopes {
namespace {

// Bit 0: recording. Bits 1..63: the generation, bumped by every SetRecording(true).
// Read once per Push/Pop (relaxed): the whole cost of a scope outside a session.
std::atomic<uint64_t> g_state{0};
constexpr uint64_t kRecordingBit = 1;

std::atomic<uint32_t> g_pid{0};
// Which thread id CUPTI reports (see scopes.h): false = pthread_self (CUPTI's
// default), true = gettid.
std::atomic<bool> g_system_thread_ids{false};

std::atomic<uint64_t> g_unbalanced_pops{0};
std::atomic<uint64_t> g_dropped_open{0};
std::atomic<bool> g_warned_unbalanced{false};

uint32_t Generation(uint64_t state) { return static_cast<uint32_t>(state >> 1); }

using Site = cuscope_source_location;

// Recorded entries only: the name is `name` unless `site_named`, then site->name.
struct Entry {
  uint64_t state = 0;          // g_state at push; bit 0 set = recorded (else a marker)
  uint64_t start_ns = 0;       // recorded entries only
  uint32_t depth = 0;          // recorded scopes of its generation enclosing it
  bool site_named = false;     // recorded entries only
  const Site* site = nullptr;  // recorded entries only; nullptr: no site
  model::SourceLocationKind kind = model::SourceLocationKind::kScope;  // the site's kind
  std::string name;  // recorded entries only; capacity reused across pushes
};

struct PendingScope {
  std::string name;  // "" when site_named
  const Site* site = nullptr;
  bool site_named = false;
  model::SourceLocationKind kind = model::SourceLocationKind::kScope;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t pid = 0, tid = 0, depth = 0;
};

// A site met by Drain: its strings, copied the first time, and its location id.
struct SiteInfo {
  model::LocationId id = model::kNoLocation;
  std::string name, function, file;
  uint32_t line = 0;
  model::SourceLocationKind kind = model::SourceLocationKind::kScope;
  uint64_t emitted_in = 0;  // 1 + the generation whose batch got its location; 0: none
};

struct ThreadState {
  std::vector<Entry> entries;  // the stack is entries[0, depth); the rest is reused
  uint32_t depth = 0;
  uint32_t os_tid = 0;
  // (generation << 32) | number of recorded scopes of that generation open on this
  // thread. Written by the owning thread only; read by CloseOpenScopes on others.
  std::atomic<uint64_t> open{0};
  // Closed scopes waiting for Drain: appended by the owning thread, taken by Drain.
  // Per thread, so that threads never contend with each other.
  std::mutex mu;
  std::vector<PendingScope> done;   // guarded by mu
  std::vector<PendingScope> spare;  // Drain's: swapped with `done`, keeps capacity
};

// Never destroyed: threads may push and pop while the process exits.
// Lock order: drain_mu, then registry_mu, then a thread's mu.
struct Shared {
  std::mutex drain_mu;  // serializes Drain; guards next_id, drained and sites
  uint64_t next_id = 0;
  uint64_t drained = 0;
  absl::node_hash_map<const Site*, SiteInfo> sites;  // stable references
  std::mutex registry_mu;
  std::vector<ThreadState*> threads;  // guarded by registry_mu
  std::vector<PendingScope> orphans;  // closed scopes of exited threads; registry_mu
};

Shared& G() {
  static Shared* shared = new Shared();
  return *shared;
}

std::atomic<uint64_t> g_overflow{0};

thread_local ThreadState* t_state = nullptr;

uint32_t OsThreadId() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

uint32_t ThreadIdOf(const ThreadState* t) {
  if (g_system_thread_ids.load(std::memory_order_relaxed)) return t->os_tid;
  // CUPTI's default: pthread_self() in a 32-bit field (its low 32 bits).
  return static_cast<uint32_t>(pthread_self());
}

std::atomic<bool> g_cupti_clock{true};

uint64_t Now() {
  uint64_t t = 0;
  if (g_cupti_clock.load(std::memory_order_relaxed) && cuptiGetTimestamp(&t) == CUPTI_SUCCESS) {
    return t;
  }
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

void Append(ThreadState* t, const Entry& e, std::string&& name, uint64_t end_ns) {
  const uint32_t pid = g_pid.load(std::memory_order_relaxed);
  const uint32_t tid = ThreadIdOf(t);
  std::lock_guard<std::mutex> lock(t->mu);
  if (t->done.size() >= kMaxPending) {
    g_overflow.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  PendingScope& s = t->done.emplace_back();
  if (!e.site_named) s.name = std::move(name);
  s.site = e.site;
  s.site_named = e.site_named;
  s.kind = e.kind;
  s.start_ns = e.start_ns;
  s.end_ns = end_ns;
  s.pid = pid;
  s.tid = tid;
  s.depth = e.depth;
}

// fork(): the child inherits neither a session nor the other threads. Locks are
// taken around fork so that the child never inherits one held by a vanished thread;
// the other threads' states are forgotten in the child (their locks may be held).
void ForkPrepare() {
  G().drain_mu.lock();
  G().registry_mu.lock();
}
void ForkParent() {
  G().registry_mu.unlock();
  G().drain_mu.unlock();
}
void ForkChild() {
  Shared& g = G();
  g.threads.clear();
  if (t_state != nullptr) {
    t_state->os_tid = OsThreadId();
    g.threads.push_back(t_state);
  }
  g.registry_mu.unlock();
  g.drain_mu.unlock();
  g_state.fetch_and(~kRecordingBit);
  g_pid.store(static_cast<uint32_t>(getpid()));
}
void InstallForkHandlers() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(ForkPrepare, ForkParent, ForkChild); });
}

// Unregisters and frees a thread's state when the thread exits; its closed scopes go
// to the orphans for the next Drain. Not installed for the main thread: its TLS
// destructors run before atexit handlers, where the session's stop may still close
// the main thread's scopes.
struct ThreadReaper {
  ThreadState* state = nullptr;
  ~ThreadReaper() {
    if (state == nullptr) return;
    {
      Shared& g = G();
      std::lock_guard<std::mutex> lock(g.registry_mu);
      for (size_t i = 0; i < g.threads.size(); ++i) {
        if (g.threads[i] == state) {
          g.threads[i] = g.threads.back();
          g.threads.pop_back();
          break;
        }
      }
      std::lock_guard<std::mutex> tlock(state->mu);
      for (PendingScope& s : state->done) g.orphans.push_back(std::move(s));
    }
    uint64_t st = g_state.load(std::memory_order_relaxed);
    uint64_t open = state->open.load(std::memory_order_relaxed);
    if ((st & kRecordingBit) && (open >> 32) == Generation(st)) {
      g_dropped_open.fetch_add(static_cast<uint32_t>(open), std::memory_order_relaxed);
    }
    if (t_state == state) t_state = nullptr;
    delete state;
    state = nullptr;
  }
};
thread_local ThreadReaper t_reaper;

__attribute__((noinline)) ThreadState* InitThread() {
  InstallForkHandlers();
  auto* t = new ThreadState();
  t->entries.resize(16);
  t->os_tid = OsThreadId();
  {
    Shared& g = G();
    std::lock_guard<std::mutex> lock(g.registry_mu);
    g.threads.push_back(t);
  }
  if (t->os_tid != static_cast<uint32_t>(getpid())) t_reaper.state = t;
  t_state = t;
  return t;
}

// `site` nullptr: a plain push, `name` copied. Else named site->name when `name`
// is nullptr (no copy).
__attribute__((noinline)) uint32_t PushRecorded(ThreadState* t, Entry& e, uint64_t state,
                                                const Site* site, const char* name,
                                                model::SourceLocationKind kind) {
  const uint32_t gen = Generation(state);
  const uint64_t open = t->open.load(std::memory_order_relaxed);
  const uint32_t enclosing = (open >> 32) == gen ? static_cast<uint32_t>(open) : 0;
  t->open.store((uint64_t{gen} << 32) | (enclosing + 1), std::memory_order_relaxed);
  e.depth = enclosing;
  e.site = site;
  e.kind = kind;
  e.site_named = site != nullptr && name == nullptr;
  if (!e.site_named) e.name.assign(name != nullptr ? name : "");
  e.start_ns = Now();  // last: the name copy is not part of the scope
  return t->depth;
}

inline uint32_t PushEntry(const Site* site, const char* name,
                          model::SourceLocationKind kind = model::SourceLocationKind::kScope) {
  ThreadState* t = t_state;
  if (__builtin_expect(t == nullptr, 0)) t = InitThread();
  const uint64_t state = g_state.load(std::memory_order_relaxed);
  if (__builtin_expect(t->depth == t->entries.size(), 0)) t->entries.emplace_back();
  Entry& e = t->entries[t->depth++];
  e.state = state;
  if (!(state & kRecordingBit)) return 0;
  return PushRecorded(t, e, state, site, name, kind);
}

__attribute__((noinline)) void PopRecorded(ThreadState* t, Entry& e) {
  const uint64_t end_ns = Now();  // first: the bookkeeping is not part of the scope
  const uint64_t open = t->open.load(std::memory_order_relaxed);
  if ((open >> 32) == Generation(e.state) && static_cast<uint32_t>(open) > 0) {
    t->open.store(open - 1, std::memory_order_relaxed);
  }
  // Pushed in another session, or the session has stopped: not recorded. (Counted
  // by CloseOpenScopes at the stop.)
  if (g_state.load(std::memory_order_relaxed) != e.state) return;
  Append(t, e, std::move(e.name), end_ns);
}

__attribute__((noinline, cold)) int UnbalancedPop() {
  g_unbalanced_pops.fetch_add(1, std::memory_order_relaxed);
  if (!g_warned_unbalanced.exchange(true)) {
    std::string line = "cuscope: cuscope_range_pop without a matching push on thread " +
                       std::to_string(OsThreadId()) + "; ignored\n";
    ssize_t n = write(STDERR_FILENO, line.data(), line.size());
    (void)n;
  }
  return -1;
}

// The site's record, registered (its strings copied, a location id given) the
// first time; its location goes into `batch` once per generation.
SiteInfo& Register(Shared& g, const Site* site, model::SourceLocationKind kind, uint64_t generation,
                   model::Profile* batch) {
  auto [it, inserted] = g.sites.try_emplace(site);
  SiteInfo& info = it->second;
  if (inserted) {
    info.id = static_cast<model::LocationId>(g.sites.size());
    info.name = site->name != nullptr ? site->name : "";
    info.function = site->function != nullptr ? site->function : "";
    info.file = site->file != nullptr ? site->file : "";
    info.line = site->line;
    info.kind = kind;
  }
  if (info.emitted_in != generation + 1) {
    info.emitted_in = generation + 1;
    model::SourceLocation& loc = batch->source_locations.emplace_back();
    loc.id = info.id;
    loc.kind = info.kind;
    loc.file = batch->strings.Intern(info.file);
    loc.line = info.line;
    loc.function = batch->strings.Intern(info.function);
  }
  return info;
}

// Moves `from` into batch->ranges; ids are assigned here, in drain order.
void Convert(Shared& g, std::vector<PendingScope>& from, model::Profile* batch,
             model::StringId domain, uint64_t generation) {
  // Consecutive scopes often share a name or a site: skip the hash lookups then.
  const std::string* last_name = nullptr;
  model::StringId last_id = model::kEmptyString;
  const Site* last_site = nullptr;
  SiteInfo* site = nullptr;
  for (const PendingScope& s : from) {
    model::RangeRecord& r = batch->ranges.emplace_back();
    r.start_ns = s.start_ns;
    r.end_ns = s.end_ns;
    if (s.site != last_site) {
      site = s.site != nullptr ? &Register(g, s.site, s.kind, generation, batch) : nullptr;
      last_site = s.site;
    }
    const std::string& name = s.site_named ? site->name : s.name;
    if (last_name == nullptr || *last_name != name) {
      last_id = batch->strings.Intern(name);
      last_name = &name;
    }
    r.name = last_id;
    r.domain = domain;
    r.source = model::RangeSource::kScope;
    r.process_id = s.pid;
    r.thread_id = s.tid;
    r.id = ++g.next_id;
    r.depth = s.depth;
    r.location = site != nullptr ? site->id : model::kNoLocation;
  }
  from.clear();  // keeps the capacity
}

}  // namespace

void SetRecording(bool on, Clock clock) {
  if (!on) {
    g_state.fetch_and(~kRecordingBit);
    return;
  }
  InstallForkHandlers();
  g_cupti_clock.store(clock == Clock::kCupti);
  g_pid.store(static_cast<uint32_t>(getpid()));
  CUpti_ActivityThreadIdType type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  if (cuptiGetThreadIdType(&type) != CUPTI_SUCCESS) type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  g_system_thread_ids.store(type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  uint64_t cur = g_state.load();
  while (!(cur & kRecordingBit)) {
    uint64_t next = (((cur >> 1) + 1) << 1) | kRecordingBit;
    if (g_state.compare_exchange_weak(cur, next)) break;
  }
}

bool Recording() { return g_state.load(std::memory_order_relaxed) & kRecordingBit; }

uint32_t Push(const char* name) { return PushEntry(nullptr, name); }

uint32_t PushAt(const cuscope_source_location* site, const char* name) {
  return PushEntry(site, name);
}

uint32_t PushPython(const cuscope_source_location* site) {
  return PushEntry(site, nullptr, model::SourceLocationKind::kPython);
}

int Pop() {
  ThreadState* t = t_state;
  if (__builtin_expect(t == nullptr || t->depth == 0, 0)) return UnbalancedPop();
  Entry& e = t->entries[--t->depth];
  if (e.state & kRecordingBit) PopRecorded(t, e);
  return static_cast<int>(t->depth);
}

size_t CloseOpenScopes(uint64_t end_ns) {
  const uint64_t state = g_state.load();
  const uint32_t gen = Generation(state);
  const uint64_t target = (uint64_t{gen} << 1) | kRecordingBit;
  size_t closed = 0;
  ThreadState* self = t_state;
  if (self != nullptr) {
    for (uint32_t i = 0; i < self->depth; ++i) {
      Entry& e = self->entries[i];
      if (e.state != target) continue;
      std::string name = e.site_named ? std::string() : e.name;  // e keeps its name
      Append(self, e, std::move(name), end_ns > e.start_ns ? end_ns : e.start_ns);
      e.state &= ~kRecordingBit;  // now a marker: the user's pop discards it
      ++closed;
    }
    if ((self->open.load(std::memory_order_relaxed) >> 32) == gen) {
      self->open.store(uint64_t{gen} << 32, std::memory_order_relaxed);
    }
  }
  uint64_t dropped = 0;
  {
    Shared& g = G();
    std::lock_guard<std::mutex> lock(g.registry_mu);
    for (ThreadState* other : g.threads) {
      if (other == self) continue;
      uint64_t open = other->open.load(std::memory_order_relaxed);
      if ((open >> 32) == gen) dropped += static_cast<uint32_t>(open);
    }
  }
  g_dropped_open.fetch_add(dropped, std::memory_order_relaxed);
  return closed;
}

void Drain(model::Profile* batch) {
  Shared& g = G();
  std::lock_guard<std::mutex> dlock(g.drain_mu);
  std::lock_guard<std::mutex> rlock(g.registry_mu);
  model::StringId domain = model::kEmptyString;
  const uint64_t generation = Generation(g_state.load());
  auto take = [&](std::vector<PendingScope>& from) {
    if (from.empty()) return;
    if (domain == model::kEmptyString) domain = batch->strings.Intern(kDomain);
    g.drained += from.size();
    Convert(g, from, batch, domain, generation);
  };
  take(g.orphans);
  for (ThreadState* t : g.threads) {
    {
      // Only the swap under the thread's lock: the owner waits for nothing more.
      std::lock_guard<std::mutex> tlock(t->mu);
      if (t->done.empty()) continue;
      t->done.swap(t->spare);
    }
    take(t->spare);
  }
}

size_t PendingCount() {
  Shared& g = G();
  std::lock_guard<std::mutex> rlock(g.registry_mu);
  size_t n = g.orphans.size();
  for (ThreadState* t : g.threads) {
    std::lock_guard<std::mutex> tlock(t->mu);
    n += t->done.size();
  }
  return n;
}

Stats GetStats() {
  Stats s;
  {
    Shared& g = G();
    std::lock_guard<std::mutex> dlock(g.drain_mu);
    s.recorded = g.drained;
  }
  s.recorded += PendingCount();
  s.unbalanced_pops = g_unbalanced_pops.load();
  s.dropped_open = g_dropped_open.load();
  s.dropped_overflow = g_overflow.load();
  return s;
}

void ResetStats() {
  {
    Shared& g = G();
    std::lock_guard<std::mutex> dlock(g.drain_mu);
    g.drained = 0;
  }
  g_overflow.store(0);
  g_unbalanced_pops.store(0);
  g_dropped_open.store(0);
  g_warned_unbalanced.store(false);
}

uint32_t CurrentThreadId() {
  ThreadState* t = t_state;
  if (t == nullptr) t = InitThread();
  return ThreadIdOf(t);
}

uint32_t CallingThreadId() {
  if (g_system_thread_ids.load(std::memory_order_relaxed)) return OsThreadId();
  return static_cast<uint32_t>(pthread_self());
}

uint32_t CurrentDepth() {
  ThreadState* t = t_state;
  return t == nullptr ? 0 : t->depth;
}

}  // namespace cuscope::collect::scopes
