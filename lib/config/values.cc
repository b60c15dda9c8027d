#include "lib/config/values.h"

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/config/output_path.h"
#include "lib/model/pattern.h"

namespace cuscope::config {

absl::StatusOr<uint64_t> ParseBytes(absl::string_view text) {
  std::string s = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  uint64_t mult = 1;
  if (!s.empty()) {
    char c = s.back();
    if (c == 'B') {
      s.pop_back();
      c = s.empty() ? 0 : s.back();
    }
    if (c == 'K')
      mult = 1ull << 10;
    else if (c == 'M')
      mult = 1ull << 20;
    else if (c == 'G')
      mult = 1ull << 30;
    if (mult != 1) s.pop_back();
  }
  uint64_t n = 0;
  if (s.empty() || !absl::SimpleAtoi(s, &n) || n > (uint64_t{1} << 40) / mult) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a byte count"));
  }
  return n * mult;
}

bool ParseBool(absl::string_view text, bool* value) {
  const std::string s = values::Normalized(text);
  for (absl::string_view yes : {"1", "true", "yes", "on", "t", "y"}) {
    if (s == yes) {
      *value = true;
      return true;
    }
  }
  for (absl::string_view no : {"0", "false", "no", "off", "f", "n"}) {
    if (s == no) {
      *value = false;
      return true;
    }
  }
  return false;
}

namespace values {
namespace {

// The activity kinds of CUSCOPE_TRACE, in the order they print.
struct TraceKind {
  const char* name;
  bool TraceKinds::*member;
};
constexpr TraceKind kTraceKinds[] = {
    {"kernel", &TraceKinds::kernel},    {"memcpy", &TraceKinds::memcpy},
    {"memset", &TraceKinds::memset},    {"api", &TraceKinds::api},
    {"sync", &TraceKinds::sync},        {"nvtx", &TraceKinds::nvtx},
    {"overhead", &TraceKinds::overhead}};

bool IsMetricToken(absl::string_view t) {
  if (t.empty()) return false;
  for (char c : t) {
    if (!(absl::ascii_isalnum(c) || c == '_' || c == '.')) return false;
  }
  return true;
}

// `text` compiles as a pattern (lib/model/pattern.h); else `why` says why.
bool CompilesAsRegex(absl::string_view text, std::string* why) {
  absl::StatusOr<model::Pattern> p = model::Pattern::Compile(text);
  if (!p.ok() && why != nullptr) *why = std::string(p.status().message());
  return p.ok();
}

bool ParseTraceKinds(absl::string_view text, TraceKinds* out) {
  std::string s = Normalized(text);
  if (s == "all") {
    *out = TraceKinds{};
    return true;
  }
  if (s.empty()) return false;
  TraceKinds k{false, false, false, false, false, false, false};
  for (absl::string_view part : absl::StrSplit(s, ',')) {
    part = absl::StripAsciiWhitespace(part);
    bool known = false;
    for (const TraceKind& kind : kTraceKinds) {
      if (part == kind.name) k.*kind.member = known = true;
    }
    if (part == "memory") k.memcpy = k.memset = known = true;
    if (!known) return false;
  }
  *out = k;
  return true;
}

// range:REGEX[:N]. Only the last ':' can start N, and a ':' in REGEX needs N after it
// (0 = all instances): "range:a:b" is refused rather than read as the regex "a:b".
bool ParseCapture(absl::string_view v, Config* c, std::string* why) {
  std::string text(absl::StripAsciiWhitespace(v));
  if (text == "all" || text == "profiler-api") {
    c->capture = text == "all" ? CaptureMode::kAll : CaptureMode::kProfilerApi;
    c->capture_range.clear();
    c->capture_count = 0;
    return true;
  }
  if (!absl::StartsWith(text, "range:") || text.size() <= 6) return false;
  std::string rest = text.substr(6);
  size_t colon = rest.rfind(':');
  uint64_t n = 0;
  if (colon != std::string::npos) {
    std::string count = rest.substr(colon + 1);
    if (count.empty() || !absl::c_all_of(count, absl::ascii_isdigit) ||
        !absl::SimpleAtoi(count, &n)) {
      if (why != nullptr) {
        *why =
            "N must be an integer; a REGEX holding ':' needs :N after it, e.g. "
            "range:ns::step:0 (0 = all instances)";
      }
      return false;
    }
    rest.resize(colon);
  }
  if (rest.empty() || !CompilesAsRegex(rest, why)) return false;
  c->capture = CaptureMode::kRange;
  c->capture_range = rest;
  c->capture_count = n;
  return true;
}

std::string FormatCapture(const Config& c) {
  switch (c.capture) {
    case CaptureMode::kAll:
      return "all";
    case CaptureMode::kProfilerApi:
      return "profiler-api";
    case CaptureMode::kRange:
      break;
  }
  std::string out = absl::StrCat("range:", c.capture_range);
  // N also where the regex would not read back without it: a ':' in it, or a blank
  // at its end (the value's surrounding blanks are dropped).
  const std::string& r = c.capture_range;
  if (c.capture_count != 0 || absl::StrContains(r, ':') ||
      (!r.empty() && absl::ascii_isspace(static_cast<unsigned char>(r.back())))) {
    absl::StrAppend(&out, ":", c.capture_count);
  }
  return out;
}

}  // namespace

std::string Normalized(absl::string_view text) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
}

