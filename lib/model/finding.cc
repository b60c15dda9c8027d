#include "lib/model/finding.h"

#include <tuple>

namespace cuscope::model {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kHigh:
      return "high";
    case Severity::kMedium:
      return "medium";
    case Severity::kLow:
      break;
  }
  return "low";
}

const char* GainBasisName(GainBasis b) { return b == GainBasis::kGpu ? "gpu" : "wall"; }

bool Finding::operator==(const Finding& o) const {
  return std::tie(rule, severity, gain_ns, gain_pct, basis, summary, advice, kernel, region,
                  start_ns, end_ns, device_id, stream_id, thread_id, evidence) ==
         std::tie(o.rule, o.severity, o.gain_ns, o.gain_pct, o.basis, o.summary, o.advice, o.kernel,
                  o.region, o.start_ns, o.end_ns, o.device_id, o.stream_id, o.thread_id,
                  o.evidence);
}

}  // namespace cuscope::model
