// A regular expression given by the user (--kernels, --regions, --capture=range:):
// RE2 syntax (no backreferences, no lookaround), searched like std::regex_search
// (it matches anywhere in the name unless anchored with ^ and $), in time linear in
// the pattern and the name, compiled once with a bounded program size. Any text
// gives a Pattern or an error, never a crash: RE2 parses without recursion.
#ifndef CUSCOPE_LIB_MODEL_PATTERN_H_
#define CUSCOPE_LIB_MODEL_PATTERN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace re2 {
class RE2;
}

namespace cuscope::model {

// RE2's memory budget for one pattern: its compiled program and its DFA caches.
inline constexpr int64_t kPatternMaxMem = int64_t{4} << 20;
// The deepest nesting of groups accepted.
inline constexpr int kPatternMaxNesting = 1000;

class Pattern {
 public:
  // `text` compiled; InvalidArgument with RE2's reason (one line, at most about 200
  // characters) if it does not compile, nests groups deeper than kPatternMaxNesting
  // or does not fit in kPatternMaxMem.
  static absl::StatusOr<Pattern> Compile(absl::string_view text);
  // `text` compiled or, if it does not compile, a pattern that matches nothing: for
  // a pattern that the settings already validated (lib/config).
  static Pattern CompileOrNothing(absl::string_view text);

  // Whether the pattern matches somewhere in `name`. Thread-safe.
  bool Search(absl::string_view name) const;

 private:
  explicit Pattern(std::shared_ptr<const re2::RE2> re) : re_(std::move(re)) {}
  std::shared_ptr<const re2::RE2> re_;
};

// A pattern and its answer for every name asked so far, so that each distinct name
// is matched once (the launch and region paths ask for the same names again and
// again). Not thread-safe: its owner guards it. Memory grows with the distinct
// names asked, as the profile's string table does.
class CachedPattern {
 public:
  explicit CachedPattern(Pattern pattern) : pattern_(std::move(pattern)) {}
  bool Search(absl::string_view name);

 private:
  Pattern pattern_;
  absl::flat_hash_map<std::string, bool> answers_;
};

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_PATTERN_H_
