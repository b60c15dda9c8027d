// Names cut to a width: one rule for every table that prints kernel names (the text
// of the report, diff, advise and ranks, the roofline chart, the HTML pages' cells),
// so that two different kernels never print as the same line. CSV and JSON always
// print full names.
#ifndef CUSCOPE_LIB_REPORT_NAME_CUT_H_
#define CUSCOPE_LIB_REPORT_NAME_CUT_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace cuscope::report {

// `s` cut to at most `n` bytes (n >= 4) ending in "...", never inside a UTF-8
// sequence; unchanged when it fits.
std::string CutWithEllipsis(absl::string_view s, size_t n);
// `s` cut to at most `n` bytes by "..." in its middle, keeping its head and its tail,
// never inside a UTF-8 sequence; unchanged when it fits; CutWithEllipsis for n < 5.
std::string CutInTheMiddle(absl::string_view s, size_t n);
// "f<int>(...)" for "f<int>(int, float)": the last balanced parameter list of a name
// ending in ')' replaced by "(...)"; `name` itself when there is none to collapse.
std::string CollapseParameters(absl::string_view name);
// `name` fitted in `width` bytes on its own, as a region's or any other name that is
// not a kernel's: first the parameter list of a function signature collapses to
// "(...)", then the name is cut with CutInTheMiddle. A width under 4 (0 in
// ReportOptions) is no limit: the name is returned unchanged.
std::string FitName(absl::string_view name, size_t width);

// The demangled kernel names of one view (a profile, or both profiles of a diff),
// fitted to a width so that different names of the set never print alike.
//
// A name of the set that fits is printed whole. A longer one is shortened step by
// step until it fits: its parameter list collapses to "(...)", its return type
// "void " goes, then its namespace qualifiers go ("at::native::", "std::",
// "(anonymous namespace)::"); a step that would make two names of the set alike is
// not taken for them. A name still too long is cut with "..." so that the word
// where it first differs from the names nearest to it stays: in the head (the
// function's name and the template arguments up to that word), else in the tail,
// else in a window between the function's name and the end
// ("f<...normal<Half, ...(...)"). Where two cuts of the set still meet, each of them
// is numbered instead ("... #1", "... #2", in the order of the full names).
//
// So, at one width of at least 20 bytes, distinct names of the set print distinct
// strings of at most `width` bytes, and one name always prints the same string. A
// name outside the set is fitted on its own (FitName). A width under 4 is no limit.
// The fitted names are kept per width: not safe to share between threads.
class NameCut {
 public:
  // No names: every name is fitted on its own.
  NameCut() = default;
  explicit NameCut(std::vector<std::string> names);

  std::string Fit(absl::string_view name, size_t width) const;
  bool empty() const { return names_.empty(); }

 private:
  using Fitted = absl::flat_hash_map<std::string, std::string>;  // full name -> printed
  const Fitted& At(size_t width) const;

  std::vector<std::string> names_;  // sorted, distinct
  mutable std::map<size_t, Fitted> by_width_;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_NAME_CUT_H_
