#include "lib/report/trace_own.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "lib/analysis/own_time.h"
#include "lib/analysis/summary.h"
#include "lib/model/enum_names.h"

namespace cuscope::report {
namespace {

void Arg(TraceEvent& e, std::string_view key, uint64_t v) {
  TraceArg& a = e.args.emplace_back();
  a.key = key;
  a.kind = TraceArg::Kind::kUint;
  a.u = v;
}

}  // namespace

TraceOwnTime::TraceOwnTime(const model::Profile& profile, const TraceFilter* filter) {
  for (model::OwnInterval& o : analysis::OwnIntervals(profile)) {
    if (!analysis::HasValidTimes(o)) continue;
    if (filter != nullptr && !filter->KeepHost(o.start_ns, o.end_ns)) continue;
    intervals_.push_back(o);
  }
}

void TraceOwnTime::Metadata(TraceSink& sink, TraceEvent& e) const {
  if (intervals_.empty()) return;
  TraceMetadata(sink, e, "process_name", kTraceOwnPid, 0, "cuscope");
  TraceSortIndex(sink, e, "process_sort_index", kTraceOwnPid, 0, kTraceOwnSortIndex);
  std::set<uint32_t> threads;
  for (const model::OwnInterval& o : intervals_) threads.insert(o.thread_id);
  for (uint32_t tid : threads) {
    const std::string name = absl::StrCat("thread ", tid);
    TraceMetadata(sink, e, "thread_name", kTraceOwnPid, tid, name);
    TraceSortIndex(sink, e, "thread_sort_index", kTraceOwnPid, tid, tid);
  }
}

void TraceOwnTime::Events(TraceSink& sink, TraceEvent& e) const {
  for (const model::OwnInterval& o : intervals_) {
    e.phase = TracePhase::kComplete;
    e.category = "cuscope";
    e.name = model::EnumName(o.kind);
    e.pid = kTraceOwnPid;
    e.tid = o.thread_id;
    e.start_ns = o.start_ns;
    e.end_ns = o.end_ns;
    e.args.clear();
    if (o.device_id != model::kNoDevice) Arg(e, "device", o.device_id);
    if (o.context_id != 0) Arg(e, "context", o.context_id);
    if (o.launches > 0) {
      Arg(e, "launches", o.launches);
      Arg(e, "first correlation", o.first_correlation_id);
      Arg(e, "last correlation", o.last_correlation_id);
    }
    sink.Event(e);
  }
}

}  // namespace cuscope::report
