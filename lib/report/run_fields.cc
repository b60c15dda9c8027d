#include "lib/report/run_fields.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace cuscope::report {
namespace {

using analysis::Summary;
using model::RunInfo;
using G = RunField::Group;

template <typename T>
RunFieldValue Value(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_signed_v<T>) {
    return int64_t{v};
  } else {
    return uint64_t{v};
  }
}

// The value of a RunInfo member, or of a Summary member.
template <auto kMember>
RunFieldValue Run(const RunInfo& run, const Summary&) {
  return Value(run.*kMember);
}
template <auto kMember>
RunFieldValue Sum(const RunInfo&, const Summary& summary) {
  return Value(summary.*kMember);
}

}  // namespace

const std::vector<RunField>& RunFields() {
  static const std::vector<RunField> kFields = {
      {"command_line", G::kRun, Run<&RunInfo::command_line>},
      {"pid", G::kRun, Run<&RunInfo::pid>},
      {"hostname", G::kRun, Run<&RunInfo::hostname>},
      {"cuscope_version", G::kRun, Run<&RunInfo::cuscope_version>},
      {"rank", G::kRun, Run<&RunInfo::rank>},
      {"exit_reason", G::kRun, Run<&RunInfo::exit_reason>},
      {"start_unix_ns", G::kRun, Run<&RunInfo::start_unix_ns>},
      {"end_unix_ns", G::kRun, Run<&RunInfo::end_unix_ns>},
      {"start_ns", G::kRun, Run<&RunInfo::start_ns>},
      {"end_ns", G::kRun, Run<&RunInfo::end_ns>},
      {"wall_ns", G::kRun, Sum<&Summary::wall_ns>},
      {"kernel_time_ns", G::kRun, Sum<&Summary::kernel_ns>},
      {"timed_launches", G::kRun, Sum<&Summary::timed_launches>},
      {"measured_launches", G::kRun, Sum<&Summary::measured_launches>},
      {"measured_left_out", G::kRun, Sum<&Summary::measured_left_out>},
      {"kernels", G::kCounts, Sum<&Summary::kernel_count>},
      {"memcpys", G::kCounts, Sum<&Summary::memcpy_count>},
      {"memsets", G::kCounts, Sum<&Summary::memset_count>},
      {"api_calls", G::kCounts, Sum<&Summary::api_count>},
      {"syncs", G::kCounts, Sum<&Summary::sync_count>},
      {"ranges", G::kCounts, Sum<&Summary::range_count>},
      {"dropped_records", G::kRun, Sum<&Summary::dropped_records>},
      {"buffers_refused", G::kRun, Run<&RunInfo::buffers_refused>},
      {"internal_kernels", G::kRun, Run<&RunInfo::internal_kernels>},
      {"invalid_records", G::kRun, Sum<&Summary::invalid_records>},
      {"cuscope_own_ns", G::kRun, Sum<&Summary::own_ns>},
  };
  return kFields;
}

}  // namespace cuscope::report
