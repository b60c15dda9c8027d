// The flags of the `cuscope` command (lib/cli/typed_flags.h, common_flags.h,
// run_flags.h): typed flags bound to an options struct, switches that never take the
// next word, one error line naming the flag and what it accepts, and the one boolean
// parser shared with the settings.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "lib/cli/common_flags.h"
#include "lib/cli/run_flags.h"
#include "lib/cli/typed_flags.h"
#include "lib/config/setting.h"
#include "lib/config/values.h"

namespace cuscope::cli {
namespace {

enum class Color { kRed, kGreen, kBlue };

struct Options {
  bool on = false;
  int count = 5;
  size_t bytes = 7;
  double ratio = 0.5;
  std::string name = "plain";
  Color color = Color::kGreen;
  Format format = Format::kText;
  int width = -1;
};

const FlagTable<Options>& Table() {
  static const auto* table = new FlagTable<Options>{
      Switch("on", &Options::on, "turns it on"),
      Integer("count", &Options::count, 0, 10, "N", "how many", "0 = none"),
      Integer("bytes", &Options::bytes, size_t{1}, SIZE_MAX, "N", "how much"),
      Number("ratio", &Options::ratio, 0.0, 1.0, "X", "how far"),
      Text("name", &Options::name, "NAME", "what it is called").Alias("n"),
      Choice("color", &Options::color,
             {{"red", Color::kRed}, {"green", Color::kGreen}, {"blue", Color::kBlue}}, "COLOR",
             "the color"),
      FormatFlag(&Options::format, {Format::kText, Format::kCsv, Format::kJson}),
      WidthFlag(&Options::width),
  };
  return *table;
}

// The options the words give, or the error line.
struct Parsed {
  Options options;
  Words words;
  std::string error;
};

Parsed Parse(const std::vector<std::string>& words, ParseMode mode = ParseMode::kWords) {
  Parsed p;
  absl::StatusOr<Words> w = ParseFlags(Table(), words, &p.options, mode);
  if (w.ok()) {
    p.words = *std::move(w);
  } else {
    p.error = std::string(w.status().message());
  }
  return p;
}

TEST(Flags, EachKindFillsItsMember) {
  Parsed p = Parse({"--on", "--count=3", "--bytes", "4096", "-ratio=0.25", "-n", "x", "--color",
                    "BLUE", "--format=json", "--width=0", "file"});
  ASSERT_EQ(p.error, "");
  EXPECT_TRUE(p.options.on);
  EXPECT_EQ(p.options.count, 3);
  EXPECT_EQ(p.options.bytes, 4096u);
  EXPECT_EQ(p.options.ratio, 0.25);
  EXPECT_EQ(p.options.name, "x");
  EXPECT_EQ(p.options.color, Color::kBlue);
  EXPECT_EQ(p.options.format, Format::kJson);
  EXPECT_EQ(p.options.width, 0);
  EXPECT_EQ(p.words.positional, std::vector<std::string>{"file"});
  // Nothing given: the struct's defaults.
  p = Parse({});
  EXPECT_FALSE(p.options.on);
  EXPECT_EQ(p.options.count, 5);
  EXPECT_EQ(p.options.color, Color::kGreen);
  EXPECT_EQ(p.options.width, -1);
}

TEST(Flags, TheLastValueWinsAndAnEmptyValueIsTheDefault) {
  Parsed p = Parse({"--count=3", "--count=4", "--name=a", "--name="});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.count, 4);
  EXPECT_EQ(p.options.name, "plain");
  p = Parse({"--count=3", "--count", "", "--on", "--on="});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.count, 5);
  EXPECT_FALSE(p.options.on);
}

