// Cutting display text to a width.
#ifndef CUSCOPE_LIB_REPORT_CUT_H_
#define CUSCOPE_LIB_REPORT_CUT_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cuscope::report {

// `s` cut to at most `n` bytes (n >= 4) ending in "...", never inside a UTF-8
// sequence; unchanged when it fits.
inline std::string CutWithEllipsis(absl::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  size_t cut = n - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return absl::StrCat(s.substr(0, cut), "...");
}

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_CUT_H_
