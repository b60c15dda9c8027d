// The table of settings: one row per setting holds its environment variable, its
// `cuscope run` flag, what it does, what it accepts (with its range), how its text
// sets its member of Config and how that member prints (so its default is
// Config{}'s, said once). The parser, the error line, `cuscope run --help` and
// docs/configuration.md's table all read these rows.
#ifndef CUSCOPE_LIB_CONFIG_SETTING_H_
#define CUSCOPE_LIB_CONFIG_SETTING_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "lib/config/config.h"

namespace cuscope::config {

// How one setting's text becomes its member of Config, and back.
struct Value {
  // What it accepts, e.g. "an integer from 2 to 65536" (built from the range).
  std::string accepts;
  // Sets the member from `text`; false if `text` is not accepted, with `why` set
  // when there is more to say than `accepts` (a regular expression's error).
  std::function<bool(absl::string_view text, Config* config, std::string* why)> parse;
  // The member's value as text that `parse` accepts ("" for an empty list or regex).
  std::function<std::string(const Config& config)> format;
  // A yes/no value (values::Bool): `cuscope run --NAME` is then a switch, which never
  // takes the next word as its value.
  bool boolean = false;
};

struct Setting {
  const char* env;   // CUSCOPE_BUFFER_SIZE
  const char* flag;  // buffer_size: `cuscope run --buffer_size=...`
  const char* help;  // what it does
  Value value;

  // Config{}'s value as text, e.g. "8M".
  std::string default_text() const;
  // Sets this setting's member of `config` from `text`. An invalid value gives
  // InvalidArgument with one line naming the variable, the value and what is accepted.
  absl::Status Apply(absl::string_view text, Config* config) const;
};

// `text` in double quotes for an error line: C escapes (a newline is \n), and a long
// text by its first 120 bytes: "start..." (N bytes).
std::string Quoted(absl::string_view text);

// Every setting, in the order of --help and the docs.
const std::vector<Setting>& Settings();

// The row whose variable is `env`; null if none.
const Setting* FindSetting(absl::string_view env);

// Every setting's value in `config` as (flag name, text its parser accepts), in the
// table's order: what a run was taken with (model::RunNotes::settings).
std::vector<std::pair<std::string, std::string>> SettingValues(const Config& config);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_SETTING_H_
