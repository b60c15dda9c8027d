// Shared by the libFuzzer targets (tests/fuzz/*_fuzz.cc): the input bytes as a
// profile file, loaded as `cuscope report` loads one, and the checks every
// writer's output must pass for any input that loads.
#ifndef CUSCOPE_TESTS_FUZZ_FUZZ_PROFILE_H_
#define CUSCOPE_TESTS_FUZZ_FUZZ_PROFILE_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "lib/model/profile.h"
#include "lib/model/utf8.h"
#include "lib/report/report_data.h"
#include "lib/report/report_options.h"
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "rapidjson/encodings.h"

namespace cuscope::fuzz {

// Writes the input to a file of this process (a profile is a file) and loads it.
inline std::optional<model::Profile> LoadBytes(const uint8_t* data, size_t size) {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/cuscope-fuzz-" +
           std::to_string(getpid()) + ".sqlite";
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::remove((path + "-journal").c_str());
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    // Errors are one line.
    if (profile.status().message().find('\n') != absl::string_view::npos) std::abort();
    return std::nullopt;
  }
  return *std::move(profile);
}

inline void Fail(const char* what, const std::string& output) {
  std::fprintf(stderr, "fuzz: %s\n--- output (first 2000 bytes) ---\n%.2000s\n", what,
               output.c_str());
  std::abort();
}

// JSON output must parse, as UTF-8.
inline void CheckJson(const std::string& s) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(s.c_str(), s.size());
  if (doc.HasParseError()) Fail("the JSON output does not parse", s);
}

// Text and CSV output: valid UTF-8; CSV: quotes balanced on every record.
inline void CheckText(const std::string& s) {
  if (!model::IsValidUtf8(s)) Fail("the output is not valid UTF-8", s);
}
inline void CheckCsv(const std::string& s) {
  CheckText(s);
  size_t quotes = 0;
  for (char c : s) quotes += c == '"';
  if (quotes % 2 != 0) Fail("the CSV output has an unbalanced quote", s);
}

inline report::ReportOptions AllRows() {
  report::ReportOptions options;
  options.top = 0;
  return options;
}

}  // namespace cuscope::fuzz

#endif  // CUSCOPE_TESTS_FUZZ_FUZZ_PROFILE_H_
