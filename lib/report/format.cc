#include "lib/report/format.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

size_t ShownRows(size_t total, int top) {
  return top <= 0 ? total : std::min(total, static_cast<size_t>(top));
}

std::string Wrapped(absl::string_view text, size_t width, size_t indent, size_t next_indent) {
  std::string out;
  size_t pad = indent;
  while (true) {
    const size_t room = width > pad + 10 ? width - pad : (width == 0 ? 0 : 10);
    size_t cut = text.size();
    if (room != 0 && text.size() > room) {
      cut = text.rfind(' ', room);
      if (cut == absl::string_view::npos || cut <= room / 3) {  // a long word: cut inside
        cut = room;
        while (cut > 1 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      }
    }
    absl::StrAppend(&out, std::string(pad, ' '), text.substr(0, cut), "\n");
    text.remove_prefix(cut);
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (text.empty()) return out;
    pad = next_indent;
  }
}

namespace {

// A name cut to `room` bytes by `names`; `room` 0 is no limit.
std::string FitTo(const NameCut& names, absl::string_view name, size_t room) {
  return room == 0 ? std::string(name) : names.Fit(name, std::max<size_t>(room, 4));
}

// The smaller of two limits where 0 is none.
size_t Limit(size_t a, size_t b) { return a == 0 ? b : b == 0 ? a : std::min(a, b); }

}  // namespace

struct TextTable::Layout {
  std::vector<size_t> columns;  // the shown columns but the name, in order
  std::vector<size_t> widths;   // per header
  std::vector<std::string> dropped;
  bool stacked = false;  // names on their own lines
  size_t name_room = 0;  // 0: no limit
  size_t numbers = 0;    // the width of a line of numbers, indent included
};

TextTable::TextTable(std::vector<std::string> headers, int detail_indent)
    : headers_(std::move(headers)), detail_indent_(detail_indent) {}

const NameCut& TextTable::Names() const {
  static const NameCut* const kAlone = new NameCut();
  return names_ != nullptr ? *names_ : *kAlone;
}

void TextTable::Fit(size_t width, size_t max_name, const NameCut* names) {
  width_ = width;
  max_name_ = max_name;
  names_ = names;
}

void TextTable::SetDroppable(std::vector<std::string> headers) { droppable_ = std::move(headers); }

void TextTable::AddRow(std::vector<std::string> cells) { rows_.push_back({std::move(cells), {}}); }

void TextTable::AddDetail(std::string line, absl::string_view name) {
  rows_.back().details.push_back({std::move(line), std::string(name)});
}

TextTable::Layout TextTable::Plan() const {
  constexpr size_t kMinInlineName = 40;
  const size_t n = headers_.size();
  Layout l;
  l.widths.resize(n);
  for (size_t c = 0; c < n; ++c) l.widths[c] = headers_[c].size();
  size_t longest = 0;
  for (const Row& r : rows_) {
    for (size_t c = 0; c + 1 < n; ++c) l.widths[c] = std::max(l.widths[c], r.cells[c].size());
    longest = std::max(longest, FitTo(Names(), r.cells[n - 1], max_name_).size());
  }
  for (size_t c = 0; c + 1 < n; ++c) l.columns.push_back(c);
  auto numbers = [&] {
    size_t w = 0;
    for (size_t c : l.columns) w += l.widths[c] + 2;
    return w;  // "  " before each column
  };
  l.numbers = numbers();
  const size_t room = width_ > l.numbers + 2 ? width_ - l.numbers - 2 : 0;
  if (width_ == 0 || longest <= room || room >= kMinInlineName) {
    l.name_room = Limit(max_name_, room);
    return l;
  }
  l.stacked = true;
  l.name_room = Limit(max_name_, width_ > 2 ? width_ - 2 : 1);
  for (const std::string& d : droppable_) {
    if (l.numbers <= width_) break;
    for (size_t i = 0; i < l.columns.size(); ++i) {
      if (headers_[l.columns[i]] != d) continue;
      l.columns.erase(l.columns.begin() + long(i));
      l.dropped.push_back(d);
      l.numbers = numbers();
      break;
    }
  }
  return l;
}

void TextTable::WriteLine(const std::vector<std::string>& cells, const Layout& l, bool with_name,
                          std::ostream& out) const {
  std::string s;
  for (size_t c : l.columns) {
    s.append(l.widths[c] + 2 - cells[c].size(), ' ');
    s += cells[c];
  }
  if (with_name) absl::StrAppend(&s, "  ", cells.back());
  out << s << "\n";
}

void TextTable::Write(std::ostream& out) const {
  const size_t n = headers_.size();
  const Layout l = Plan();
  std::vector<std::string> rule(n);
  for (size_t c = 0; c < n; ++c) {
    rule[c] = std::string(c + 1 < n ? l.widths[c] : std::max<size_t>(headers_[c].size(), 4), '-');
  }
  WriteLine(headers_, l, !l.stacked, out);
  WriteLine(rule, l, !l.stacked, out);
  const size_t indent = detail_indent_ >= 0 ? size_t(detail_indent_)
                        : l.stacked         ? 4
                                            : l.numbers + 4;
  for (const Row& r : rows_) {
    std::vector<std::string> cells = r.cells;
    cells.back() = FitTo(Names(), cells.back(), l.name_room);
    if (l.stacked) out << "  " << cells.back() << "\n";
    WriteLine(cells, l, !l.stacked, out);
    for (const Detail& d : r.details) {
      std::string line = d.line;
      if (!d.name.empty()) {
        const size_t used = indent + line.size();
        const size_t room = width_ == 0 ? 0 : width_ > used + 20 ? width_ - used : 20;
        line += FitTo(Names(), d.name, Limit(max_name_, room));
      }
      out << Wrapped(line, width_, indent, indent + 2);
    }
  }
  if (!l.dropped.empty()) {
    out << Wrapped(absl::StrCat("(", absl::StrJoin(l.dropped, ", "), " left out to fit ", width_,
                                " columns; see --width)"),
                   width_, 2, 4);
  }
}

void WriteMoreLine(size_t total, size_t shown, absl::string_view what, std::ostream& out) {
  if (total <= shown) return;
  out << "  ... " << (total - shown) << " more";
  if (!what.empty()) out << " " << what;
  out << "\n";
}

}  // namespace cuscope::report
