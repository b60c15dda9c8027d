#include "lib/report/torch_table.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/format.h"
#include "lib/report/json_writer.h"

namespace cuscope::report {
namespace {

using analysis::TorchLineRow;
using analysis::TorchOpRow;
using analysis::TorchSummary;
using analysis::TorchTotals;

double Pct(uint64_t part, uint64_t whole) { return whole == 0 ? 0.0 : 100.0 * part / whole; }

size_t Rows(size_t n, int top) { return top > 0 && static_cast<size_t>(top) < n ? top : n; }

std::string OpLabel(const TorchOpRow& r) {
  std::string op = r.op.empty() ? "(no op)" : r.op;
  return r.backward ? absl::StrCat(op, " [backward]") : op;
}

std::string LineLabel(const TorchLineRow& r) {
  if (r.location == model::kNoLocation) return "(no line)";
  return absl::StrCat(r.file, ":", r.line, " ", r.function);
}

std::string Csv(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void Shares(const TorchSummary& s, std::ostream& out) {
  auto line = [&](const char* what, const TorchTotals& t) {
    out << absl::StrFormat("  %-22s %6.1f%% of kernels, %6.1f%% of GPU time\n", what,
                           Pct(t.kernels, s.all.kernels), Pct(t.gpu_ns, s.all.gpu_ns));
  };
  line("with an op:", s.with_op);
  line("with a Python line:", s.with_line);
  line("backward:", s.backward);
  line("backward with a line:", s.backward_with_line);
  if (s.inherited.kernels > 0) line("from an earlier step:", s.inherited);
}

void Text(const TorchSummary& s, TorchBy by, int top, std::ostream& out) {
  if (s.empty()) {
    out << "No PyTorch ranges in this profile (record it with cuscope run --pytorch).\n";
    return;
  }
  out << (by == TorchBy::kOp ? "Kernels by PyTorch op\n" : "Kernels by Python line\n");
  Shares(s, out);
  out << absl::StrFormat("%7s %12s %9s  %s\n", "Time %", "GPU time", "Kernels",
                         by == TorchBy::kOp ? "Op  (top kernel)" : "Line  (top op)");
  auto row = [&](const TorchTotals& t, const std::string& label, const std::string& top_name) {
    out << absl::StrFormat("%6.1f%% %12s %9d  %s  (%s)\n", Pct(t.gpu_ns, s.all.gpu_ns),
                           FormatDuration(static_cast<double>(t.gpu_ns)), t.kernels, label,
                           top_name);
  };
  if (by == TorchBy::kOp) {
    for (size_t i = 0; i < Rows(s.by_op.size(), top); ++i) {
      row(s.by_op[i].totals, OpLabel(s.by_op[i]), s.by_op[i].top_kernel);
    }
  } else {
    for (size_t i = 0; i < Rows(s.by_line.size(), top); ++i) {
      row(s.by_line[i].totals, LineLabel(s.by_line[i]), s.by_line[i].top_op);
    }
  }
}

void CsvOut(const TorchSummary& s, TorchBy by, int top, std::ostream& out) {
  if (by == TorchBy::kOp) {
    out << "op,backward,kernels,gpu_time_ns,top_kernel\n";
    for (size_t i = 0; i < Rows(s.by_op.size(), top); ++i) {
      const TorchOpRow& r = s.by_op[i];
      out << absl::StrJoin(
                 {Csv(r.op), std::string(r.backward ? "1" : "0"), absl::StrCat(r.totals.kernels),
                  absl::StrCat(r.totals.gpu_ns), Csv(r.top_kernel)},
                 ",")
          << "\n";
    }
    return;
  }
  out << "file,line,function,kernels,gpu_time_ns,backward_kernels,backward_gpu_time_ns,top_op\n";
  for (size_t i = 0; i < Rows(s.by_line.size(), top); ++i) {
    const TorchLineRow& r = s.by_line[i];
    out << absl::StrJoin(
               {Csv(r.file), absl::StrCat(r.line), Csv(r.function), absl::StrCat(r.totals.kernels),
                absl::StrCat(r.totals.gpu_ns), absl::StrCat(r.backward.kernels),
                absl::StrCat(r.backward.gpu_ns), Csv(r.top_op)},
               ",")
        << "\n";
  }
}

template <typename W>
void Totals(W& w, const char* key, const TorchTotals& t) {
  json::Key(w, key);
  w.StartObject();
  json::Key(w, "kernels");
  w.Uint64(t.kernels);
  json::Key(w, "gpu_time_ns");
  w.Uint64(t.gpu_ns);
  w.EndObject();
}

void Json(const TorchSummary& s, TorchBy by, int top, std::ostream& out) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  Totals(w, "all", s.all);
  Totals(w, "with_op", s.with_op);
  Totals(w, "with_line", s.with_line);
  Totals(w, "backward", s.backward);
  Totals(w, "backward_with_line", s.backward_with_line);
  Totals(w, "inherited", s.inherited);
  json::Key(w, by == TorchBy::kOp ? "by_op" : "by_line");
  w.StartArray();
  if (by == TorchBy::kOp) {
    for (size_t i = 0; i < Rows(s.by_op.size(), top); ++i) {
      const TorchOpRow& r = s.by_op[i];
      w.StartObject();
      json::Key(w, "op");
      json::Str(w, r.op);
      json::Key(w, "backward");
      w.Bool(r.backward);
      Totals(w, "totals", r.totals);
      json::Key(w, "top_kernel");
      json::Str(w, r.top_kernel);
      w.EndObject();
    }
  } else {
    for (size_t i = 0; i < Rows(s.by_line.size(), top); ++i) {
      const TorchLineRow& r = s.by_line[i];
      w.StartObject();
      json::Key(w, "file");
      json::Str(w, r.file);
      json::Key(w, "line");
      w.Uint(r.line);
      json::Key(w, "function");
      json::Str(w, r.function);
      Totals(w, "totals", r.totals);
      Totals(w, "backward", r.backward);
      json::Key(w, "top_op");
      json::Str(w, r.top_op);
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  out << buffer.GetString() << "\n";
}

}  // namespace

void WriteTorchTable(const TorchSummary& s, TorchBy by, TorchFormat format, int top,
                     std::ostream& out) {
  switch (format) {
    case TorchFormat::kText:
      Text(s, by, top, out);
      break;
    case TorchFormat::kCsv:
      CsvOut(s, by, top, out);
      break;
    case TorchFormat::kJson:
      Json(s, by, top, out);
      break;
  }
}

}  // namespace cuscope::report
