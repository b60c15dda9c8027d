#include "lib/inject/config.h"

#include <cstdlib>
#include <regex>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace cuscope::config {
namespace {

constexpr const char* kBoolAccepted = "1, 0, true, false, yes, no, on, off";

constexpr const char* kMetricsAccepted =
    "a comma list of roofline, sol, occupancy, stalls, memory, full, or raw metric names "
    "(e.g. dram__bytes.sum)";

bool IsMetricToken(absl::string_view t) {
  if (t.empty()) return false;
  for (char c : t) {
    if (!(absl::ascii_isalnum(c) || c == '_' || c == '.')) return false;
  }
  return true;
}

// One line naming the variable, its value and what it accepts (from Settings(), the
// text `cuscope run --help` and docs show).
absl::Status Invalid(absl::string_view env, absl::string_view value) {
  absl::string_view accepts = "see docs/configuration.md";
  for (const SettingInfo& s : Settings()) {
    if (env == s.env) accepts = s.accepts;
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s=\"%s\" is not valid; accepted: %s", env, absl::CHexEscape(value), accepts));
}

absl::StatusOr<bool> ParseBool(absl::string_view env, absl::string_view v) {
  std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v));
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  return Invalid(env, v);
}

absl::StatusOr<int> ParseInt(absl::string_view env, absl::string_view v, int lo, int hi) {
  int n = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(v), &n) || n < lo || n > hi) {
    return Invalid(env, v);
  }
  return n;
}

absl::StatusOr<TraceKinds> ParseTraceKinds(absl::string_view env, absl::string_view v) {
  TraceKinds k{false, false, false, false, false, false, false};
  std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v));
  if (s == "all") return TraceKinds{};
  if (s.empty()) return Invalid(env, v);
  for (absl::string_view part : absl::StrSplit(s, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part == "kernel") k.kernel = true;
    else if (part == "memcpy") k.memcpy = true;
    else if (part == "memset") k.memset = true;
    else if (part == "api") k.api = true;
    else if (part == "sync") k.sync = true;
    else if (part == "nvtx") k.nvtx = true;
    else if (part == "overhead") k.overhead = true;
    else if (part == "memory") k.memcpy = k.memset = true;
    else
      return Invalid(env, v);
  }
  return k;
}

}  // namespace

