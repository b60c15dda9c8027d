// The report for tools: one JSON object with the run, counts, devices and one
// {"total_rows", "rows"} table per section; raw numbers, full names.
#ifndef CUSCOPE_LIB_REPORT_JSON_H_
#define CUSCOPE_LIB_REPORT_JSON_H_

#include <ostream>

#include "lib/report/report_data.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

// The report's "schema_version": the version of the JSON report's layout (its keys,
// their types and meaning), separate from the cuscope version that collected the
// profile (run.cuscope_version) and from the profile file's schema version. Bump it
// when a key is removed or renamed or its type or meaning changes; adding a key does
// not (readers ignore keys they do not know). docs/reports.md says the same.
inline constexpr int kJsonSchemaVersion = 1;

void WriteJson(const ReportData& data, const ReportOptions& options, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_JSON_H_