TEST(Flags, ASwitchNeverTakesTheNextWord) {
  Parsed p = Parse({"--on", "false"});
  ASSERT_EQ(p.error, "");
  EXPECT_TRUE(p.options.on);
  EXPECT_EQ(p.words.positional, std::vector<std::string>{"false"});
  // As `cuscope run --verbose python3 -c pass` reads its words.
  p = Parse({"--on", "python3", "-c", "pass"}, ParseMode::kProgramFollows);
  ASSERT_EQ(p.error, "");
  EXPECT_TRUE(p.options.on);
  EXPECT_EQ(p.words.program, (std::vector<std::string>{"python3", "-c", "pass"}));
  // A flag with a value does take it.
  p = Parse({"--name", "python3", "prog"}, ParseMode::kProgramFollows);
  EXPECT_EQ(p.options.name, "python3");
  EXPECT_EQ(p.words.program, std::vector<std::string>{"prog"}) << p.error;
}

TEST(Flags, SwitchSpellings) {
  for (const char* on : {"--on", "-on", "--on=true", "--on=1", "--on=YES", "--on=on", "--on=t"}) {
    Parsed p = Parse({on});
    EXPECT_EQ(p.error, "") << on;
    EXPECT_TRUE(p.options.on) << on;
  }
  for (const char* off : {"--no-on", "--noon", "--no_on", "--on=false", "--on=0", "--on=off"}) {
    Parsed p = Parse({"--on", off});
    EXPECT_EQ(p.error, "") << off;
    EXPECT_FALSE(p.options.on) << off;
  }
  Parsed p = Parse({"--on=maybe"});
  EXPECT_EQ(p.error.rfind("--on: \"maybe\" is not valid; accepted: 1, 0, true", 0), 0u) << p.error;
  // Only a switch has a --no- form.
  EXPECT_EQ(Parse({"--no-count"}).error, "unknown flag --no-count");
}

TEST(Flags, ABadValueIsOneLineNamingTheFlagAndWhatIsAccepted) {
  struct Case {
    std::vector<std::string> words;
    std::string error;
  } cases[] = {
      {{"--count=11"},
       "--count: \"11\" is not valid; accepted: an integer from 0 to 10 (0 = none)"},
      {{"-count", "x"}, "-count: \"x\" is not valid; accepted: an integer from 0 to 10 (0 = none)"},
      {{"--bytes=0"}, "--bytes: \"0\" is not valid; accepted: an integer >= 1"},
      {{"--ratio=nan"}, "--ratio: \"nan\" is not valid; accepted: a number from 0 to 1"},
      {{"--ratio=1.5"}, "--ratio: \"1.5\" is not valid; accepted: a number from 0 to 1"},
      {{"--color=pink"}, "--color: \"pink\" is not valid; accepted: red, green, blue"},
      {{"--format=xml"}, "--format: \"xml\" is not valid; accepted: text, csv, json"},
      {{"--width=59"},
       "--width: \"59\" is not valid; accepted: 0 (no limit) or a number of columns from 60 to "
       "100000"},
      {{"--count"}, "--count needs a value: --count=N"},
      {{"--colour=red"}, "unknown flag --colour=red; did you mean --color?"},
      {{"-x"}, "unknown flag -x"},
  };
  for (const Case& c : cases) EXPECT_EQ(Parse(c.words).error, c.error) << c.words[0];
}

