#include "lib/cli/typed_flags.h"

#include "lib/config/setting.h"

namespace cuscope::cli {

absl::Status NotValid(absl::string_view text, absl::string_view accepts) {
  return absl::InvalidArgumentError(
      absl::StrCat(config::Quoted(text), " is not valid; accepted: ", accepts));
}

std::string ListedWithOr(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : i + 1 == items.size() ? " or " : ", ", items[i]);
  }
  return out;
}

}  // namespace cuscope::cli
