// One event of a Chrome trace as data (a slice, a mark, a flow end, a process or
// thread's metadata, a counter value), with its arguments, and the sink that receives
// the events one at a time. lib/report/trace_view.h makes them from a profile;
// lib/report/chrome_trace.h and perfetto_trace.h serialize them.
//
// An event's strings and argument lists live until the sink returns.
#ifndef CUSCOPE_LIB_REPORT_TRACE_EVENT_H_
#define CUSCOPE_LIB_REPORT_TRACE_EVENT_H_

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::report {

// The metrics of one counter set, in the set's order.
using TraceMetrics = std::vector<std::pair<std::string_view, double>>;

// One argument of an event. `key` is a literal that needs no JSON escaping.
struct TraceArg {
  enum class Kind : uint8_t { kInt, kUint, kDouble, kBool, kString, kDim, kMetrics };
  std::string_view key;
  Kind kind = Kind::kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;  // written as 0 when not finite
  bool b = false;
  std::string_view s;
  model::Dim3 dim;
  const TraceMetrics* metrics = nullptr;  // an object of metric name -> value
};

enum class TracePhase : uint8_t {
  kComplete,   // "X": a slice with a duration
  kInstant,    // "i" (thread scope): a mark
  kFlowStart,  // "s": ac2g flow on the launching API call
  kFlowEnd,    // "f": ac2g flow on the GPU op
  kMetadata,   // "M": process/thread names and sort indices (ts 0)
  kCounter,    // "C": one value of a counter series (name) of a process, args {"value"}
};

struct TraceEvent {
  TracePhase phase = TracePhase::kComplete;
  // Complete, instant and counter: the category ("kernel", "cuda_runtime",
  // "gpu_metrics", ...). Metadata: what it sets ("process_name", "thread_name",
  // "process_sort_index", ...).
  const char* category = "";
  std::string_view name;  // complete, instant and counter events (the series)
  int64_t pid = 0, tid = 0;
  uint64_t start_ns = 0, end_ns = 0;  // on CUPTI's clock; flows, counters: start_ns only
  uint64_t flow_id = 0;               // flows: the correlation id
  std::vector<TraceArg> args;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Event(const TraceEvent& e) = 0;
};

// A metadata event of `pid`/`tid` (ts 0) through `e`, with one argument: `what`
// ("process_name", "thread_name") set to {"name": name}, or ("process_sort_index",
// "thread_sort_index") to {"sort_index": index}.
inline TraceArg& BeginTraceMetadata(TraceEvent& e, const char* what, int64_t pid, int64_t tid) {
  e.phase = TracePhase::kMetadata;
  e.category = what;
  e.name = {};
  e.pid = pid;
  e.tid = tid;
  e.start_ns = e.end_ns = 0;
  e.args.clear();
  return e.args.emplace_back();
}
inline void TraceMetadata(TraceSink& sink, TraceEvent& e, const char* what, int64_t pid,
                          int64_t tid, std::string_view name) {
  TraceArg& a = BeginTraceMetadata(e, what, pid, tid);
  a.key = "name";
  a.kind = TraceArg::Kind::kString;
  a.s = name;
  sink.Event(e);
}
inline void TraceSortIndex(TraceSink& sink, TraceEvent& e, const char* what, int64_t pid,
                           int64_t tid, int64_t index) {
  TraceArg& a = BeginTraceMetadata(e, what, pid, tid);
  a.key = "sort_index";
  a.kind = TraceArg::Kind::kInt;
  a.i = index;
  sink.Event(e);
}

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_EVENT_H_
