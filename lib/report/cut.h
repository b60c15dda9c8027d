// CutWithEllipsis now lives in format.h with the other name cutting; this header
// only forwards to it until roofline_svg.cc includes format.h (then delete it).
#ifndef CUSCOPE_LIB_REPORT_CUT_H_
#define CUSCOPE_LIB_REPORT_CUT_H_

#include "lib/report/format.h"  // IWYU pragma: export

#endif  // CUSCOPE_LIB_REPORT_CUT_H_
