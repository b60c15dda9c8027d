#include "lib/cli/run_flags.h"

#include "lib/config/from_env.h"

namespace cuscope::cli {
namespace {

// The flag of setting `s`: a switch for a yes/no setting; -o for output, as in
// report, diff and export (and nsys).
Flag<RunFlags> SettingFlag(const config::Setting& s) {
  const char* alias = std::string(s.flag) == "output" ? "o" : nullptr;
  return {{s.flag, alias, s.value.boolean ? nullptr : "VALUE", s.help},
          [&s](absl::string_view text, RunFlags* flags) {
            if (absl::Status st = config::ValidateSetting(s.env, text); !st.ok()) return st;
            for (GivenSetting& g : flags->given) {
              if (g.setting == &s) {
                g.value = std::string(text);
                return absl::OkStatus();
              }
            }
            flags->given.push_back({&s, std::string(text)});
            return absl::OkStatus();
          }};
}

}  // namespace

const FlagTable<RunFlags>& RunFlagTable() {
  static const FlagTable<RunFlags>* flags = [] {
    auto* out = new FlagTable<RunFlags>;
    for (const config::Setting& s : config::Settings()) out->push_back(SettingFlag(s));
    return out;
  }();
  return *flags;
}

}  // namespace cuscope::cli
