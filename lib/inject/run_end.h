// The end of a run, once the profile's records and run info are written: the
// profile read back, the advisor's findings computed and stored in it
// (CUSCOPE_ADVISE), and the text report printed on stderr (CUSCOPE_REPORT).
#ifndef CUSCOPE_LIB_INJECT_RUN_END_H_
#define CUSCOPE_LIB_INJECT_RUN_END_H_

#include <functional>
#include <optional>
#include <string>

#include "lib/config/config.h"
#include "lib/model/profile.h"
#include "lib/store/writer.h"

namespace cuscope::inject {

// Reads the profile at `path` back and, with config.advise, computes its findings
// and stores them through `writer` (still open); without, the profile's findings
// are an empty list. Nothing to do (nullopt) when neither the findings nor the
// report are asked for; nullopt after a `warn` line when the profile cannot be read.
// A failure to store the findings is a `warn` line too: the profile stays valid.
std::optional<model::Profile> EndProfile(const std::string& path, store::ProfileWriter& writer,
                                         const config::Config& config,
                                         const std::function<void(const std::string&)>& warn);

// The text report of `profile` on stderr, ending with its top five findings (none
// with CUSCOPE_ADVISE=0).
void PrintReport(const model::Profile& profile, const config::Config& config);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_RUN_END_H_
