// The advisor's findings as rows of the findings tables (schema.h), and back.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/store/schema.h"

namespace cuscope::store {
namespace {

template <typename Rec>
std::string CreateIfMissing() {
  ColumnLister c = Columns<Rec>();
  return absl::StrCat("CREATE TABLE IF NOT EXISTS ", Table<Rec>::kName, " (\n  ",
                      absl::StrJoin(c.declarations, ",\n  "), ",\n  ", Table<Rec>::kConstraints,
                      "\n);\n");
}

}  // namespace

void FindingsToRows(const std::vector<model::Finding>& findings, std::vector<FindingRow>& rows,
                    std::vector<FindingEvidenceRow>& evidence) {
  for (size_t i = 0; i < findings.size(); ++i) {
    const model::Finding& f = findings[i];
    const int64_t id = static_cast<int64_t>(i) + 1;
    rows.push_back({id, f.rule, model::SeverityName(f.severity), model::GainBasisName(f.basis),
                    f.gain_ns, f.gain_pct, f.summary, f.advice, f.kernel, f.region, f.start_ns,
                    f.end_ns, f.device_id, f.stream_id, f.thread_id});
    for (const auto& [name, value] : f.evidence) evidence.push_back({id, name, value});
  }
}

std::string FindingsFromRows(const std::vector<FindingRow>& rows,
                             const std::vector<FindingEvidenceRow>& evidence,
                             std::vector<model::Finding>& out) {
  out.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const FindingRow& r = rows[i];
    if (r.id != static_cast<int64_t>(i) + 1) {
      return absl::StrFormat("findings row %d: column id holds %d, expected %d (ids are ranks)",
                             i + 1, r.id, i + 1);
    }
    model::Finding& f = out.emplace_back();
    bool known = false;
    for (model::Severity s :
         {model::Severity::kLow, model::Severity::kMedium, model::Severity::kHigh}) {
      if (r.severity == model::SeverityName(s)) f.severity = s, known = true;
    }
    if (!known) {
      return absl::StrFormat(
          "findings row %d: column severity holds '%s', expected low, medium or high", i + 1,
          r.severity);
    }
    if (r.basis != "wall" && r.basis != "gpu") {
      return absl::StrFormat("findings row %d: column basis holds '%s', expected wall or gpu",
                             i + 1, r.basis);
    }
    f.basis = r.basis == "gpu" ? model::GainBasis::kGpu : model::GainBasis::kWall;
    f.rule = r.rule;
    f.gain_ns = r.gain_ns;
    f.gain_pct = r.gain_pct;
    f.summary = r.summary;
    f.advice = r.advice;
    f.kernel = r.kernel;
    f.region = r.region;
    f.start_ns = r.start_ns;
    f.end_ns = r.end_ns;
    f.device_id = r.device_id;
    f.stream_id = r.stream_id;
    f.thread_id = r.thread_id;
  }
  for (size_t i = 0; i < evidence.size(); ++i) {
    const FindingEvidenceRow& e = evidence[i];
    if (e.finding_id < 1 || e.finding_id > static_cast<int64_t>(out.size())) {
      return absl::StrFormat(
          "finding_evidence row %d: column finding_id holds '%d', expected the id of a findings "
          "row",
          i + 1, e.finding_id);
    }
    out[e.finding_id - 1].evidence.emplace_back(e.name, e.value);
  }
  return "";
}

std::string FindingsSchemaSql() {
  return absl::StrCat(CreateIfMissing<FindingRow>(), CreateIfMissing<FindingEvidenceRow>(),
                      "DELETE FROM finding_evidence;\nDELETE FROM findings;\n");
}

}  // namespace cuscope::store
