// The advisor's findings (model::Finding) as tables of the profile file, declared for
// Table<Rec>::Visit (table.h).
//
// The rows are made when the findings are stored (ProfileWriter::WriteFindings, at
// the end of the run): a profile without them has no findings stored, and readers
// compute them. A finding's id is its rank (1 = the largest estimated gain); its
// evidence rows, in rowid order, are its named numbers in order. Severity and basis
// are stored by name. FindingsToRows and FindingsFromRows (schema.h) convert.
#ifndef CUSCOPE_LIB_STORE_FINDINGS_TABLES_H_
#define CUSCOPE_LIB_STORE_FINDINGS_TABLES_H_

#include <cstdint>
#include <string>

#include "lib/store/table.h"

namespace cuscope::store {

struct FindingRow {
  int64_t id = 0;
  std::string rule, severity, basis;
  double gain_ns = 0, gain_pct = 0;
  std::string summary, advice, kernel, region;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, stream_id = 0, thread_id = 0;
};

struct FindingEvidenceRow {
  int64_t finding_id = 0;
  std::string name;
  double value = 0;
};

template <>
struct Table<FindingRow> {
  static constexpr char kName[] = "findings";
  static constexpr char kDoc[] =
      "The advisor's findings (`model::Finding`, [advisor.md](advisor.md)), made at the end of "
      "the run (`ProfileWriter::WriteFindings`, which creates this table and "
      "`finding_evidence` when they are missing and replaces their rows). A profile without "
      "these tables has no findings stored (written before they existed, with "
      "`CUSCOPE_ADVISE=0`, or stopped by a signal): it loads as before (`Profile::findings` is "
      "empty-optional) and readers compute the findings. Adding them needed no schema version: "
      "older readers ignore the tables, and the loader reads them only when present. One row "
      "per finding, `id` its rank (1 = the largest estimated gain).";
  static constexpr char kConstraints[] = "PRIMARY KEY (id)";
  template <typename R, typename V>
  static void Visit(R& f, V& v) {
    v.Int("id", f.id, "rank, from 1 (the rowid)");
    v.Text("rule", f.rule, "rule id, e.g. `gpu_idle_gaps`");
    v.Text("severity", f.severity, "`low`, `medium` or `high`");
    v.Real("gain_ns", f.gain_ns, {"ns", "the estimated time to gain"});
    v.Real("gain_pct", f.gain_pct, {"%", "the estimated gain, of the basis"});
    v.Text("basis", f.basis, "`wall` (the run's wall time) or `gpu` (total kernel time)");
    v.Text("summary", f.summary, "what was seen");
    v.Text("advice", f.advice, "what to do");
    v.Text("kernel", f.kernel, "demangled kernel name; `''` when not applicable");
    v.Text("region", f.region, "region path; `''` when not applicable");
    v.Int("start_ns", f.start_ns, {"ns", "start of the time range most affected; 0 when none"});
    v.Int("end_ns", f.end_ns, {"ns", "end of the time range most affected; 0 when none"});
    v.Int("device_id", f.device_id, "`devices.id`");
    v.Int("stream_id", f.stream_id, "the stream; 4294967295 when not applicable");
    v.Int("thread_id", f.thread_id, "the thread; 4294967295 when not applicable");
  }
};

template <>
struct Table<FindingEvidenceRow> {
  static constexpr char kName[] = "finding_evidence";
  static constexpr char kDoc[] = "The named numbers of each finding, in order (`rowid`).";
  static constexpr char kConstraints[] = "FOREIGN KEY (finding_id) REFERENCES findings (id)";
  template <typename R, typename V>
  static void Visit(R& e, V& v) {
    v.Int("finding_id", e.finding_id, "`findings.id`");
    v.Text("name", e.name, "what the number is");
    v.Real("value", e.value, "the number");
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_FINDINGS_TABLES_H_
