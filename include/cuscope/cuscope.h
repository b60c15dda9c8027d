// cuscope's C++ API: start, stop and flush a profiling session from code.
// Standard types only. Linking cuscope and injecting it into the same process gives
// one profiler: these calls act on the injected session when there is one.
#ifndef CUSCOPE_CUSCOPE_H_
#define CUSCOPE_CUSCOPE_H_

#include <map>
#include <string>

#include "cuscope/cuscope_c.h"
#include "cuscope/scope.h"

namespace cuscope {

// Settings, by environment variable name ("CUSCOPE_OUTPUT" -> "run.sqlite"). Those
// not given come from the environment, then from the defaults.
struct Options {
  std::map<std::string, std::string> settings;
  Options& Set(const std::string& name, const std::string& value) {
    settings[name] = value;
    return *this;
  }
};

class Session {
 public:
  // Returns false and sets *error (when given) if the session cannot start.
  static bool Start(const Options& options = {}, std::string* error = nullptr) {
    std::string text;
    for (const auto& [k, v] : options.settings) text += k + "=" + v + "\n";
    int rc = cuscope_start(text.c_str());
    if (rc != CUSCOPE_OK && error != nullptr) *error = cuscope_last_error();
    return rc == CUSCOPE_OK;
  }
  static bool Stop() { return cuscope_stop() == CUSCOPE_OK; }
  static bool Flush() { return cuscope_flush() == CUSCOPE_OK; }
  static bool Active() { return cuscope_is_active() != 0; }
  static std::string OutputPath() { return cuscope_output_path(); }
};

}  // namespace cuscope

#endif  // CUSCOPE_CUSCOPE_H_
