// The run's fields that the reports print, declared once: the JSON report writes
// them as its "run" and "counts" objects, the CSV report as the rows of its "# run"
// section, both in this order, so the formats cannot disagree. A field added here
// appears in both. RunInfo::notes (model::NotesToKeyValues, as "extra")
// follows them in each format.
#ifndef CUSCOPE_LIB_REPORT_RUN_FIELDS_H_
#define CUSCOPE_LIB_REPORT_RUN_FIELDS_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "lib/analysis/summary.h"
#include "lib/model/profile.h"

namespace cuscope::report {

// A field's value: text, a signed or an unsigned integer (JSON keeps the kind).
using RunFieldValue = std::variant<std::string, int64_t, uint64_t>;

struct RunField {
  // Where the JSON report puts it: in "run" (about the run) or in "counts" (records
  // of each kind). CSV has one section for both.
  enum class Group { kRun, kCounts };
  const char* key;
  Group group;
  RunFieldValue (*value)(const model::RunInfo& run, const analysis::Summary& summary);
};

// Every field, in the order the reports print them.
const std::vector<RunField>& RunFields();

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_RUN_FIELDS_H_
