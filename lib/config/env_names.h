// The CUSCOPE_* variables of an environment that are not settings (setting.h): those
// cuscope reads or sets for itself pass; any other gets one warning line naming the
// setting nearest to it, since a misspelt setting would otherwise be ignored silently.
#ifndef CUSCOPE_LIB_CONFIG_ENV_NAMES_H_
#define CUSCOPE_LIB_CONFIG_ENV_NAMES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lib/config/setting.h"

namespace cuscope::config {

// A CUSCOPE_* variable that cuscope reads or sets and that is not a setting.
struct OtherVariable {
  const char* name;  // the whole name, or a prefix when it ends in '_'
  const char* use;   // who reads or sets it, and for what
};

// Every such variable, in one list: the only CUSCOPE_* names besides the settings'
// that pass without a warning.
const std::vector<OtherVariable>& OtherVariables();

// Whether `name` is a setting's variable or one of OtherVariables().
bool IsKnownVariable(absl::string_view name);

// The number of single-character insertions, deletions and substitutions that turn
// `a` into `b` (ASCII case is ignored).
size_t EditDistance(absl::string_view a, absl::string_view b);

// The setting nearest to the variable `name`: by edit distance of what follows
// CUSCOPE_ to each setting's variable (after CUSCOPE_) or to its flag name, so that
// CUSCOPE_TOP finds CUSCOPE_REPORT_TOP (flag top). Ties go to the first in the table.
const Setting& NearestSetting(absl::string_view name);

// One line (without the "cuscope: " prefix) for each variable of `env` (entries
// NAME=VALUE, ending with a null pointer, as the process's environ) whose name starts
// with CUSCOPE_ and is not known (IsKnownVariable), in their order, e.g.
// "CUSCOPE_TOP is not a setting (did you mean CUSCOPE_REPORT_TOP?); ignored".
std::vector<std::string> UnknownVariableWarnings(const char* const* env);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_ENV_NAMES_H_