const std::vector<SettingInfo>& Settings() {
  static const std::vector<SettingInfo>* settings = new std::vector<SettingInfo>{
      {"CUSCOPE_ENABLE", "enable", "1", kBoolAccepted,
       "Set to 0 to load cuscope without profiling."},
      {"CUSCOPE_OUTPUT", "output", "cuscope-%p.sqlite", "a file path; %p becomes the pid",
       "Where the profile (SQLite) is written. A child process of the profiled program "
       "writes <stem>.<pid>.sqlite beside it."},
      {"CUSCOPE_TRACE", "trace", "all",
       "all, or a comma list of kernel, memcpy, memset, memory, api, sync, nvtx, overhead",
       "Which activity kinds to record."},
      {"CUSCOPE_API", "api", "default", "default, all or none",
       "Which CUDA runtime and driver API calls to record: default records launches, "
       "copies, memsets, allocations and synchronizations; all records every call."},
      {"CUSCOPE_REPORT", "report", "text", "text or none",
       "What to print on stderr when the program ends."},
      {"CUSCOPE_REPORT_TOP", "top", "10", "an integer from 0 to 1000000 (0 = all rows)",
       "Rows per table in the report printed at the end."},
      {"CUSCOPE_BUFFER_SIZE", "buffer_size", "8M", "bytes, with an optional K, M or G suffix, "
       "from 64K to 1G", "Size of one activity buffer."},
      {"CUSCOPE_MAX_BUFFERS", "max_buffers", "64", "an integer from 2 to 65536",
       "Cap on activity buffers held at once; past it, records are dropped and counted."},
      {"CUSCOPE_FLUSH_PERIOD_MS", "flush_period_ms", "1000",
       "an integer from 0 to 3600000 (0 = only when buffers fill)",
       "How often buffered records are written to the profile, so a crash keeps them."},
      {"CUSCOPE_VERBOSE", "verbose", "0", kBoolAccepted, "Print what cuscope does on stderr."},
      {"CUSCOPE_METRICS", "metrics", "", kMetricsAccepted,
       "Hardware counters per kernel (CUPTI Range Profiler): named sets and raw metric "
       "names, comma separated. Empty: no counters."},
      {"CUSCOPE_KERNELS", "kernels", "", "an ECMAScript regular expression",
       "Measure counters only for kernels whose demangled name matches (search)."},
      {"CUSCOPE_LAUNCH_SKIP", "launch_skip", "0", "an integer >= 0",
       "Matching launches to leave alone before measuring (warm-up)."},
      {"CUSCOPE_LAUNCH_COUNT", "launch_count", "0", "an integer >= 0 (0 = no limit)",
       "Most launches measured with counters."},
      {"CUSCOPE_PER_SIGNATURE", "per_signature", "1", "an integer from 1 to 1000000, or all",
       "Complete counter samples per kernel signature (name, grid, block); all = every "
       "launch."},
      {"CUSCOPE_REPLAY", "replay", "auto", "auto, rotate or kernel",
       "How multi-pass metric sets are collected: rotate spreads the passes over "
       "successive launches of a signature (no replay); kernel replays each measured "
       "launch (CUPTI saves and restores memory); auto: kernel replay for bounded "
       "samples per signature (the default), rotate for all."},
      {"CUSCOPE_CAPTURE", "capture", "all", "all, profiler-api, or range:REGEX[:N]",
       "What to record: everything; only between cudaProfilerStart and "
       "cudaProfilerStop; or only inside the first N instances (all when N is left "
       "out) of regions (NVTX ranges, cuscope scopes) whose name matches REGEX."},
      {"CUSCOPE_REGIONS", "regions", "", "an ECMAScript regular expression",
       "Measure counters only for kernels launched inside a region (NVTX range or "
       "cuscope scope, on the launching thread) whose name matches."},
      {"CUSCOPE_REGION_COUNTERS", "region_counters", "0", kBoolAccepted,
       "Measure each region matching CUSCOPE_REGIONS as a whole (one user range per "
       "instance; successive instances serve as the passes) instead of its kernels one "
       "by one: the region's roofline point."},
      {"CUSCOPE_WINDOW", "window", "32", "an integer from 1 to 4096",
       "Most launches of one signature per rotate window (one pass each)."},
  };
  return *settings;
}

absl::StatusOr<uint64_t> ParseBytes(absl::string_view text) {
  std::string s = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  uint64_t mult = 1;
  if (!s.empty()) {
    char c = s.back();
    if (c == 'B') { s.pop_back(); c = s.empty() ? 0 : s.back(); }
    if (c == 'K') mult = 1ull << 10;
    else if (c == 'M') mult = 1ull << 20;
    else if (c == 'G') mult = 1ull << 30;
    if (mult != 1) s.pop_back();
  }
  uint64_t n = 0;
  if (s.empty() || !absl::SimpleAtoi(s, &n) || n > (uint64_t{1} << 40) / mult) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\" is not a byte count"));
  }
  return n * mult;
}

namespace {
absl::StatusOr<Config> ParseEach(const GetEnv& getenv);

// `value` compiles as an ECMAScript regular expression; else one line naming `env`.
absl::Status CheckRegex(const char* env, absl::string_view value) {
  try {
    std::regex re{std::string(value)};
    (void)re;
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s=\"%s\" is not valid (%s); accepted: an ECMAScript regular expression", env,
        absl::CHexEscape(value), e.what()));
  }
  return absl::OkStatus();
}
}  // namespace

