#include "lib/model/pattern.h"

#include <re2/re2.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace cuscope::model {
namespace {

// RE2's reason, cut to one short line (it may quote the whole pattern).
std::string Reason(const std::string& error) {
  constexpr size_t kMax = 200;
  std::string out;
  for (char c : error) out += (c == '\n' || c == '\r') ? ' ' : c;
  if (out.size() > kMax) {
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = absl::StrCat(out.substr(0, cut), "...");
  }
  return out;
}

// How deep `text` nests groups (escapes and bracket classes skipped; an estimate
// that only errs high, e.g. inside \Q...\E).
int NestingDepth(absl::string_view text) {
  int depth = 0, deepest = 0;
  bool in_class = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
      if (i + 1 < text.size() && text[i + 1] == '^') ++i;
      if (i + 1 < text.size() && text[i + 1] == ']') ++i;  // a leading ']' is literal
    } else if (c == '(') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ')' && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

absl::StatusOr<Pattern> Pattern::Compile(absl::string_view text) {
  // RE2 parses without recursion, but a pattern nested this deep is a mistake or an
  // attack; newer RE2 releases refuse it too.
  if (NestingDepth(text) > kPatternMaxNesting) {
    return absl::InvalidArgumentError(
        absl::StrCat("groups nested more than ", kPatternMaxNesting, " deep"));
  }
  RE2::Options options;
  options.set_log_errors(false);  // RE2 would print on stderr, inside the host program
  options.set_max_mem(kPatternMaxMem);
  auto re = std::make_shared<const RE2>(re2::StringPiece(text.data(), text.size()), options);
  if (!re->ok()) return absl::InvalidArgumentError(Reason(re->error()));
  return Pattern(std::move(re));
}

Pattern Pattern::CompileOrNothing(absl::string_view text) {
  absl::StatusOr<Pattern> p = Compile(text);
  if (p.ok()) return *std::move(p);
  return *Compile("[^\\x00-\\x{10FFFF}]");  // an empty class: no name matches
}

bool Pattern::Search(absl::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *re_);
}

bool CachedPattern::Search(absl::string_view name) {
  auto it = answers_.find(name);
  if (it == answers_.end()) it = answers_.emplace(name, pattern_.Search(name)).first;
  return it->second;
}

}  // namespace cuscope::model
