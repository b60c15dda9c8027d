#include "lib/collect/records_probe.h"

#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "lib/collect/driver.h"

namespace cuscope::collect {

void RecordsProbe::Reset(ApiRecords api) {
  absl::MutexLock lock(&mu_);
  api_ = api;
  pending_ = Mark{};  // counts of the batch's new converter start at 0
  records_taken_.store(false);
}

RecordsProbe::Mark RecordsProbe::Record(bool pending_out) {
  Mark mark;
  // A probe still out counts as one if it comes back later: records from its time on.
  const bool earlier = pending_out && pending_.made;
  mark.foreign = pool_->foreign();
  mark.refused = pool_->refused();
  if (!MakesProbes(api_)) return mark;
  using GetVersion = int (*)(int*);
  auto get_version = reinterpret_cast<GetVersion>(LoadedDriverSymbol("cuDriverGetVersion"));
  uint64_t now = 0;
  if (get_version == nullptr || cuptiGetTimestamp(&now) != CUPTI_SUCCESS) return mark;
  const uint64_t after = earlier ? std::min(now, pending_.after) : now;
  const std::optional<uint64_t> probes = batch_->MarkProbes(after);
  if (!probes.has_value()) return mark;
  mark.after = after;
  mark.probes = *probes;
  cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 1);
  int version = 0;
  get_version(&version);
  if (api_ != ApiRecords::kAll) {
    cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, 0);
  }
  mark.made = true;
  return mark;
}

// A buffer refused at the pool cap drops a probe too: that is not a takeover (dropped
// records are counted and reported on their own).
bool RecordsProbe::Arrived(const Mark& mark, uint64_t count) {
  if (pool_->foreign() != mark.foreign) return false;
  if (!mark.made || pool_->refused() > mark.refused) return true;
  return batch_->ProbesAtLeast(mark.probes + count);
}

bool RecordsProbe::PeriodicFlush(bool even_if_held, const std::atomic<bool>& running,
                                 absl::FunctionRef<void()> flush) {
  if (!running.load()) return true;
  // One probe at a time: Stop's and this one must not switch the probe's record off
  // under each other (that would read as a takeover).
  absl::MutexLock lock(&mu_);
  if (!running.load()) return true;  // Stop came first
  // Busy before looking at the hold, as HoldPeriodicFlush holds before looking at
  // busy: one of the two sees the other.
  busy_.store(true);
  if (held_.load() && !even_if_held) {
    busy_.store(false);
    return false;
  }
  if (!records_taken_.load() && !pending_.made) pending_ = Record(/*pending_out=*/false);
  flush();
  if (!records_taken_.load()) {
    if (pool_->foreign() != pending_.foreign) {
      records_taken_.store(true);  // a buffer cuscope did not hand out
    } else if (pending_.made && Arrived(pending_, 1)) {
      pending_ = Mark{};
    }
  }
  busy_.store(false);
  return true;
}

void RecordsProbe::HoldPeriodicFlush(bool hold) {
  held_.store(hold);
  if (!hold) return;
  // A flush in progress ends first, waited for a bounded time without a lock.
  for (int i = 0; i < 200 && busy_.load(); ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void RecordsProbe::Stop(absl::FunctionRef<void()> take_back,
                        absl::FunctionRef<void()> stop_and_flush,
                        absl::FunctionRef<void()> finish) {
  absl::MutexLock lock(&mu_);
  take_back();
  // The flush thread's probe, if still out, must come back with Stop's.
  const bool pending = pending_.made && !Arrived(pending_, 1);
  const Mark mark = Record(pending);
  const Mark& from = pending ? pending_ : mark;
  stop_and_flush();
  // With no probe made this still checks for a buffer cuscope did not hand out.
  const uint64_t expected = (pending ? 1 : 0) + (mark.made ? 1 : 0);
  if (!Arrived(from, expected)) records_taken_.store(true);
  pending_ = Mark{};
  finish();
}

}  // namespace cuscope::collect
