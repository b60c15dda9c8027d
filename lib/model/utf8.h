// UTF-8 checks for text that comes from files (names, meta values): every string
// a loaded profile holds is valid UTF-8, so every writer's output is too.
#ifndef CUSCOPE_LIB_MODEL_UTF8_H_
#define CUSCOPE_LIB_MODEL_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace cuscope::model {

// The length of the valid UTF-8 prefix of `s` (s.size() when all of it is valid).
// Overlong forms, surrogates and code points above U+10FFFF are invalid.
size_t ValidUtf8Prefix(std::string_view s);

inline bool IsValidUtf8(std::string_view s) { return ValidUtf8Prefix(s) == s.size(); }

// `s` with each byte that does not begin a valid sequence replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view s);

// For one-line messages: `s` in single quotes, with bytes outside printable ASCII
// (newlines, quotes' backslashes, invalid UTF-8, ...) escaped as C escapes, and cut
// to about `max_bytes` with "..." and the full length when longer.
std::string QuoteForMessage(std::string_view s, size_t max_bytes = 64);

// For one-line messages that quote text of unknown content (SQLite's messages
// quote the schema): control characters escaped (\n, \t, \x01, ...), invalid
// UTF-8 replaced, and cut to at most `max_bytes` (plus "...") on a character
// boundary.
std::string OneLine(std::string_view s, size_t max_bytes = 200);

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_UTF8_H_