TEST(Flags, HelpListsTheChoicesAndTheDefault) {
  const std::string help = CommandHelp("cuscope test [FLAGS]", "Tests.", Table());
  EXPECT_NE(help.find("--color=COLOR       the color: red, green or blue (default green)"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("the format of the output: text, csv or json (default text)"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("  -n, --name=NAME"), std::string::npos) << help;
  EXPECT_NE(help.find("  --on                turns it on"), std::string::npos) << help;
  EXPECT_NE(help.find("--width=N"), std::string::npos) << help;
}

// The format flag is one declaration: each command lists only the formats it writes.
TEST(Flags, FormatFlagTakesTheFormatsItIsGiven) {
  struct TwoFormats {
    Format format = Format::kText;
  };
  const FlagTable<TwoFormats> table = {
      FormatFlag(&TwoFormats::format, {Format::kText, Format::kJson})};
  TwoFormats o;
  EXPECT_TRUE(ParseFlags(table, {"--format=JSON"}, &o).ok());
  EXPECT_EQ(o.format, Format::kJson);
  absl::StatusOr<Words> w = ParseFlags(table, {"--format=csv"}, &o);
  EXPECT_EQ(w.status().message(), "--format: \"csv\" is not valid; accepted: text, json");
  EXPECT_NE(table[0].spec.help.find("text or json (default text)"), std::string::npos);
}

// config::ParseBool is the booleans' one parser: every word of kBoolWords, in any case
// and with blanks around, alternately true and false; nothing else.
TEST(Flags, OneBooleanParserForSettingsAndSwitches) {
  std::vector<std::string> words = absl::StrSplit(config::kBoolWords, ", ");
  ASSERT_EQ(words.size(), 12u);
  const config::Setting* verbose = config::FindSetting("CUSCOPE_VERBOSE");
  ASSERT_NE(verbose, nullptr);
  for (size_t i = 0; i < words.size(); ++i) {
    const bool expected = i % 2 == 0;
    std::string upper = words[i];
    for (char& c : upper) c = static_cast<char>(toupper(static_cast<unsigned char>(c)));
    for (const std::string& w : {words[i], upper, " " + words[i] + "\t"}) {
      bool b = !expected;
      EXPECT_TRUE(config::ParseBool(w, &b)) << w;
      EXPECT_EQ(b, expected) << w;
      // The setting and the switch read it the same way.
      config::Config c;
      c.verbose = !expected;
      EXPECT_TRUE(verbose->Apply(w, &c).ok()) << w;
      EXPECT_EQ(c.verbose, expected) << w;
      Parsed p = Parse({"--on=" + w});
      EXPECT_EQ(p.error, "") << w;
      EXPECT_EQ(p.options.on, expected) << w;
    }
  }
  for (const char* bad : {"", " ", "2", "-1", "maybe", "tru", "yess", "o", "nope", "true1"}) {
    bool b = true;
    EXPECT_FALSE(config::ParseBool(bad, &b)) << bad;
    EXPECT_TRUE(b) << "left as it was: " << bad;
    config::Config c;
    EXPECT_FALSE(verbose->Apply(bad, &c).ok()) << bad;
  }
  config::Config c;
  EXPECT_NE(verbose->Apply("maybe", &c).message().find(config::kBoolWords), std::string::npos);
}

// `cuscope run`'s flags are the settings: a yes/no setting is a switch, every other
// takes a value; a value is checked against its setting.
TEST(Flags, RunFlagsAreTheSettings) {
  const FlagTable<RunFlags>& table = RunFlagTable();
  ASSERT_EQ(table.size(), config::Settings().size());
  int switches = 0;
  for (size_t i = 0; i < table.size(); ++i) {
    const config::Setting& s = config::Settings()[i];
    EXPECT_STREQ(table[i].spec.name, s.flag);
    EXPECT_EQ(table[i].spec.value_name == nullptr, s.value.boolean) << s.flag;
    EXPECT_EQ(s.value.boolean, s.value.accepts == config::kBoolWords) << s.flag;
    switches += s.value.boolean;
  }
  EXPECT_GE(switches, 4);
  RunFlags flags;
  absl::StatusOr<Words> w = ParseFlags(table,
                                       {"--verbose", "--top", "3", "-o", "x.sqlite", "--top=4",
                                        "--no-advise", "python3", "-c", "pass"},
                                       &flags, ParseMode::kProgramFollows);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->program, (std::vector<std::string>{"python3", "-c", "pass"}));
  std::vector<std::string> given;
  for (const GivenSetting& g : flags.given)
    given.push_back(std::string(g.setting->env) + "=" + g.value);
  EXPECT_EQ(given, (std::vector<std::string>{"CUSCOPE_VERBOSE=true", "CUSCOPE_REPORT_TOP=4",
                                             "CUSCOPE_OUTPUT=x.sqlite", "CUSCOPE_ADVISE=false"}));
  w = ParseFlags(table, {"--max-buffers=1"}, &flags);
  EXPECT_EQ(w.status().message(),
            "--max-buffers: CUSCOPE_MAX_BUFFERS=\"1\" is not valid; accepted: an integer from 2 "
            "to 65536");
}

}  // namespace
}  // namespace cuscope::cli
