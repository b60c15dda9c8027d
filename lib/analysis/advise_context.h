// What the advisor's rules share (lib/analysis/advise.h): the profile's GPU busy
// intervals, the attribution of every GPU idle gap to one cause, and the making of
// a finding (gain %, severity, location).
#ifndef CUSCOPE_LIB_ANALYSIS_ADVISE_CONTEXT_H_
#define CUSCOPE_LIB_ANALYSIS_ADVISE_CONTEXT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/own_time.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/steps.h"
#include "lib/model/advise_thresholds.h"
#include "lib/model/finding.h"
#include "lib/model/profile.h"

namespace cuscope::analysis::advise {

// What CUDA API call a name is, for the rules (by StringId, resolved once).
enum class ApiKind : uint8_t {
  kOther = 0,
  kSync,        // cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cu*
  kSyncCopy,    // cudaMemcpy and the other synchronous copies
  kLaunch,      // cudaLaunchKernel, cuLaunchKernel, ...
  kModuleLoad,  // cuLibraryLoadData, cuModuleLoadData, ...
};
ApiKind KindOfApi(const std::string& name);

// The part of the run the timeline rules look at. With steps (steps.h), they run once
// over start-up (what begins before the first step) and once over the loop (what
// begins from it on), so that a finding is about one or the other; without, once
// over the whole run.
enum class Phase : uint8_t { kWhole = 0, kStartup, kLoop };

// Who (the rest of) an idle gap of the GPU belongs to.
enum class GapCause : uint8_t {
  kFirstIteration = 0,  // inside the first instance of a slow-first region (the whole gap)
  kLaunch,              // shorter than min_gap, before a kernel shorter than launch_us
  kHost,                // min_gap or longer: the CPU did not queue work
  kShort,               // shorter than min_gap otherwise (low-utilization windows)
};

// One idle gap of all GPUs together, between two busy intervals. When a blocking
// call (a synchronization, a synchronous copy) returned inside it, the call's share
// is the part of the gap that not waiting would have saved: at most the time the
// CPU waited (the CPU would have started what it did next that much earlier). That
// share goes to the sync rule, or to the small-read rule when the GPU's last
// operation was a small device-to-host copy; the rest of the gap to `cause`.
struct Gap {
  uint64_t start_ns = 0, end_ns = 0;
  GapCause cause = GapCause::kShort;
  uint32_t api = 0xffffffffu;  // the blocking call that returned in it, if any
  uint64_t blocked_ns = 0;     // the call's share (0 without one)
  bool small_read = false;     // that share is a waited small device-to-host read's
  uint64_t length() const { return end_ns - start_ns; }
  uint64_t rest() const { return length() - blocked_ns; }
};

struct Context {
  Context(const model::Profile& p, const model::AdviseThresholds& t);

  const model::Profile& profile;
  const model::AdviseThresholds& t;
  uint64_t wall_ns = 0;                   // as analysis::Summarize's
  uint64_t kernel_ns = 0;                 // kernel time (Summary::kernel_ns)
  uint64_t first_busy_ns = 0;             // first GPU activity start (0 when none)
  uint64_t last_busy_ns = 0;              // last GPU activity end
  uint64_t busy_ns = 0;                   // union of kernels, copies and memsets
  std::vector<ApiKind> api_kind_by_name;  // per StringId
  ApiByCorrelation apis;
  OwnTime own;  // cuscope's own time, left out of the program's
  // Idle gaps between the first and the last GPU activity, in time order.
  std::vector<Gap> gaps;
  // Busy intervals (merged, in time order), for utilization windows.
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  Steps steps;  // the loop's steps; empty when the profile has none
  Phase phase = Phase::kWhole;

  // Whether something that begins at `start_ns` belongs to the phase.
  bool InPhase(uint64_t start_ns) const {
    if (phase == Phase::kWhole) return true;
    return (start_ns < steps.first_start_ns()) == (phase == Phase::kStartup);
  }
  // The phase's span: [from, to).
  uint64_t PhaseFrom() const { return phase == Phase::kLoop ? steps.first_start_ns() : 0; }
  uint64_t PhaseTo() const {
    return phase == Phase::kStartup ? steps.first_start_ns() : UINT64_MAX;
  }

  ApiKind KindOf(const model::ApiRecord& a) const {
    return a.name < api_kind_by_name.size() ? api_kind_by_name[a.name] : ApiKind::kOther;
  }
  // Attributes every gap (fills `gaps[i].cause`); `first_iteration` is the span of
  // the first-iteration finding (0, 0 when none).
  void AttributeGaps(uint64_t first_start, uint64_t first_end);
  // A finding of `rule` with its gain, gain % and severity set.
  model::Finding Make(const char* rule, double gain_ns, model::GainBasis basis) const;
  // Whether a finding clears min_gain_pct.
  bool Keeps(const model::Finding& f) const {
    return f.gain_ns > 0 && f.gain_pct >= t.min_gain_pct;
  }
  // The region path ("step/forward") open at `t_ns` on `thread` (any thread when
  // model::kNoId), "" when none.
  std::string RegionAt(uint64_t t_ns, uint32_t thread) const;
  // The thread of the API call that launched the GPU record of `correlation_id`,
  // model::kNoId when unknown.
  uint32_t ThreadOf(uint32_t correlation_id) const;
};

// "812 ns", "4.1 us", "2.50 ms", "1.21 s".
std::string Dur(double ns);
// "41%" (no decimals from 10 up), "3.5%".
std::string Pct(double pct);
// "7.7 GB/s".
std::string Gbps(double bytes_per_ns);
// The median of `v` (sorts it); 0 when empty.
double Median(std::vector<double> v);

}  // namespace cuscope::analysis::advise

#endif  // CUSCOPE_LIB_ANALYSIS_ADVISE_CONTEXT_H_
