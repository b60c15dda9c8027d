// CUPTI activity records -> model records. The only place that knows CUPTI's
// record layouts. Fast: names are cached by CUPTI's (shared) name pointers.
#ifndef CUSCOPE_LIB_COLLECT_CONVERT_H_
#define CUSCOPE_LIB_COLLECT_CONVERT_H_

#include <cupti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/interfaces.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

struct ConvertStats {
  uint64_t records = 0;
  uint64_t internal_kernels = 0;  // CUPTI's own kernels (correlation id 0, or a measured
                                  // launch's id with another name), left out
  uint64_t unknown_records = 0;   // kinds we do not convert
  uint64_t unmatched_range_ends = 0;
  // cuDriverGetVersion records at or after the probe time: cuscope's own probe that
  // records still reach it (RecordsProbe: each periodic flush and the tracer's Stop);
  // not added to the profile.
  uint64_t probe_records = 0;
  uint64_t last_api_end_ns = 0;  // the latest end of an API record
  bool devices_changed = false;
};

class RecordConverter {
 public:
  // Appends to out's record vectors and interns names in out->strings; `out` must
  // outlive the converter. Devices go to out->devices. Kernels whose launches
  // `measured` says were measured for counters are marked (none when it is null).
  explicit RecordConverter(model::Profile* out, MeasuredLaunches* measured = nullptr)
      : out_(out), measured_(measured) {}

  void Add(const CUpti_Activity* record);
  // Converts every record of a completed CUPTI buffer.
  void AddBuffer(uint8_t* buffer, size_t valid_bytes);

  void AddKernel(const CUpti_ActivityKernel10& k);
  void AddMemcpy(const CUpti_ActivityMemcpy6& m);
  void AddMemset(const CUpti_ActivityMemset4& m);
  void AddApi(const CUpti_ActivityAPI& a, model::ApiDomain domain);
  void AddSync(const CUpti_ActivitySynchronization2& s);
  void AddCudaEvent(const CUpti_ActivityCudaEvent2& e);
  void AddMarker(const CUpti_ActivityMarker2& m);
  void AddOverhead(const CUpti_ActivityOverhead3& o);
  void AddDevice(const CUpti_ActivityDevice5& d);

  // Ranges still open (started, not ended): closed at `end_ns` and appended.
  void CloseOpenRanges(uint64_t end_ns);

  ConvertStats& stats() { return stats_; }
  // From `start_ns` (CUPTI clock) on, cuDriverGetVersion records are probes.
  void set_probe_after(uint64_t start_ns) { probe_after_ns_ = start_ns; }

 private:
  struct KernelName {
    model::StringId name, mangled;  // mangled: CUPTI's text, compared at each lookup
  };
  struct OpenRange {
    model::RangeRecord record;
    uint64_t thread_key;
  };
  model::StringId ApiName(model::ApiDomain domain, uint32_t cbid);
  const KernelName& LookupKernelName(const char* name);

  model::Profile* out_;
  ConvertStats stats_;
  MeasuredLaunches* measured_;
  uint64_t probe_after_ns_ = UINT64_MAX;
  absl::flat_hash_map<const char*, KernelName> kernel_names_;
  absl::flat_hash_map<uint64_t, model::StringId> api_names_;  // domain << 32 | cbid
  absl::flat_hash_map<uint32_t, OpenRange> open_ranges_;      // by NVTX id
  absl::flat_hash_map<uint64_t, uint32_t> thread_depth_;      // pid << 32 | tid
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CONVERT_H_
