// The writers' names for the one demangler (lib/model/demangle.h).
#ifndef CUSCOPE_LIB_REPORT_DEMANGLE_H_
#define CUSCOPE_LIB_REPORT_DEMANGLE_H_

#include "lib/model/demangle.h"

namespace cuscope::report {

using model::Demangle;

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DEMANGLE_H_
