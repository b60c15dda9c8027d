// What `cuscope diff` shares with `cuscope report BASE NEW --html FILE`: comparing two
// loaded profiles and writing the comparison's HTML page.
#ifndef CUSCOPE_LIB_CLI_DIFF_H_
#define CUSCOPE_LIB_CLI_DIFF_H_

#include <optional>
#include <string>

#include "lib/analysis/compare.h"
#include "lib/model/profile.h"

namespace cuscope::cli {

// analysis::Compare, findings not stored in a profile computed with the environment's
// thresholds; nullopt (after printing why under `command`) when they are not valid.
std::optional<analysis::Comparison> CompareProfiles(const char* command, const model::Profile& base,
                                                    const model::Profile& next);

// Writes the HTML page of `c` to `path` and says where on stderr; false after printing
// the error under `command`.
bool WriteDiffPage(const char* command, const analysis::Comparison& c,
                   const std::string& base_label, const std::string& next_label,
                   const std::string& path);

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_DIFF_H_
