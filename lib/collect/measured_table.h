// The launches whose counters were measured in this session, by correlation id, with
// a hash of the launch's kernel name: the record converter asks which kernel records
// belong to them (MeasuredLaunches::Classify, interfaces.h).
//
// Thread-safe: one leaf lock. Marked from the launch callbacks, asked on CUPTI's
// buffer thread.
#ifndef CUSCOPE_LIB_COLLECT_MEASURED_TABLE_H_
#define CUSCOPE_LIB_COLLECT_MEASURED_TABLE_H_

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/interfaces.h"

namespace cuscope::collect {

class MeasuredTable {
 public:
  // `name`: the launch's kernel, demangled (Classify tells CUPTI's own kernels apart).
  void Mark(uint32_t correlation_id, const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);
  // A launch not measured during whose call cuscope stopped or decoded a window (another
  // thread's launch closed it): CUPTI's own kernels then carry its correlation id. Its
  // record of `name` stays the program's (kNotMeasured); one of another name is CUPTI's
  // (kProfilerKernel). A measured launch's mark takes precedence.
  void MarkCall(uint32_t correlation_id, const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);
  MeasuredLaunches::Kind Classify(uint32_t correlation_id, const std::string& kernel_name) const
      ABSL_LOCKS_EXCLUDED(mu_);
  void Clear() ABSL_LOCKS_EXCLUDED(mu_);  // a new session

 private:
  mutable absl::Mutex mu_;
  // Correlation id -> a hash of the launch's kernel name (0: none).
  absl::flat_hash_map<uint32_t, uint64_t> measured_ ABSL_GUARDED_BY(mu_);
  // MarkCall's launches, the same way (a name is required).
  absl::flat_hash_map<uint32_t, uint64_t> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_MEASURED_TABLE_H_
