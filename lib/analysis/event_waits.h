// Which cudaEventRecord each event wait (cudaEventSynchronize, cudaStreamWaitEvent)
// waited for: what Kineto's traces call the wait's "wait_on_cuda_event_record_corr_id"
// and "wait_on_stream".
#ifndef CUSCOPE_LIB_ANALYSIS_EVENT_WAITS_H_
#define CUSCOPE_LIB_ANALYSIS_EVENT_WAITS_H_

#include <cstdint>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

inline constexpr int32_t kNoEventRecord = -1;

// Per sync record (by index): the index in profile.event_records of the record call
// whose event it waited on, or kNoEventRecord (not an event wait, or no record of the
// event known). When the records carry event sync ids (CUPTI's exact link), the record
// with the wait's; else the latest record of the same event whose call came before the
// wait (correlation ids grow with the calls).
std::vector<int32_t> LinkEventWaits(const model::Profile& profile);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_EVENT_WAITS_H_
