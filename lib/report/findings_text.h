// The advisor's findings (model::Finding) for people: the text of `cuscope advise`
// and of the report's last section, and the JSON array of both.
#ifndef CUSCOPE_LIB_REPORT_FINDINGS_TEXT_H_
#define CUSCOPE_LIB_REPORT_FINDINGS_TEXT_H_

#include <ostream>
#include <string>
#include <vector>

#include "lib/model/finding.h"
#include "lib/model/profile.h"
#include "lib/report/json_writer.h"
#include "lib/report/name_cut.h"

namespace cuscope::report {

// "Findings" and the first `limit` findings (all when 0, nothing when < 0), each as a heading line
// (rank, severity, rule, estimated gain), its summary, where and the advice.
// `footer` (when not empty) follows a list that was cut. Lines wrap at `width` (0: no
// limit); kernel names are fitted by `names` (the profile's: KernelNameCut), region
// names on their own (FitName).
void WriteFindingsText(const model::Profile& profile, const std::vector<model::Finding>& findings,
                       const NameCut& names, int limit, size_t max_name_width, size_t width,
                       const std::string& footer, std::ostream& out);

// "findings": [...] (the first `limit`, all when <= 0), every field of each finding;
// times also relative to the run's start.
void WriteFindingsJson(json::Writer& w, const model::Profile& profile,
                       const std::vector<model::Finding>& findings, int limit);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_FINDINGS_TEXT_H_
