#include "lib/config/config.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "lib/config/docs_table.h"
#include "lib/config/from_env.h"
#include "lib/config/setting.h"
#include "lib/config/start_text.h"
#include "lib/config/values.h"

namespace cuscope::config {
namespace {

absl::StatusOr<Config> FromMap(const std::map<std::string, std::string>& env) {
  return ConfigFromEnv([&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(Config, DefaultsWhenNothingIsSet) {
  auto c = FromMap({});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->enabled);
  EXPECT_EQ(c->api, ApiMode::kDefault);
  EXPECT_EQ(c->report, ReportMode::kText);
  EXPECT_EQ(c->report_top, 10);
  EXPECT_EQ(c->buffer_bytes, 8u << 20);
  EXPECT_EQ(c->max_buffers, 64);
  EXPECT_TRUE(c->trace.kernel && c->trace.memcpy && c->trace.nvtx && c->trace.api);
}

TEST(Config, ParsesEveryValue) {
  auto c = FromMap({{"CUSCOPE_ENABLE", "yes"},
                    {"CUSCOPE_OUTPUT", "out/%p.sqlite"},
                    {"CUSCOPE_TRACE", "kernel, memory"},
                    {"CUSCOPE_API", "ALL"},
                    {"CUSCOPE_REPORT", "none"},
                    {"CUSCOPE_REPORT_TOP", "0"},
                    {"CUSCOPE_BUFFER_SIZE", "512K"},
                    {"CUSCOPE_MAX_BUFFERS", "8"},
                    {"CUSCOPE_FLUSH_PERIOD_MS", "250"},
                    {"CUSCOPE_VERBOSE", "on"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->output, "out/%p.sqlite");
  EXPECT_TRUE(c->trace.kernel && c->trace.memcpy && c->trace.memset);
  EXPECT_FALSE(c->trace.api || c->trace.nvtx || c->trace.sync || c->trace.overhead);
  EXPECT_EQ(c->api, ApiMode::kAll);
  EXPECT_EQ(c->report, ReportMode::kNone);
  EXPECT_EQ(c->report_top, 0);
  EXPECT_EQ(c->buffer_bytes, 512u << 10);
  EXPECT_EQ(c->max_buffers, 8);
  EXPECT_EQ(c->flush_period_ms, 250);
  EXPECT_TRUE(c->verbose);
  EXPECT_FALSE(FromMap({{"CUSCOPE_ENABLE", "0"}})->enabled);
}

TEST(Config, BadValuesNameTheVariableAndWhatIsAccepted) {
  struct Case {
    const char* env;
    const char* value;
    const char* accepted;
  } cases[] = {
      {"CUSCOPE_ENABLE", "maybe", "accepted: 1, 0, true, false"},
      {"CUSCOPE_TRACE", "kernel,gpu", "accepted: all, or a comma list of kernel"},
      {"CUSCOPE_TRACE", ",", "accepted: all, or a comma list"},
      {"CUSCOPE_API", "some", "accepted: default, all or none"},
      {"CUSCOPE_REPORT", "html", "accepted: text or none"},
      {"CUSCOPE_REPORT_TOP", "-1", "accepted: an integer from 0 to 1000000"},
      {"CUSCOPE_REPORT_TOP", "ten", "accepted: an integer from 0 to 1000000"},
      {"CUSCOPE_BUFFER_SIZE", "1K", "from 64K to 1G"},
      {"CUSCOPE_BUFFER_SIZE", "2G", "from 64K to 1G"},
      {"CUSCOPE_BUFFER_SIZE", "8X", "from 64K to 1G"},
      {"CUSCOPE_MAX_BUFFERS", "1", "an integer from 2 to 65536"},
      {"CUSCOPE_FLUSH_PERIOD_MS", "1e3", "an integer from 0 to 3600000"},
      {"CUSCOPE_VERBOSE", "2", "accepted: 1, 0"},
      {"CUSCOPE_METRICS", "roofline;sol", "accepted: none, or a comma list of verdict, roofline"},
      {"CUSCOPE_KERNELS", "gemm(", "accepted: an RE2 regular expression"},
      {"CUSCOPE_REGIONS", "(?<=a)b", "accepted: an RE2 regular expression"},
      {"CUSCOPE_CAPTURE", "range:a:b", "accepted: all, profiler-api, or range:REGEX[:N]"},
      {"CUSCOPE_CAPTURE", "range:a:-1", "accepted: all, profiler-api, or range:REGEX[:N]"},
      {"CUSCOPE_CAPTURE", "range:a:", "accepted: all, profiler-api, or range:REGEX[:N]"},
      {"CUSCOPE_LAUNCH_SKIP", "-2", "accepted: an integer >= 0"},
      {"CUSCOPE_LAUNCH_COUNT", "many", "accepted: an integer >= 0"},
      {"CUSCOPE_PER_SIGNATURE", "0", "an integer from 1 to 1000000, or all"},
      {"CUSCOPE_REPLAY", "application", "accepted: auto, rotate, kernel or sweep"},
      {"CUSCOPE_WINDOW", "0", "an integer from 1 to 4096"},
      {"CUSCOPE_CAPTURE", "sometimes", "accepted: all, profiler-api, or range:REGEX[:N]"},
      {"CUSCOPE_CAPTURE", "range:", "accepted: all, profiler-api, or range:REGEX[:N]"},
      {"CUSCOPE_CAPTURE", "range:step(", "accepted: all, profiler-api, or range:REGEX[:N]"},
  };
  for (const Case& c : cases) {
    auto r = FromMap({{c.env, c.value}});
    ASSERT_FALSE(r.ok()) << c.env << "=" << c.value;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    std::string msg(r.status().message());
    EXPECT_NE(msg.find(std::string(c.env) + "=\"" + c.value + "\" is not valid"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find(c.accepted), std::string::npos) << msg;
    EXPECT_FALSE(ValidateSetting(c.env, c.value).ok());
  }
  EXPECT_TRUE(ValidateSetting("CUSCOPE_API", "all").ok());
  EXPECT_FALSE(ValidateSetting("CUSCOPE_NOPE", "1").ok());
}

TEST(Config, CounterSettings) {
  auto c = FromMap({{"CUSCOPE_METRICS", "roofline, dram__bytes.sum"},
                    {"CUSCOPE_KERNELS", "gemm|saxpy"},
                    {"CUSCOPE_LAUNCH_SKIP", "5"},
                    {"CUSCOPE_LAUNCH_COUNT", "100"},
                    {"CUSCOPE_PER_SIGNATURE", "all"},
                    {"CUSCOPE_REPLAY", "kernel"},
                    {"CUSCOPE_WINDOW", "16"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->counters_enabled());
  EXPECT_EQ(c->metrics, (std::vector<std::string>{"roofline", "dram__bytes.sum"}));
  EXPECT_EQ(c->kernels, "gemm|saxpy");
  EXPECT_EQ(c->launch_skip, 5u);
  EXPECT_EQ(c->launch_count, 100u);
  EXPECT_EQ(c->per_signature, 0);
  EXPECT_EQ(c->replay, ReplayMode::kKernel);
  EXPECT_EQ(c->window, 16);
  EXPECT_TRUE(FromMap({})->counters_enabled());  // the verdict set by default
  EXPECT_EQ(FromMap({{"CUSCOPE_PER_SIGNATURE", "3"}})->per_signature, 3);
  EXPECT_EQ(FromMap({{"CUSCOPE_REPLAY", "sweep"}})->replay, ReplayMode::kSweep);
  EXPECT_EQ(FromMap({})->replay, ReplayMode::kAuto);
  EXPECT_FALSE(FromMap({{"CUSCOPE_REPLAY", "sweeps"}}).ok());
}

TEST(Config, RegionCountersNeedRegionsAndMetrics) {
  auto c = FromMap({{"CUSCOPE_METRICS", "roofline"},
                    {"CUSCOPE_REGIONS", "^forward$"},
                    {"CUSCOPE_REGION_COUNTERS", "1"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->region_counters);
  EXPECT_FALSE(FromMap({})->region_counters);
  auto no_regions = FromMap({{"CUSCOPE_METRICS", "roofline"}, {"CUSCOPE_REGION_COUNTERS", "1"}});
  ASSERT_FALSE(no_regions.ok());
  EXPECT_NE(no_regions.status().message().find("CUSCOPE_REGIONS"), std::string::npos);
  // The default counters (verdict) serve; none leaves nothing to measure.
  EXPECT_TRUE(FromMap({{"CUSCOPE_REGIONS", "x"}, {"CUSCOPE_REGION_COUNTERS", "1"}}).ok());
  auto no_metrics = FromMap(
      {{"CUSCOPE_METRICS", "none"}, {"CUSCOPE_REGIONS", "x"}, {"CUSCOPE_REGION_COUNTERS", "1"}});
  ASSERT_FALSE(no_metrics.ok());
  EXPECT_NE(no_metrics.status().message().find("CUSCOPE_METRICS"), std::string::npos);
  auto bad = FromMap({{"CUSCOPE_REGION_COUNTERS", "yes please"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("CUSCOPE_REGION_COUNTERS"), std::string::npos);
}

// Settings that cannot work together are refused only when both are given: a given
// setting overrides the other's default.
TEST(Config, GpuMetricsAndCountersAreRefusedTogether) {
  auto both = FromMap({{"CUSCOPE_GPU_METRICS", "1"}, {"CUSCOPE_METRICS", "roofline"}});
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(),
            "CUSCOPE_GPU_METRICS=1 (--gpu-metrics) and CUSCOPE_METRICS (--metrics) cannot work "
            "together: both use the GPU's performance monitors; give one of them");
  EXPECT_TRUE(FromMap({{"CUSCOPE_GPU_METRICS", "1"}})->gpu_metrics);
  EXPECT_TRUE(FromMap({{"CUSCOPE_METRICS", "roofline"}})->counters_enabled());
  EXPECT_TRUE(FromMap({{"CUSCOPE_GPU_METRICS", "0"}, {"CUSCOPE_METRICS", "roofline"}}).ok());
  EXPECT_TRUE(FromMap({{"CUSCOPE_GPU_METRICS", "1"}, {"CUSCOPE_METRICS", " "}}).ok());
  // The default counters yield to GPU metrics given explicitly.
  EXPECT_FALSE(FromMap({{"CUSCOPE_GPU_METRICS", "1"}})->counters_enabled());
  EXPECT_FALSE(
      FromMap({{"CUSCOPE_GPU_METRICS", "1"}, {"CUSCOPE_METRICS", " "}})->counters_enabled());
}

TEST(Config, CountersAreOnByDefaultWithTheVerdictSet) {
  EXPECT_EQ(FromMap({})->metrics, std::vector<std::string>{"verdict"});
  EXPECT_EQ(FromMap({{"CUSCOPE_METRICS", ""}})->metrics, std::vector<std::string>{"verdict"});
  EXPECT_FALSE(FromMap({{"CUSCOPE_METRICS", "none"}})->counters_enabled());
  EXPECT_FALSE(FromMap({{"CUSCOPE_METRICS", " none "}})->counters_enabled());
  EXPECT_EQ(FromMap({{"CUSCOPE_METRICS", "roofline"}})->metrics,
            std::vector<std::string>{"roofline"});
  // "none" is a word of its own, not a metric among others.
  EXPECT_FALSE(FromMap({{"CUSCOPE_METRICS", "none;roofline"}}).ok());
}

TEST(Config, WhenRegionsAreFollowed) {
  EXPECT_FALSE(FromMap({})->needs_capture_control());
  EXPECT_TRUE(FromMap({{"CUSCOPE_REGIONS", "x"}})->tracks_regions());  // default counters
  EXPECT_FALSE(FromMap({{"CUSCOPE_METRICS", "none"}, {"CUSCOPE_REGIONS", "x"}})->tracks_regions());
  EXPECT_TRUE(
      FromMap({{"CUSCOPE_METRICS", "roofline"}, {"CUSCOPE_REGIONS", "x"}})->tracks_regions());
  EXPECT_TRUE(FromMap({{"CUSCOPE_CAPTURE", "range:^step$"}})->tracks_regions());
  auto api = FromMap({{"CUSCOPE_CAPTURE", "profiler-api"}});
  EXPECT_FALSE(api->tracks_regions());
  EXPECT_TRUE(api->needs_capture_control());
}

TEST(Config, CaptureModes) {
  EXPECT_EQ(FromMap({})->capture, CaptureMode::kAll);
  EXPECT_EQ(FromMap({{"CUSCOPE_CAPTURE", "profiler-api"}})->capture, CaptureMode::kProfilerApi);
  auto c = FromMap({{"CUSCOPE_CAPTURE", "range:^step$:3"}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->capture, CaptureMode::kRange);
  EXPECT_EQ(c->capture_range, "^step$");
  EXPECT_EQ(c->capture_count, 3u);
  c = FromMap({{"CUSCOPE_CAPTURE", "range:train/step"}});
  EXPECT_EQ(c->capture_range, "train/step");
  EXPECT_EQ(c->capture_count, 0u);
}

// range:REGEX[:N]: only the last ':' starts N, and it must be an integer; a REGEX
// holding ':' is written with :N (0 = all), and prints back that way.
TEST(Config, CaptureRegexWithAColonNeedsN) {
  auto c = FromMap({{"CUSCOPE_CAPTURE", "range:ns::step:0"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->capture_range, "ns::step");
  EXPECT_EQ(c->capture_count, 0u);
  Config back;
  const Setting* s = FindSetting("CUSCOPE_CAPTURE");
  ASSERT_TRUE(s->Apply(s->value.format(*c), &back).ok());
  EXPECT_EQ(back.capture_range, "ns::step");
  // Found by tests/fuzz/settings_fuzz: a blank at the regex's end was lost.
  c = FromMap({{"CUSCOPE_CAPTURE", "range:^step\n:0"}});
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(s->Apply(s->value.format(*c), &back).ok());
  EXPECT_EQ(back.capture_range, "^step\n");
  c = FromMap({{"CUSCOPE_CAPTURE", "range:a:b:12"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->capture_range, "a:b");
  EXPECT_EQ(c->capture_count, 12u);
  absl::Status st = ValidateSetting("CUSCOPE_CAPTURE", "range:a:b");
  EXPECT_NE(st.message().find("N must be an integer"), std::string::npos) << st;
}

// An empty or blank value is the default, as if not given, wherever it comes from:
// a variable, cuscope_start's text, or (cli_test) a flag.
TEST(Config, BlankIsTheDefault) {
  for (const Setting& s : Settings()) {
    for (const char* blank : {"", "  "}) {
      auto c = FromMap({{s.env, blank}});
      ASSERT_TRUE(c.ok()) << s.env << "=\"" << blank << "\": " << c.status();
      EXPECT_EQ(s.value.format(*c), s.default_text()) << s.env;
      EXPECT_TRUE(ValidateSetting(s.env, blank).ok()) << s.env;
    }
  }
  auto given = ParseStartText("CUSCOPE_KERNELS=;CUSCOPE_TRACE=");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->size(), 2u);
}

// Issue 14: 20,000 nested parentheses crashed std::regex (stack overflow) in
// `cuscope run` and inside the profiled program. Now one short line, from every way
// a pattern is given.
TEST(Config, DeeplyNestedPatternIsAnErrorNotACrash) {
  const std::string deep = std::string(20000, '(') + "a" + std::string(20000, ')');
  for (const char* env : {"CUSCOPE_KERNELS", "CUSCOPE_REGIONS", "CUSCOPE_CAPTURE"}) {
    std::string value = std::string(env) == "CUSCOPE_CAPTURE" ? "range:" + deep : deep;
    auto c = FromMap({{env, value}});
    ASSERT_FALSE(c.ok()) << env;
    std::string msg(c.status().message());
    EXPECT_EQ(msg.rfind(std::string(env) + "=\"", 0), 0u) << msg;
    EXPECT_NE(msg.find("(" + std::to_string(value.size()) + " bytes)"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 600u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
    auto started = ParseStartText(std::string(env) + "=" + value);
    ASSERT_FALSE(started.ok()) << env;
    EXPECT_EQ(started.status().message(), msg);
  }
}

TEST(Config, ParseBytes) {
  EXPECT_EQ(*ParseBytes("4096"), 4096u);
  EXPECT_EQ(*ParseBytes("8M"), 8u << 20);
  EXPECT_EQ(*ParseBytes("8mb"), 8u << 20);
  EXPECT_EQ(*ParseBytes("1G"), 1u << 30);
  EXPECT_FALSE(ParseBytes("").ok());
  EXPECT_FALSE(ParseBytes("M").ok());
  EXPECT_FALSE(ParseBytes("-1").ok());
  EXPECT_FALSE(ParseBytes("99999999999999G").ok());
}

// The table in docs/configuration.md is the rows' (MarkdownTable). To rewrite it after
// changing a row: CUSCOPE_UPDATE_DOCS=1 build/tests/config_test --gtest_filter=*Docs*
TEST(Config, DocsTableIsTheRows) {
  const std::string path = std::string(CUSCOPE_SOURCE_DIR) + "/docs/configuration.md";
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  const std::string begin = "<!-- settings table: begin -->\n";
  const std::string end = "<!-- settings table: end -->";
  size_t from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << path << " has no \"" << begin << "\"";
  ASSERT_NE(to, std::string::npos) << path << " has no \"" << end << "\"";
  from += begin.size();
  std::string table = MarkdownTable();
  if (const char* update = std::getenv("CUSCOPE_UPDATE_DOCS");
      update && std::string(update) == "1") {
    doc.replace(from, to - from, table);
    to = from + table.size();
    std::ofstream(path) << doc;
  }
  EXPECT_EQ(doc.substr(from, to - from), table)
      << "docs/configuration.md's table differs from the settings (lib/config/settings.cc); "
         "CUSCOPE_UPDATE_DOCS=1 config_test rewrites it";
  for (const auto& s : Settings()) {
    EXPECT_NE(table.find(std::string("`") + s.env + "`"), std::string::npos) << s.env;
    std::string dashed = s.flag;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    EXPECT_NE(table.find("`--" + dashed + "`"), std::string::npos) << s.flag;
  }
}

TEST(Config, DefaultsAreConfigsAndReadBack) {
  EXPECT_EQ(FindSetting("CUSCOPE_BUFFER_SIZE")->default_text(), "8M");
  EXPECT_EQ(FindSetting("CUSCOPE_OUTPUT")->default_text(), "cuscope-%p.sqlite");
  EXPECT_EQ(FindSetting("CUSCOPE_TRACE")->default_text(), "all");
  EXPECT_EQ(FindSetting("CUSCOPE_PER_SIGNATURE")->default_text(), "1");
  EXPECT_EQ(FindSetting("CUSCOPE_CAPTURE")->default_text(), "all");
  EXPECT_EQ(FindSetting("CUSCOPE_METRICS")->default_text(), "verdict");
  EXPECT_EQ(FindSetting("CUSCOPE_ENABLE")->default_text(), "1");
  EXPECT_EQ(FindSetting("CUSCOPE_API")->default_text(), "default");
  EXPECT_EQ(FindSetting("NOPE"), nullptr);
  // Every printed value parses back to itself: the default, and a value set.
  std::map<std::string, std::string> set = {
      {"CUSCOPE_TRACE", "kernel,api"},     {"CUSCOPE_BUFFER_SIZE", "96K"},
      {"CUSCOPE_PER_SIGNATURE", "all"},    {"CUSCOPE_CAPTURE", "range:^step$:3"},
      {"CUSCOPE_METRICS", "roofline,sol"}, {"CUSCOPE_LAUNCH_COUNT", "7"},
      {"CUSCOPE_REPLAY", "rotate"},        {"CUSCOPE_VERBOSE", "1"}};
  for (const Setting& s : Settings()) {
    Config c;
    if (s.default_text().empty()) continue;  // empty is "not given", not a value
    ASSERT_TRUE(s.Apply(s.default_text(), &c).ok()) << s.env << "=" << s.default_text();
    EXPECT_EQ(s.value.format(c), s.default_text()) << s.env;
    auto it = set.find(s.env);
    if (it == set.end()) continue;
    ASSERT_TRUE(s.Apply(it->second, &c).ok()) << s.env;
    EXPECT_EQ(s.value.format(c), it->second) << s.env;
  }
}

// A run's settings as recorded: every row, in the table's order, by flag name, each
// value as its parser accepts it (what the environment set, else the default).
TEST(Config, SettingValuesAreEveryRowInOrder) {
  auto c = FromMap({{"CUSCOPE_REPLAY", "rotate"}, {"CUSCOPE_BUFFER_SIZE", "96K"}});
  ASSERT_TRUE(c.ok()) << c.status();
  const std::vector<std::pair<std::string, std::string>> values = SettingValues(*c);
  ASSERT_EQ(values.size(), Settings().size());
  std::map<std::string, std::string> by_name;
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i].first, Settings()[i].flag);
    by_name[values[i].first] = values[i].second;
    Config back;
    if (values[i].second.empty()) continue;  // an empty list or regex: not given
    ASSERT_TRUE(Settings()[i].Apply(values[i].second, &back).ok()) << values[i].first;
    EXPECT_EQ(Settings()[i].value.format(back), values[i].second) << values[i].first;
  }
  EXPECT_EQ(by_name.at("replay"), "rotate");
  EXPECT_EQ(by_name.at("buffer_size"), "96K");
  EXPECT_EQ(by_name.at("trace"), "all");
  EXPECT_EQ(by_name.at("output"), "cuscope-%p.sqlite");
}

// Each row refuses a bad value with one line: the variable, the value given, and the
// row's own text of what it accepts.
TEST(Config, EveryRowsErrorLineIsItsOwn) {
  for (const Setting& s : Settings()) {
    bool refused = false;
    for (const char* bad : {"bogus value!", "  ", "-5", "gemm("}) {
      Config c;
      absl::Status st = s.Apply(bad, &c);
      if (st.ok()) continue;
      refused = true;
      std::string msg(st.message());
      EXPECT_EQ(msg.rfind(std::string(s.env) + "=\"" + bad + "\" is not valid", 0), 0u) << msg;
      const std::string tail = "; accepted: " + s.value.accepts;
      ASSERT_GE(msg.size(), tail.size()) << msg;
      EXPECT_EQ(msg.substr(msg.size() - tail.size()), tail) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      // Blank is not given (the default) when read as a variable: BlankIsTheDefault.
      if (std::string(bad) != "  ") {
        EXPECT_EQ(ValidateSetting(s.env, bad).message(), st.message());
      }
    }
    EXPECT_TRUE(refused) << s.env << " refuses none of the bad values";
  }
}

// The range a row's text states is the range its parser checks.
TEST(Config, StatedRangesAreTheCheckedOnes) {
  int checked = 0;
  for (const Setting& s : Settings()) {
    const std::string& a = s.value.accepts;
    std::vector<std::string> ok, bad;
    long long lo = 0, hi = 0;
    double dlo = 0, dhi = 0;
    if (sscanf(a.c_str(), "a number from %lf to %lf", &dlo, &dhi) == 2) {
      auto text = [](double v) { return absl::StrFormat("%.17g", v); };
      ok = {text(dlo), text(dhi), text((dlo + dhi) / 2)};
      bad = {text(dlo - 0.5), text(dhi + 0.5), "nan", "1x"};
    } else if (sscanf(a.c_str(), "an integer from %lld to %lld", &lo, &hi) == 2) {
      ok = {std::to_string(lo), std::to_string(hi)};
      bad = {std::to_string(lo - 1), std::to_string(hi + 1)};
    } else if (sscanf(a.c_str(), "an integer >= %lld", &lo) == 1) {
      ok = {std::to_string(lo), "18446744073709551615"};
      bad = {std::to_string(lo - 1)};
    } else if (size_t at = a.find(" from "); s.env == std::string("CUSCOPE_BUFFER_SIZE")) {
      char low[16] = {}, high[16] = {};
      ASSERT_EQ(sscanf(a.c_str() + at, " from %15s to %15s", low, high), 2) << a;
      uint64_t l = *ParseBytes(low), h = *ParseBytes(high);
      ok = {low, high};
      bad = {std::to_string(l - 1), std::to_string(h + 1)};
    } else {
      continue;
    }
    ++checked;
    for (const std::string& v : ok)
      EXPECT_TRUE(ValidateSetting(s.env, v).ok()) << s.env << "=" << v;
    for (const std::string& v : bad)
      EXPECT_FALSE(ValidateSetting(s.env, v).ok()) << s.env << "=" << v;
  }
  // top, report width, report rank, buffer size, max buffers, flush, skip, count, per signature,
  // window, idle launches, rotate budget, the GPU metrics' interval, sample cap and burst, the
  // PC sampling period, the PyTorch hook's attributed steps, the advisor's 3 integer and 17
  // number thresholds.
  EXPECT_EQ(checked, 37);
}

TEST(Config, FormatBytes) {
  EXPECT_EQ(values::FormatBytes(64ull << 10), "64K");
  EXPECT_EQ(values::FormatBytes(8ull << 20), "8M");
  EXPECT_EQ(values::FormatBytes(1ull << 30), "1G");
  EXPECT_EQ(values::FormatBytes(1536ull << 10), "1536K");
  EXPECT_EQ(values::FormatBytes(4097), "4097");
  EXPECT_EQ(values::FormatBytes(0), "0");
}

// cuscope_start's text: ';' inside a value (a regular expression, a path) stays there.
TEST(StartText, SplitsOnlyBeforeASetting) {
  auto r = ParseStartText(
      "CUSCOPE_KERNELS=gemm;fused|a;b ; CUSCOPE_API=all\n"
      "CUSCOPE_OUTPUT=/tmp/x;y/run.sqlite;\n\nCUSCOPE_OWNER_PID=12;");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, (NamedValues{{"CUSCOPE_KERNELS", "gemm;fused|a;b"},
                             {"CUSCOPE_API", "all"},
                             {"CUSCOPE_OUTPUT", "/tmp/x;y/run.sqlite"},
                             {"CUSCOPE_OWNER_PID", "12"}}));
  r = ParseStartText("CUSCOPE_OUTPUT=run.sqlite;CUSCOPE_API = none");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, (NamedValues{{"CUSCOPE_OUTPUT", "run.sqlite"}, {"CUSCOPE_API", "none"}}));
  EXPECT_TRUE(ParseStartText("").ok() && ParseStartText("")->empty());
  EXPECT_TRUE(ParseStartText(" ;\n").ok());
  EXPECT_EQ(ParseStartText("CUSCOPE_REGIONS=a;b")->at(0).second, "a;b");
}

TEST(StartText, RefusesWhatIsNotASetting) {
  auto r = ParseStartText("garbage");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"garbage\" is not NAME=VALUE"), std::string::npos);
  // Found by tests/fuzz/settings_fuzz: a newline in the quoted part split the line.
  r = ParseStartText("gar\nbage");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"gar\\nbage\" is not NAME=VALUE"), std::string::npos)
      << r.status();
  r = ParseStartText("CUSCOPE_NO\nSUCH=1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << r.status();
  r = ParseStartText("CUSCOPE_API=all;CUSCOPE_NO_SUCH=1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown setting \"CUSCOPE_NO_SUCH\""), std::string::npos);
  r = ParseStartText("CUSCOPE_KERNELS=a(;b;CUSCOPE_API=all");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CUSCOPE_KERNELS=\"a(;b\" is not valid"), std::string::npos)
      << r.status();
  r = ParseStartText("CUSCOPE_API=all;CUSCOPE_MAX_BUFFERS=1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("an integer from 2 to 65536"), std::string::npos);
}

}  // namespace
}  // namespace cuscope::config