absl::Status ValidateSetting(absl::string_view env, absl::string_view value) {
  const char* name = nullptr;
  for (const auto& s : Settings()) {
    if (env == s.env) name = s.env;
  }
  if (name == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown setting ", env));
  std::string key(env), val(value);
  // This value alone: combinations are checked by ConfigFromEnv.
  auto result = ParseEach([&](const char* k) -> const char* {
    return key == k ? val.c_str() : nullptr;
  });
  return result.status();
}

namespace {
// Each variable on its own; ConfigFromEnv adds the checks of combinations.
absl::StatusOr<Config> ParseEach(const GetEnv& getenv) {
  Config c;
  auto get = [&](const char* name, absl::string_view* out) {
    const char* v = getenv(name);
    if (v == nullptr) return false;
    *out = v;
    return true;
  };
  absl::string_view v;
  if (get("CUSCOPE_ENABLE", &v)) {
    auto b = ParseBool("CUSCOPE_ENABLE", v);
    if (!b.ok()) return b.status();
    c.enabled = *b;
  }
  if (get("CUSCOPE_OUTPUT", &v)) {
    if (absl::StripAsciiWhitespace(v).empty()) {
      return Invalid("CUSCOPE_OUTPUT", v);
    }
    c.output = std::string(v);
  }
  if (get("CUSCOPE_TRACE", &v)) {
    auto k = ParseTraceKinds("CUSCOPE_TRACE", v);
    if (!k.ok()) return k.status();
    c.trace = *k;
  }
  if (get("CUSCOPE_API", &v)) {
    std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v));
    if (s == "default") c.api = ApiMode::kDefault;
    else if (s == "all") c.api = ApiMode::kAll;
    else if (s == "none") c.api = ApiMode::kNone;
    else return Invalid("CUSCOPE_API", v);
  }
  if (get("CUSCOPE_REPORT", &v)) {
    std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v));
    if (s == "text") c.report = ReportMode::kText;
    else if (s == "none") c.report = ReportMode::kNone;
    else return Invalid("CUSCOPE_REPORT", v);
  }
  if (get("CUSCOPE_REPORT_TOP", &v)) {
    auto n = ParseInt("CUSCOPE_REPORT_TOP", v, 0, 1000000);
    if (!n.ok()) return n.status();
    c.report_top = *n;
  }
  if (get("CUSCOPE_BUFFER_SIZE", &v)) {
    auto n = ParseBytes(v);
    if (!n.ok() || *n < (64u << 10) || *n > (1u << 30)) {
      return Invalid("CUSCOPE_BUFFER_SIZE", v);
    }
    c.buffer_bytes = *n;
  }
  if (get("CUSCOPE_MAX_BUFFERS", &v)) {
    auto n = ParseInt("CUSCOPE_MAX_BUFFERS", v, 2, 65536);
    if (!n.ok()) return n.status();
    c.max_buffers = *n;
  }
  if (get("CUSCOPE_FLUSH_PERIOD_MS", &v)) {
    auto n = ParseInt("CUSCOPE_FLUSH_PERIOD_MS", v, 0, 3600000);
    if (!n.ok()) return n.status();
    c.flush_period_ms = *n;
  }
  if (get("CUSCOPE_VERBOSE", &v)) {
    auto b = ParseBool("CUSCOPE_VERBOSE", v);
    if (!b.ok()) return b.status();
    c.verbose = *b;
  }
  if (get("CUSCOPE_METRICS", &v)) {
    for (absl::string_view part : absl::StrSplit(v, ',')) {
      part = absl::StripAsciiWhitespace(part);
      if (part.empty()) continue;
      if (!IsMetricToken(part)) return Invalid("CUSCOPE_METRICS", v);
      c.metrics.emplace_back(part);
    }
  }
  if (get("CUSCOPE_KERNELS", &v)) {
    if (absl::Status st = CheckRegex("CUSCOPE_KERNELS", v); !st.ok()) return st;
    c.kernels = std::string(v);
  }
  if (get("CUSCOPE_REGIONS", &v)) {
    if (absl::Status st = CheckRegex("CUSCOPE_REGIONS", v); !st.ok()) return st;
    c.regions = std::string(v);
  }
  if (get("CUSCOPE_LAUNCH_SKIP", &v)) {
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(v), &c.launch_skip)) {
      return Invalid("CUSCOPE_LAUNCH_SKIP", v);
    }
  }
  if (get("CUSCOPE_LAUNCH_COUNT", &v)) {
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(v), &c.launch_count)) {
      return Invalid("CUSCOPE_LAUNCH_COUNT", v);
    }
  }
  if (get("CUSCOPE_PER_SIGNATURE", &v)) {
    if (absl::AsciiStrToLower(absl::StripAsciiWhitespace(v)) == "all") {
      c.per_signature = 0;
    } else {
      auto n = ParseInt("CUSCOPE_PER_SIGNATURE", v, 1, 1000000);
      if (!n.ok()) {
        return Invalid("CUSCOPE_PER_SIGNATURE", v);
      }
      c.per_signature = *n;
    }
  }
  if (get("CUSCOPE_REPLAY", &v)) {
    std::string s = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v));
    if (s == "auto") c.replay = ReplayMode::kAuto;
    else if (s == "rotate") c.replay = ReplayMode::kRotate;
    else if (s == "kernel") c.replay = ReplayMode::kKernel;
    else return Invalid("CUSCOPE_REPLAY", v);
  }
  if (get("CUSCOPE_CAPTURE", &v)) {
    std::string text(absl::StripAsciiWhitespace(v));
    if (text == "all") {
      c.capture = CaptureMode::kAll;
    } else if (text == "profiler-api") {
      c.capture = CaptureMode::kProfilerApi;
    } else if (absl::StartsWith(text, "range:") && text.size() > 6) {
      std::string rest = text.substr(6);
      size_t colon = rest.rfind(':');
      uint64_t n = 0;
      if (colon != std::string::npos && absl::SimpleAtoi(rest.substr(colon + 1), &n)) {
        rest.resize(colon);
      }
      if (rest.empty() || !CheckRegex("CUSCOPE_CAPTURE", rest).ok()) {
        return Invalid("CUSCOPE_CAPTURE", v);
      }
      c.capture = CaptureMode::kRange;
      c.capture_range = rest;
      c.capture_count = n;
    } else {
      return Invalid("CUSCOPE_CAPTURE", v);
    }
  }
  if (get("CUSCOPE_REGION_COUNTERS", &v)) {
    auto b = ParseBool("CUSCOPE_REGION_COUNTERS", v);
    if (!b.ok()) return b.status();
    c.region_counters = *b;
  }
  if (get("CUSCOPE_WINDOW", &v)) {
    auto n = ParseInt("CUSCOPE_WINDOW", v, 1, 4096);
    if (!n.ok()) return n.status();
    c.window = *n;
  }
  return c;
}

}  // namespace

