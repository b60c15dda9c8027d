#include "lib/model/utf8.h"

#include <cstdint>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace cuscope::model {
namespace {

// The length of the valid sequence starting at s[i], or 0 when none does.
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b = byte(i);
  if (b < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2, cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3, cp = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4, cp = b & 0x07;
  } else {
    return 0;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;  // surrogates
  return n;
}

}  // namespace

size_t ValidUtf8Prefix(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = SequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return i;
}

std::string ReplaceInvalidUtf8(std::string_view s) {
  size_t valid = ValidUtf8Prefix(s);
  if (valid == s.size()) return std::string(s);
  std::string out(s.substr(0, valid));
  for (size_t i = valid; i < s.size();) {
    const size_t n = SequenceLength(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

std::string QuoteForMessage(std::string_view s, size_t max_bytes) {
  const bool cut = s.size() > max_bytes;
  std::string escaped = absl::CHexEscape(absl::string_view(s.data(), cut ? max_bytes : s.size()));
  if (!cut) return absl::StrCat("'", escaped, "'");
  return absl::StrCat("'", escaped, "...' (", s.size(), " bytes)");
}

std::string OneLine(std::string_view s, size_t max_bytes) {
  const std::string valid = ReplaceInvalidUtf8(s);
  std::string out;
  for (size_t i = 0; i < valid.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(valid[i]);
    if (out.size() >= max_bytes && (c & 0xC0) != 0x80) {
      out += "...";
      break;
    }
    if (c >= 0x20 && c != 0x7F) {
      out += static_cast<char>(c);
    } else {
      out += absl::CHexEscape(absl::string_view(&valid[i], 1));
    }
  }
  return out;
}

}  // namespace cuscope::model
