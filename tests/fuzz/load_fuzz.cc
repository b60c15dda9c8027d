// The profile loader: any bytes give a profile or a one-line error, never a crash,
// a hang or a sanitizer report; what loads builds a report (every analysis).
#include "lib/report/report_data.h"
#include "tests/fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<cuscope::model::Profile> profile = cuscope::fuzz::LoadBytes(data, size);
  if (profile) cuscope::report::BuildReport(*profile);
  return 0;
}
