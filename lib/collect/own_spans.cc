#include "lib/collect/own_spans.h"

#include <cupti.h>

#include "lib/collect/elapsed.h"
#include "lib/collect/scopes.h"

namespace cuscope::collect {

std::optional<model::OwnInterval> OwnSpanUntilNow(model::OwnKind kind, uint64_t mono_start_ns,
                                                  uint64_t min_ns) {
  const uint64_t now = MonotonicNs();
  const uint64_t length = now > mono_start_ns ? now - mono_start_ns : 0;
  uint64_t end = 0;
  if (mono_start_ns == 0 || length < min_ns || cuptiGetTimestamp(&end) != CUPTI_SUCCESS ||
      end < length) {
    return std::nullopt;
  }
  model::OwnInterval o;
  o.kind = kind;
  o.end_ns = end;  // CUPTI's clock at `now`: the start moves by the same offset
  o.start_ns = end - length;
  o.thread_id = scopes::CallingThreadId();
  return o;
}

void RecordCounterSpan(CounterOutbox& outbox, model::OwnKind kind, uint64_t mono_start_ns,
                       const ProfiledContext& c, const std::vector<Launch>& launches) {
  std::optional<model::OwnInterval> o = OwnSpanUntilNow(kind, mono_start_ns, kRecordedOwnNs);
  if (!o) return;
  o->device_id = c.device_id;
  o->context_id = c.context_uid;
  if (!launches.empty()) {
    o->first_correlation_id = launches.front().correlation_id;
    o->last_correlation_id = launches.back().correlation_id;
    o->launches = static_cast<uint32_t>(launches.size());
  }
  outbox.AddOwn(*o);
}

}  // namespace cuscope::collect