absl::StatusOr<Config> ConfigFromEnv(const GetEnv& getenv) {
  absl::StatusOr<Config> c = ParseEach(getenv);
  if (!c.ok()) return c;
  if (c->region_counters && (c->regions.empty() || c->metrics.empty())) {
    return absl::InvalidArgumentError(
        "CUSCOPE_REGION_COUNTERS=1 needs CUSCOPE_REGIONS (a regular expression naming the "
        "regions to measure) and CUSCOPE_METRICS (what to measure)");
  }
  return c;
}

std::string ResolveOutputPath(const std::string& output, int64_t pid, int64_t owner_pid) {
  std::string path = output.empty() ? std::string("cuscope-%p.sqlite") : output;
  bool has_pid = path.find("%p") != std::string::npos;
  std::string pid_text = absl::StrCat(pid);
  for (size_t at = path.find("%p"); at != std::string::npos; at = path.find("%p", at)) {
    path.replace(at, 2, pid_text);
    at += pid_text.size();
  }
  if (!has_pid && owner_pid > 0 && owner_pid != pid) {
    // A child of the profiled program: never overwrite the owner's file.
    size_t slash = path.rfind('/');
    size_t dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
      path += absl::StrCat(".", pid);
    } else {
      path.insert(dot, absl::StrCat(".", pid));
    }
  }
  return path;
}

}  // namespace cuscope::config
