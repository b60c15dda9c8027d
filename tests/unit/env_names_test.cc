// The CUSCOPE_* variables that are not settings (lib/config/env_names.h): cuscope's
// own pass, any other gets one line naming the nearest setting.
#include "lib/config/env_names.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/config/from_env.h"
#include "lib/config/setting.h"

namespace cuscope::config {
namespace {

TEST(EnvNames, EditDistance) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("TOP", "top"), 0u);  // ASCII case ignored
  EXPECT_EQ(EditDistance("BUFER_SIZE", "BUFFER_SIZE"), 1u);
}

TEST(EnvNames, NearestSettingByVariableOrFlag) {
  EXPECT_STREQ(NearestSetting("CUSCOPE_TOP").env, "CUSCOPE_REPORT_TOP");  // its flag: top
  EXPECT_STREQ(NearestSetting("CUSCOPE_BUFER_SIZE").env, "CUSCOPE_BUFFER_SIZE");
  EXPECT_STREQ(NearestSetting("CUSCOPE_METRIC").env, "CUSCOPE_METRICS");
  EXPECT_STREQ(NearestSetting("CUSCOPE_GPU_METRIC").env, "CUSCOPE_GPU_METRICS");
  EXPECT_STREQ(NearestSetting("CUSCOPE_ADVISE_MIN_GAIN").env, "CUSCOPE_ADVISE_MIN_GAIN_PCT");
}

TEST(EnvNames, OneLinePerUnknownVariable) {
  const char* env[] = {"PATH=/bin",
                       "CUSCOPE_TOP=abc",
                       "CUSCOPE_REPORT_TOP=5",
                       "CUSCOPE_LIBRARY=/x/libcuscope.so",
                       "CUSCOPE_OWNER_PID=12",
                       "CUSCOPE_RUN_LOG=/tmp/log",
                       "CUSCOPE_INTERNAL_SETCONFIG=1",
                       "CUSCOPE_METRIC=roofline",
                       "cuscope_top=1",
                       "CUSCOPE_NOVALUE",
                       nullptr};
  EXPECT_EQ(UnknownVariableWarnings(env),
            (std::vector<std::string>{
                "CUSCOPE_TOP is not a setting (did you mean CUSCOPE_REPORT_TOP?); ignored",
                "CUSCOPE_METRIC is not a setting (did you mean CUSCOPE_METRICS?); ignored",
                "CUSCOPE_NOVALUE is not a setting (did you mean CUSCOPE_ENABLE?); ignored"}));
  const char* none[] = {nullptr};
  EXPECT_TRUE(UnknownVariableWarnings(none).empty());
  EXPECT_TRUE(UnknownVariableWarnings(nullptr).empty());
}

TEST(EnvNames, EverySettingIsKnownAndNoOtherVariableIsASetting) {
  for (const Setting& s : Settings()) EXPECT_TRUE(IsKnownVariable(s.env)) << s.env;
  for (const OtherVariable& v : OtherVariables()) {
    EXPECT_EQ(FindSetting(v.name), nullptr) << v.name;
    EXPECT_EQ(std::string(v.name).rfind("CUSCOPE_", 0), 0u) << v.name;
  }
  EXPECT_TRUE(IsKnownVariable("CUSCOPE_INTERNAL_ANYTHING"));  // a prefix
  EXPECT_FALSE(IsKnownVariable("CUSCOPE_INTERNAL"));
  EXPECT_FALSE(IsKnownVariable("CUSCOPE_LIBRARY_PATH"));
}

// Each CUSCOPE_* variable that cuscope's code reads or sets is in the one list (or is
// a setting), so that it never warns of its own.
TEST(EnvNames, EveryVariableTheCodeUsesIsKnown) {
  const std::regex use(
      R"re((getenv|setenv|unsetenv|environ\.get|environ\[)\(?\s*"(CUSCOPE_[A-Z0-9_]+)")re");
  std::set<std::string> found;
  for (const char* dir : {"lib", "python/cuscope", "python/tests", "tests", "scripts"}) {
    const std::filesystem::path root = std::filesystem::path(CUSCOPE_SOURCE_DIR) / dir;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cc" && ext != ".h" && ext != ".py" && ext != ".sh") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string s = text.str();
      for (std::sregex_iterator it(s.begin(), s.end(), use), end; it != end; ++it) {
        found.insert((*it)[2].str());
      }
    }
  }
  EXPECT_TRUE(found.count("CUSCOPE_OWNER_PID")) << "the scan finds the variables";
  for (const std::string& name : found) EXPECT_TRUE(IsKnownVariable(name)) << name;
}

TEST(EnvNames, AnUnknownStartSettingNamesTheNearest) {
  absl::Status st = ValidateSetting("CUSCOPE_TOP", "5");
  EXPECT_EQ(st.message(), "unknown setting \"CUSCOPE_TOP\" (did you mean CUSCOPE_REPORT_TOP?)");
}

}  // namespace
}  // namespace cuscope::config