std::string FormatBytes(uint64_t bytes) {
  for (auto [shift, unit] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}}) {
    uint64_t size = uint64_t{1} << shift;
    if (bytes != 0 && bytes % size == 0) return absl::StrCat(bytes / size, unit);
  }
  return absl::StrCat(bytes);
}

Value Bool(bool Config::*member) {
  return Value{kBoolWords,
               [member](absl::string_view text, Config* c, std::string*) {
                 return ParseBool(text, &(c->*member));
               },
               [member](const Config& c) { return std::string(c.*member ? "1" : "0"); },
               /*boolean=*/true};
}

Value Path(std::string Config::*member, const char* when_empty) {
  return Value{
      "a file path; %p becomes the pid, %h the host name, %r the rank, %q{VAR} the "
      "variable VAR, %% a %",
      [member](absl::string_view text, Config* c, std::string* why) {
        if (absl::StripAsciiWhitespace(text).empty()) return false;
        if (absl::Status st = CheckOutputPlaceholders(text); !st.ok()) {
          *why = std::string(st.message());
          return false;
        }
        c->*member = std::string(text);
        return true;
      },
      [member, when_empty](const Config& c) {
        return (c.*member).empty() ? std::string(when_empty) : c.*member;
      }};
}

Value Regex(std::string Config::*member) {
  return Value{"an RE2 regular expression (no backreferences or lookaround)",
               [member](absl::string_view text, Config* c, std::string* why) {
                 if (!CompilesAsRegex(text, why)) return false;
                 c->*member = std::string(text);
                 return true;
               },
               [member](const Config& c) { return c.*member; }};
}

Value Bytes(uint64_t Config::*member, uint64_t lo, uint64_t hi) {
  return Value{absl::StrCat("bytes, with an optional K, M or G suffix, from ", FormatBytes(lo),
                            " to ", FormatBytes(hi)),
               [member, lo, hi](absl::string_view text, Config* c, std::string*) {
                 absl::StatusOr<uint64_t> n = ParseBytes(text);
                 if (!n.ok() || *n < lo || *n > hi) return false;
                 c->*member = *n;
                 return true;
               },
               [member](const Config& c) { return FormatBytes(c.*member); }};
}

Value TraceList() {
  std::vector<std::string> names;
  for (const TraceKind& kind : kTraceKinds) names.push_back(kind.name);
  names.insert(names.begin() + 3, "memory");  // after memset: "memory" is both copies
  return Value{absl::StrCat("all, or a comma list of ", absl::StrJoin(names, ", ")),
               [](absl::string_view text, Config* c, std::string*) {
                 return ParseTraceKinds(text, &c->trace);
               },
               [](const Config& c) {
                 std::vector<std::string> on;
                 for (const TraceKind& kind : kTraceKinds) {
                   if (c.trace.*kind.member) on.push_back(kind.name);
                 }
                 return on.size() == std::size(kTraceKinds) ? "all" : absl::StrJoin(on, ",");
               }};
}

Value MetricList() {
  return Value{
      "none, or a comma list of verdict, roofline, sol, occupancy, stalls, memory, full, "
      "or raw metric names (e.g. dram__bytes.sum)",
      [](absl::string_view text, Config* c, std::string*) {
        if (absl::StripAsciiWhitespace(text) == "none") {
          c->metrics.clear();
          return true;
        }
        std::vector<std::string> metrics;
        for (absl::string_view part : absl::StrSplit(text, ',')) {
          part = absl::StripAsciiWhitespace(part);
          if (part.empty()) continue;
          if (!IsMetricToken(part)) return false;
          metrics.emplace_back(part);
        }
        c->metrics = std::move(metrics);
        return true;
      },
      [](const Config& c) { return c.metrics.empty() ? "none" : absl::StrJoin(c.metrics, ","); }};
}

Value CaptureSpec() {
  return Value{
      "all, profiler-api, or range:REGEX[:N] (N an integer, 0 = all; a REGEX "
      "holding ':' needs :N)",
      [](absl::string_view text, Config* c, std::string* why) {
        return ParseCapture(text, c, why);
      },
      FormatCapture};
}

}  // namespace values
}  // namespace cuscope::config
