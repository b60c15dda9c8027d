// User scopes: cuscope_range_push/pop (C ABI), cuscope::Scope and CUSCOPE_SCOPE
// (include/cuscope/scope.h). A scope becomes a model::RangeRecord with source kScope
// and domain "cuscope": the same concept as an NVTX push/pop range.
//
// Each thread keeps its own stack of open scopes (no lock) and its own list of
// closed scopes (a mutex that only Drain contends for: threads never contend with
// each other). The collector moves every thread's closed scopes into its batch with
// Drain() before handing the batch to the sink; a thread that exits leaves its
// closed scopes for the next Drain.
//
// Source locations. PushAt takes a static site (cuscope_source_location, made once
// per CUSCOPE_SCOPE use): the entry keeps the pointer, and the site's name is not
// copied. Drain registers each distinct site once, by pointer (copying its strings,
// so a site is read only the first time a Drain meets it), gives it a location id
// (1, 2, ... in first-drain order, stable for the process) and appends its
// model::SourceLocation to the first batch of each session (generation) whose
// scopes name it; the scope's RangeRecord::location is that id.
//
// Sessions. Push always pushes an entry, recording or not: an entry pushed while not
// recording is a marker that Pop discards, so a scope that straddles a session start
// or stop stays balanced. Every SetRecording(true) starts a new generation; a scope
// is recorded only when it is pushed and popped within the same one. At stop,
// CloseOpenScopes(end) closes the *calling* thread's open scopes at `end`; scopes
// still open on other threads cannot be reached (their stacks are thread-local and
// lock-free) and are dropped; they are counted in Stats::dropped_open.
//
// Thread ids. A scope must carry the thread id that CUPTI puts in the API records
// of the same thread (regions attribute kernels by the launching API call's thread).
// CUPTI's id depends on its thread-id type (cuptiSetThreadIdType):
//   CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT: pthread_self(), truncated to 32 bits;
//   CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM:  syscall(SYS_gettid).
// SetRecording(true) asks CUPTI which type is in force and follows it; when CUPTI
// cannot say (no driver), the documented default (pthread_self) is used. The GPU
// test must confirm that a scope's thread_id equals the API records' thread_id.
//
// Times are CUPTI's clock (cuptiGetTimestamp, which works without a GPU); should it
// ever fail, CLOCK_REALTIME is used (the clock cuptiGetTimestamp follows by default).
#ifndef CUSCOPE_LIB_COLLECT_SCOPES_H_
#define CUSCOPE_LIB_COLLECT_SCOPES_H_

#include <cstdint>

#include "cuscope/cuscope_c.h"
#include "lib/model/profile.h"

namespace cuscope::collect::scopes {

// The domain every scope is recorded in.
inline constexpr const char kDomain[] = "cuscope";

// Past this many closed scopes waiting for Drain on one thread, that thread's new
// ones are dropped (counted in Stats::dropped_overflow): memory stays bounded
// (about 80 MB a thread with short names) if nothing drains.
inline constexpr size_t kMaxPending = size_t{1} << 20;

// Where scope timestamps come from: CUPTI's clock, so that scopes line up with
// activity records (what a session uses), or CLOCK_REALTIME (tests without a GPU:
// there, concurrent cuptiGetTimestamp calls can stall for minutes on a CUPTI lock;
// on Linux CUPTI's clock follows CLOCK_REALTIME, so the two agree).
enum class Clock { kCupti, kRealtime };

// Turns recording on (a new generation; also reads CUPTI's thread-id type and the
// pid) or off. Cheap; safe from any thread. Off at process start.
void SetRecording(bool on, Clock clock = Clock::kCupti);
bool Recording();

// Opens a scope on the calling thread. `name` (nullptr is "") is copied. Returns the
// thread's new stack depth (>= 1) when the scope is recorded, 0 when not recording
// (a marker entry is pushed all the same, for Pop to discard).
uint32_t Push(const char* name);

// Opens a scope at a static site (see "Source locations"): named site->name (not
// copied; nullptr is "") when `name` is nullptr, else `name` (copied). `site` must
// stay valid and unchanged for the life of the process. Returns as Push.
uint32_t PushAt(const cuscope_source_location* site, const char* name);

// Opens a scope at a Python call site (kind kPython; the PyTorch hook's line ranges),
// named site->name, as PushAt(site, nullptr). A site is registered with the kind of
// its first recorded push.
uint32_t PushPython(const cuscope_source_location* site);

// Closes the calling thread's innermost scope. Returns the remaining stack depth
// (>= 0), or -1 when the thread has no open scope (an unbalanced pop: ignored; the
// first one in the process prints one warning line on stderr).
int Pop();

// Closes the calling thread's scopes opened in the current (or, after
// SetRecording(false), the last) generation at `end_ns`, appending them to the
// pending list; their entries stay on the stack as markers, so the user's pops stay
// balanced. Counts the scopes of that generation still open on other threads into
// Stats::dropped_open (they will never be recorded). Returns how many were closed.
size_t CloseOpenScopes(uint64_t end_ns);

// Moves the closed scopes of every thread into batch->ranges (names and the domain
// interned in batch->strings; source kScope; ids 1, 2, ... in drain order, unique in
// the process), and the sites new to this session into batch->source_locations
// (their file and function interned). Drains are serialized; the caller serializes
// other uses of `batch`.
void Drain(model::Profile* batch);

// Closed scopes waiting for Drain, all threads.
size_t PendingCount();

struct Stats {
  uint64_t recorded = 0;          // scopes closed for the profile (drained or pending)
  uint64_t unbalanced_pops = 0;   // pops with an empty stack
  uint64_t dropped_open = 0;      // open at a stop on another thread / at thread exit
  uint64_t dropped_overflow = 0;  // refused past kMaxPending
};
Stats GetStats();
// Zeroes the counters and re-arms the one-time unbalanced-pop warning (for tests).
void ResetStats();

// The id the calling thread's scopes are recorded with (see "Thread ids" above).
uint32_t CurrentThreadId();
// The same id, without setting the thread up for scopes (for records of other kinds).
uint32_t CallingThreadId();
// The calling thread's stack depth (open scopes, markers included).
uint32_t CurrentDepth();

}  // namespace cuscope::collect::scopes

#endif  // CUSCOPE_LIB_COLLECT_SCOPES_H_
