#include "lib/report/format.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/checked.h"

namespace cuscope::report {

std::string FormatDuration(double ns) {
  if (!std::isfinite(ns) || ns < 0) ns = 0;
  if (ns < 1e3) {
    if (ns == std::floor(ns)) return absl::StrFormat("%.0f ns", ns);
    return absl::StrFormat("%.1f ns", ns);
  }
  if (ns < 1e6) return absl::StrFormat("%.3f us", ns / 1e3);
  if (ns < 1e9) return absl::StrFormat("%.3f ms", ns / 1e6);
  return absl::StrFormat("%.3f s", ns / 1e9);
}

std::string FormatSignedDuration(int64_t ns) {
  const std::string d = FormatDuration(static_cast<double>(model::Magnitude(ns)));
  return (ns < 0 ? "-" : "+") + d;
}

std::string FormatBytes(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes < 1000) return absl::StrFormat("%d B", bytes);
  if (b < 1e6) return absl::StrFormat("%.3f KB", b / 1e3);
  if (b < 1e9) return absl::StrFormat("%.3f MB", b / 1e6);
  return absl::StrFormat("%.3f GB", b / 1e9);
}

std::string FormatPercent(double percent) { return absl::StrFormat("%.1f", percent); }

std::string CutWithEllipsis(absl::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  size_t cut = n - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(s.substr(0, cut), "...");
}

namespace {

// "f<int>(...)" for "f<int>(int, float)": the last balanced parameter list of a
// name ending in ')' replaced by "(...)"; "" when there is none to collapse.
std::string CollapseParameters(absl::string_view name) {
  if (name.empty() || name.back() != ')') return "";
  int level = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++level;
    if (name[i] == '(' && --level == 0) {
      return i > 0 ? absl::StrCat(name.substr(0, i), "(...)") : "";
    }
  }
  return "";
}

}  // namespace

std::string CutInTheMiddle(absl::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  if (n < 5) return CutWithEllipsis(s, n);
  size_t head = (n - 3 + 1) / 2;
  size_t tail = s.size() - (n - 3 - head);
  while (head > 0 && (static_cast<unsigned char>(s[head]) & 0xC0) == 0x80) --head;
  while (tail < s.size() && (static_cast<unsigned char>(s[tail]) & 0xC0) == 0x80) ++tail;
  return absl::StrCat(s.substr(0, head), "...", s.substr(tail));
}

std::string FitName(absl::string_view name, size_t width) {
  if (width < 4 || name.size() <= width) return std::string(name);
  const std::string collapsed = CollapseParameters(name);
  if (!collapsed.empty() && collapsed.size() < name.size()) {
    if (collapsed.size() <= width) return collapsed;
    return CutInTheMiddle(collapsed, width);
  }
  return CutInTheMiddle(name, width);
}

size_t ShownRows(size_t total, int top) {
  return top <= 0 ? total : std::min(total, static_cast<size_t>(top));
}

TextTable::TextTable(std::vector<std::string> headers, int detail_indent)
    : headers_(std::move(headers)), detail_indent_(detail_indent) {}

void TextTable::AddRow(std::vector<std::string> cells) { rows_.push_back({std::move(cells), {}}); }

void TextTable::AddDetail(std::string line) { rows_.back().details.push_back(std::move(line)); }

void TextTable::WriteLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                          std::ostream& out) const {
  const size_t n = headers_.size();
  std::string s = "  ";
  for (size_t c = 0; c < n; ++c) {
    if (c + 1 < n) {
      s.append(widths[c] - cells[c].size(), ' ');
      s += cells[c];
      s += "  ";
    } else {
      s += cells[c];
    }
  }
  out << s << "\n";
}

void TextTable::Write(std::ostream& out) const {
  const size_t n = headers_.size();
  std::vector<size_t> widths(n);
  for (size_t c = 0; c < n; ++c) widths[c] = headers_[c].size();
  for (const Row& r : rows_) {
    for (size_t c = 0; c + 1 < n; ++c) widths[c] = std::max(widths[c], r.cells[c].size());
  }
  size_t name_column = 2;
  for (size_t c = 0; c + 1 < n; ++c) name_column += widths[c] + 2;
  WriteLine(headers_, widths, out);
  std::vector<std::string> rule(n);
  for (size_t c = 0; c < n; ++c) {
    rule[c] = std::string(c + 1 < n ? widths[c] : std::max<size_t>(headers_[c].size(), 4), '-');
  }
  WriteLine(rule, widths, out);
  const size_t indent = detail_indent_ >= 0 ? size_t(detail_indent_) : name_column + 2;
  for (const Row& r : rows_) {
    WriteLine(r.cells, widths, out);
    for (const std::string& d : r.details) out << std::string(indent, ' ') << d << "\n";
  }
}

void WriteMoreLine(size_t total, size_t shown, absl::string_view what, std::ostream& out) {
  if (total <= shown) return;
  out << "  ... " << (total - shown) << " more";
  if (!what.empty()) out << " " << what;
  out << "\n";
}

}  // namespace cuscope::report
