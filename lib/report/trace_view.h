// The Chrome trace of a profile as data: the header and every event to write
// (processes, threads, GPU annotations, kernels, copies, sets, API calls, syncs,
// ranges, CUPTI overhead, cuscope's own time, the CPU-to-GPU flows and the GPU metric samples'
// counters), each with its arguments, in file order, following Kineto's conventions. Built from the
// profile and the counter analysis already done; no I/O. lib/report/chrome_trace.h serializes it.
// What the events need worked out once (tracks, names, External ids, ...) is its
// TraceIndex (lib/report/trace_index.h).
//
// The events are handed to a sink one at a time (a trace may hold millions); an
// event's strings and argument lists live until the sink returns.
#ifndef CUSCOPE_LIB_REPORT_TRACE_VIEW_H_
#define CUSCOPE_LIB_REPORT_TRACE_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lib/analysis/kernel_counters.h"
#include "lib/model/profile.h"
#include "lib/report/trace_event.h"
#include "lib/report/trace_filter.h"
#include "lib/report/trace_index.h"
#include "lib/report/trace_own.h"

namespace cuscope::report {

// The pseudo-process of the CUPTI overhead events.
inline constexpr int64_t kTraceOverheadPid = -1;

class TraceView {
 public:
  // `counters`: AnalyzeCounters of the profile (empty when it has no counter sets).
  // `filter`: what to keep and merge (null: everything, nothing merged). All must
  // outlive the view.
  TraceView(const model::Profile& profile, const std::vector<analysis::KernelCounters>& counters,
            const TraceFilter* filter = nullptr);

  const model::Profile& profile() const { return p_; }
  const TraceHeader& header() const { return index_.header(); }
  // Hands every event to `sink`, in file order.
  void Events(TraceSink& sink) const;

 private:
  // The filter's answers (everything kept without one). KeepKernel is false for the
  // kernels merged into the first of their run.
  template <typename Rec>
  bool KeepHost(const Rec& r) const {
    return TraceKeepsHost(filter_, r);
  }
  bool KeepApi(uint32_t i) const { return TraceKeepsApi(filter_, i); }
  bool KeepKernel(size_t i) const { return TraceKeepsKernel(filter_, i); }
  int64_t EstimatedOccupancy(const model::KernelRecord& k) const;

  void MetadataEvents(TraceSink& sink, TraceEvent& e) const;
  void AnnotationEvents(TraceSink& sink, TraceEvent& e) const;
  void KernelEvents(TraceSink& sink, TraceEvent& e) const;
  void KernelTorchArgs(size_t i, TraceEvent& e) const;
  void KernelCounterArgs(const model::KernelRecord& k, TraceEvent& e) const;
  void CopyAndSetEvents(TraceSink& sink, TraceEvent& e) const;
  void ApiAndSyncEvents(TraceSink& sink, TraceEvent& e) const;
  void RangeAndOverheadEvents(TraceSink& sink, TraceEvent& e) const;

  const model::Profile& p_;
  const TraceFilter* filter_;
  TraceIndex index_;
  TraceOwnTime own_;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_VIEW_H_
