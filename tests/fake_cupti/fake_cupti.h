// A fake CUPTI for tests without a GPU: it defines the cupti* functions that the
// activity tracer, the record converter and user scopes call (activity.cc, convert.cc,
// scopes.cc) and is linked INSTEAD of libcupti into the tests that drive the
// collector's threads (tests/CMakeLists.txt); lib/collect is not changed for it.
//
// It behaves as CUPTI does towards those callers:
// - records are made by Emit* from any thread (as CUPTI's own threads do), only for
//   the kinds (and API calls) that are enabled, into a buffer asked for through the
//   registered request callback; a record that finds no buffer (the request gave
//   none) is dropped and counted (cuptiActivityGetNumDroppedRecords);
// - a full buffer is handed back through the completion callback by the fake's own
//   worker thread; cuptiActivityFlushAll hands back every full buffer on the calling
//   thread, forced also the partly filled one, and returns only when the worker's
//   completion in progress at the call (if any) has ended;
// - cuptiActivityGetNextRecord walks what it wrote (fixed-size slots).
#ifndef CUSCOPE_TESTS_FAKE_CUPTI_FAKE_CUPTI_H_
#define CUSCOPE_TESTS_FAKE_CUPTI_FAKE_CUPTI_H_

#include <cupti.h>

#include <cstdint>
#include <functional>

namespace fake_cupti {

enum class Kind { kKernel, kMemcpy, kRuntimeApi };
inline constexpr int kKinds = 3;

// Makes one record of `kind` (correlation id `correlation`, > 0). Returns false when
// its kind is not enabled (nothing made, nothing counted).
bool Emit(Kind kind, uint32_t correlation);

struct Totals {
  uint64_t made[kKinds] = {};  // records made (stored or dropped)
  uint64_t dropped = 0;        // made, found no buffer
  uint64_t requests = 0;       // buffer requests
  uint64_t refused = 0;        // requests answered with no buffer
  uint64_t completed = 0;      // buffers handed back
};
Totals GetTotals();

// Holds the worker's deliveries back (true) or lets them go; flushes still deliver.
void PauseWorker(bool paused);

// Called on the calling thread at the start of every cuptiActivityEnable, before
// the kind is enabled (nullptr: none). Lets a test stop a thread inside the call.
void SetEnableHook(std::function<void(CUpti_ActivityKind)> hook);
// cuptiActivityDisable calls so far.
uint64_t Disables();

// Blocks until no buffer is full and waiting, and no completion is in progress.
void WaitIdle();

// Forgets the counts, the enabled kinds and the callbacks (between tests, with no
// buffer held by the fake: flush forced first).
void Reset();

}  // namespace fake_cupti

#endif  // CUSCOPE_TESTS_FAKE_CUPTI_FAKE_CUPTI_H_
