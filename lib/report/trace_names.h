// The names of a trace's GPU ops and unnamed API calls, worked out once per profile:
// kernels demangled once per string id (an out-of-table id once per record), copies
// and sets in Kineto's words once per kind, unnamed API calls once per callback id.
#ifndef CUSCOPE_LIB_REPORT_TRACE_NAMES_H_
#define CUSCOPE_LIB_REPORT_TRACE_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/profile.h"

namespace cuscope::report {

class TraceNames {
 public:
  // Names every record of `profile` with valid times; `profile` must outlive the object.
  explicit TraceNames(const model::Profile& profile);

  // The display name of kernel `index` (one with valid times).
  const std::string& Kernel(size_t index) const;
  // "Memcpy HtoD (Pageable -> Device)", "Memset (Device)" (records with valid times).
  const std::string& Memcpy(const model::MemcpyRecord& m) const;
  const std::string& Memset(const model::MemsetRecord& m) const;
  // "<cbid N>" for a call with valid times and no name.
  const std::string& UnnamedApi(uint32_t callback_id) const;
  // Whether a kernel named in the string table is an NCCL kernel (its name starts
  // with "nccl").
  bool any_nccl() const { return any_nccl_; }

 private:
  const model::Profile& p_;
  std::vector<int32_t> kernel_index_;  // string id -> kernels_
  std::deque<std::string> kernels_;
  absl::flat_hash_map<size_t, size_t> odd_kernels_;  // kernel index -> kernels_
  std::map<uint32_t, std::string> unnamed_apis_;     // callback id -> "<cbid N>"
  std::map<std::tuple<int, int, int>, std::string> memcpys_;
  std::map<int, std::string> memsets_;
  bool any_nccl_ = false;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_NAMES_H_
