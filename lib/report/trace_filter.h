// Which records an exported trace keeps (TraceOptions: the window, the kernel and
// region patterns) and which kernels it merges (runs of tiny kernels on a stream).
// Built once from the profile; then per-record answers in constant time.
#ifndef CUSCOPE_LIB_REPORT_TRACE_FILTER_H_
#define CUSCOPE_LIB_REPORT_TRACE_FILTER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "lib/analysis/regions.h"
#include "lib/model/pattern.h"
#include "lib/model/profile.h"
#include "lib/report/trace_options.h"

namespace cuscope::report {

class TraceFilter {
 public:
  // InvalidArgument when a pattern does not compile or the window is empty
  // (--from after --to). `profile` must outlive the filter.
  static absl::StatusOr<TraceFilter> Create(const model::Profile& profile,
                                            const TraceOptions& options);

  // Host events (API calls, syncs, ranges, overhead) by their span.
  bool KeepHost(uint64_t start_ns, uint64_t end_ns) const;
  bool KeepApi(uint32_t index) const;
  bool KeepKernel(size_t index) const { return keep_kernel_.empty() || keep_kernel_[index]; }
  bool KeepMemcpy(const model::MemcpyRecord& m) const;
  bool KeepMemset(const model::MemsetRecord& m) const;
  // GPU metric samples, by their span, as host events: in the window, in a region.
  // The kernel pattern keeps them all (like copies and sets).
  bool KeepSample(const model::GpuSample& s) const { return KeepHost(s.start_ns, s.end_ns); }
  // The width of the bins GPU metric samples are combined over (0: none).
  uint64_t SampleBin() const { return sample_bin_ns_; }

  // Aggregation: 1 for a kernel written as itself, n > 1 for the first of a run of
  // n merged kernels (ending at AggregateEnd), 0 for the others of a run.
  uint32_t KernelCount(size_t index) const { return run_count_.empty() ? 1 : run_count_[index]; }
  uint64_t AggregateEnd(size_t index) const;

  // What the options leave out entirely, one line each, that a user would not
  // expect from a trace that is written anyway: a window after the run's end (or
  // before its first event), a region pattern that matches no range, a kernel
  // pattern that matches no kernel (or none that the window and regions keep).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  explicit TraceFilter(const model::Profile& profile) : p_(profile) {}
  void FilterKernels(const TraceOptions& options, const model::Pattern* kernels);
  void Aggregate(uint64_t below_ns);
  void NoteWhatIsLeftOut(const TraceOptions& options, uint64_t start,
                         const model::Pattern* kernels);
  bool InWindow(uint64_t start_ns, uint64_t end_ns) const {
    return end_ns >= lo_ && start_ns <= hi_;
  }
  bool InRegions(uint64_t start_ns, uint64_t end_ns) const;
  template <typename Rec>
  bool KeepGpu(const Rec& r) const;

  const model::Profile& p_;
  analysis::ApiByCorrelation apis_;
  uint64_t lo_ = 0, hi_ = UINT64_MAX;  // the window on CUPTI's clock
  bool by_regions_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> regions_;  // merged spans, sorted
  std::vector<uint8_t> keep_kernel_;                    // per kernel (empty: all)
  std::vector<uint8_t> api_dropped_;                    // per API call: launched a dropped kernel
  std::vector<uint32_t> run_count_;                     // per kernel (empty: no aggregation)
  absl::flat_hash_map<uint32_t, uint64_t> run_end_;     // first kernel of a run -> its end
  uint64_t sample_bin_ns_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_FILTER_H_
