// The report writers of profiles, for callers that use several (the CLI, the
// injected library): the data they share, text, CSV, JSON and the diff.
#ifndef CUSCOPE_LIB_REPORT_REPORT_H_
#define CUSCOPE_LIB_REPORT_REPORT_H_

#include "lib/report/csv.h"             // IWYU pragma: export
#include "lib/report/diff.h"            // IWYU pragma: export
#include "lib/report/json.h"            // IWYU pragma: export
#include "lib/report/report_data.h"     // IWYU pragma: export
#include "lib/report/report_options.h"  // IWYU pragma: export
#include "lib/report/text.h"            // IWYU pragma: export

#endif  // CUSCOPE_LIB_REPORT_REPORT_H_
