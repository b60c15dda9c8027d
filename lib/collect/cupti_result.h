// CUPTI's name for a result code, for error lines.
#ifndef CUSCOPE_LIB_COLLECT_CUPTI_RESULT_H_
#define CUSCOPE_LIB_COLLECT_CUPTI_RESULT_H_

#include <cupti_result.h>

#include <string>

namespace cuscope::collect {

// "CUPTI_ERROR_INVALID_CONTEXT" and the like; "CUPTI error N" when CUPTI has no name.
std::string CuptiResultString(CUptiResult r);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CUPTI_RESULT_H_
