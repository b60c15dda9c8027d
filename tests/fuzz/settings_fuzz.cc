// The settings parser: any bytes, read as `cuscope run` flags, as CUSCOPE_* variables
// and as cuscope_start's text, give a Config or a one-line error of bounded length,
// never a crash, a hang or a sanitizer report; and every value accepted prints back
// as text that parses to the same value.
//
// The input is cut at NUL bytes into words. Flags: the words as `cuscope run`'s words
// before "--". Variables: each word's first byte picks a setting, the rest is its
// value. Start text: the whole input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/cli/run_flags.h"
#include "lib/config/config.h"
#include "lib/config/from_env.h"
#include "lib/config/setting.h"
#include "lib/config/start_text.h"

namespace {

using cuscope::config::Config;
using cuscope::config::Setting;
using cuscope::config::Settings;

// An error is one line, and short whatever the value's length.
void CheckError(const absl::Status& st) {
  if (st.ok()) return;
  if (st.message().find('\n') != absl::string_view::npos || st.message().size() > 2000) abort();
}

// Every setting of `c` prints as text that parses back to the same text.
void CheckRoundTrip(const Config& c) {
  for (const Setting& s : Settings()) {
    std::string text = s.value.format(c);
    Config back;
    if (text.empty()) continue;  // empty is "not given": the default
    absl::Status st = s.Apply(text, &back);
    if (st.ok() && s.value.format(back) == text) continue;
    fprintf(stderr, "%s prints as %s, which reads back as %s (%s)\n", s.env,
            cuscope::config::Quoted(text).c_str(),
            cuscope::config::Quoted(s.value.format(back)).c_str(), st.ToString().c_str());
    abort();
  }
}

void ReadEnv(const std::map<std::string, std::string>& env) {
  absl::StatusOr<Config> c = cuscope::config::ConfigFromEnv([&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? static_cast<const char*>(nullptr) : it->second.c_str();
  });
  CheckError(c.status());
  if (c.ok()) CheckRoundTrip(*c);
}

// As `cuscope run` reads its words (lib/cli/run_flags.h): the flags, each value alone,
// then all of them as the environment the program gets.
void ReadFlags(const std::vector<std::string>& words) {
  cuscope::cli::RunFlags flags;
  absl::StatusOr<cuscope::cli::Words> read =
      cuscope::cli::ParseFlags(cuscope::cli::RunFlagTable(), words, &flags);
  CheckError(read.status());
  if (!read.ok()) return;
  std::map<std::string, std::string> env;
  for (const cuscope::cli::GivenSetting& g : flags.given) env[g.setting->env] = g.value;
  ReadEnv(env);
}

void ReadStartText(const std::string& text) {
  absl::StatusOr<cuscope::config::NamedValues> given = cuscope::config::ParseStartText(text);
  CheckError(given.status());
  if (!given.ok()) return;
  std::map<std::string, std::string> env(given->begin(), given->end());
  ReadEnv(env);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> words;
  for (size_t start = 0; start <= input.size();) {
    size_t end = input.find('\0', start);
    if (end == std::string::npos) end = input.size();
    words.push_back(input.substr(start, end - start));
    start = end + 1;
  }
  ReadFlags(words);
  std::map<std::string, std::string> env;
  for (const std::string& w : words) {
    if (w.empty()) continue;
    const Setting& s = Settings()[static_cast<unsigned char>(w[0]) % Settings().size()];
    env[s.env] = w.substr(1);
  }
  ReadEnv(env);
  ReadStartText(input);
  return 0;
}
