// The two CUPTI entry points the session and the injection entry points need outside
// the collector: CUPTI's clock and CUPTI's NVTX hook. With these, lib/inject includes
// no CUPTI header (scripts/lint_structure.py checks it).
#ifndef CUSCOPE_LIB_COLLECT_CUPTI_ENTRY_H_
#define CUSCOPE_LIB_COLLECT_CUPTI_ENTRY_H_

#include <cstdint>

namespace cuscope::collect {

// CUPTI's timestamp (the clock of every activity record), or 0 when CUPTI cannot give
// it.
uint64_t CuptiNowNs();

// Hands NVTX's export table to CUPTI's InitializeInjectionNvtx2 (libcupti is loaded
// if it is not yet), so that NVTX ranges become activity records. Returns what CUPTI
// returns, or -1 when libcupti or its hook cannot be found.
int HandNvtxToCupti(const void* get_export_table);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CUPTI_ENTRY_H_
