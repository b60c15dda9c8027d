#include "lib/collect/cupti_result.h"

#include <cupti.h>

#include "absl/strings/str_cat.h"

namespace cuscope::collect {

std::string CuptiResultString(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : absl::StrCat("CUPTI error ", static_cast<int>(r));
}

}  // namespace cuscope::collect
