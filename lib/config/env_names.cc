#include "lib/config/env_names.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace cuscope::config {
namespace {

constexpr absl::string_view kPrefix = "CUSCOPE_";

}  // namespace

const std::vector<OtherVariable>& OtherVariables() {
  static const std::vector<OtherVariable>* other = new std::vector<OtherVariable>{
      {"CUSCOPE_LIBRARY", "the path of libcuscope.so, for the command and the Python package"},
      {"CUSCOPE_OWNER_PID",
       "the profiled program's pid, set for its child processes (docs/configuration.md)"},
      {"CUSCOPE_PYTHON_HOOK",
       "the folder of the PyTorch hook (sitecustomize.py) that `cuscope run --pytorch` puts on "
       "PYTHONPATH, where it is not beside the command"},
      {"CUSCOPE_RUN_LOG", "set by `cuscope run`: where each profiled process says what it left"},
      {"CUSCOPE_COMMAND",
       "set by `cuscope run`: the command that ends each profiled process's run in a process "
       "of its own (findings, report: lib/inject/end_process.h)"},
      {"CUSCOPE_INTERNAL_", "switches of the collector for its tests (lib/collect/options.h)"},
      {"CUSCOPE_TEST_", "the test suites' (data folder, a library required)"},
      {"CUSCOPE_UPDATE_DOCS", "config_test rewrites docs/configuration.md"},
      {"CUSCOPE_BUILD_DIR", "the GPU tests' build folder"},
      {"CUSCOPE_SOURCE_DIR", "the GPU tests' source folder"},
      {"CUSCOPE_ADVISOR_OUT", "where the GPU advisor tests leave their profiles"},
  };
  return *other;
}

bool IsKnownVariable(absl::string_view name) {
  if (FindSetting(name) != nullptr) return true;
  return std::any_of(OtherVariables().begin(), OtherVariables().end(), [&](const OtherVariable& v) {
    absl::string_view known = v.name;
    return absl::EndsWith(known, "_") ? absl::StartsWith(name, known) : name == known;
  });
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  // One row of the dynamic programming table at a time.
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

const Setting& NearestSetting(absl::string_view name) {
  absl::ConsumePrefix(&name, kPrefix);
  const Setting* best = &Settings().front();
  size_t best_distance = SIZE_MAX;
  for (const Setting& s : Settings()) {
    absl::string_view env = s.env;
    absl::ConsumePrefix(&env, kPrefix);
    const size_t d = std::min(EditDistance(name, env), EditDistance(name, s.flag));
    if (d < best_distance) {
      best = &s;
      best_distance = d;
    }
  }
  return *best;
}

std::vector<std::string> UnknownVariableWarnings(const char* const* env) {
  std::vector<std::string> lines;
  for (const char* const* entry = env; entry != nullptr && *entry != nullptr; ++entry) {
    const char* eq = std::strchr(*entry, '=');
    absl::string_view name(*entry,
                           eq != nullptr ? static_cast<size_t>(eq - *entry) : std::strlen(*entry));
    if (!absl::StartsWith(name, kPrefix) || IsKnownVariable(name)) continue;
    lines.push_back(absl::StrCat(name, " is not a setting (did you mean ", NearestSetting(name).env,
                                 "?); ignored"));
  }
  return lines;
}

}  // namespace cuscope::config
