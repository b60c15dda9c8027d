// The text report of any profile that loads.
#include <sstream>

#include "lib/report/text.h"
#include "tests/fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<cuscope::model::Profile> profile = cuscope::fuzz::LoadBytes(data, size);
  if (!profile) return 0;
  std::ostringstream out;
  cuscope::report::WriteText(cuscope::report::BuildReport(*profile), cuscope::fuzz::AllRows(), out);
  cuscope::fuzz::CheckText(out.str());
  return 0;
}
