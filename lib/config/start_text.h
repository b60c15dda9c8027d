// The settings text that a program hands to cuscope_start (include/cuscope/cuscope_c.h):
// NAME=VALUE pairs, with the names of the environment variables, separated by ';' or
// newlines. A separator counts only where what follows it (after blanks) is the end
// of the text, another separator, or a name CUSCOPE_... and '='; anywhere else it is
// part of the value, so a regular expression or a path can hold ';'
// ("CUSCOPE_KERNELS=a;b;CUSCOPE_API=all" sets CUSCOPE_KERNELS to "a;b").
#ifndef CUSCOPE_LIB_CONFIG_START_TEXT_H_
#define CUSCOPE_LIB_CONFIG_START_TEXT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cuscope::config {

using NamedValues = std::vector<std::pair<std::string, std::string>>;

// The pairs of `text` in order, names and values without surrounding blanks. Each
// value is checked (ValidateSetting; CUSCOPE_OWNER_PID passes as it is): a part
// that is not NAME=VALUE or a value not accepted gives InvalidArgument with one line.
absl::StatusOr<NamedValues> ParseStartText(absl::string_view text);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_START_TEXT_H_
