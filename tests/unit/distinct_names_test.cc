// Every shipped profile read through the text views that print kernel names (the
// report, `advise`, and `diff` of a profile with itself and of the recorded GPT-2
// pair), at the default width: no printed name stands for two different kernels.
// Each table's printed names are read back from the text and paired with the rows
// that the writer was given, in order.
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "lib/analysis/compare.h"
#include "lib/model/demangle.h"
#include "lib/report/diff.h"
#include "lib/report/format.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"
#include "lib/store/reader.h"
#include "tests/test_util.h"

namespace cuscope {
namespace {

using model::Demangle;
using report::ReportOptions;
using Lines = std::vector<std::string>;

const std::string kData = CUSCOPE_TEST_DATA_DIR;

std::vector<std::string> ShippedProfiles() {
  std::vector<std::string> paths;
  for (const std::string& dir : {kData, kData + "/real"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".sqlite") paths.push_back(e.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

Lines SplitLines(const std::string& text) { return absl::StrSplit(text, '\n'); }

size_t Indent(const std::string& line) {
  const size_t i = line.find_first_not_of(' ');
  return i == std::string::npos ? line.size() : i;
}

// The index of the line equal to `heading`; lines.size() when there is none.
size_t Find(const Lines& lines, const std::string& heading) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == heading) return i;
  }
  return lines.size();
}

// The names of the first `rows` rows of the first table after `heading` (a
// TextTable: a header over a rule, then each row inline or, when stacked, its name
// on a line of its own), skipping detail lines (indented 6 or more) when `details`.
Lines TableNames(const Lines& lines, const std::string& heading, size_t rows, bool details) {
  size_t h = Find(lines, heading);
  if (h == lines.size()) return {};
  while (h + 1 < lines.size() && !absl::StartsWith(lines[h + 1], "  --")) ++h;
  if (h + 1 >= lines.size()) return {};
  const std::string& header = lines[h];
  const bool stacked = !absl::EndsWith(header, "Name");
  const size_t column = header.rfind("Name");
  Lines names;
  size_t i = h + 2;
  for (size_t r = 0; r < rows && i < lines.size(); ++r) {
    if (stacked) {
      names.push_back(lines[i].substr(2));
      i += 2;
    } else {
      names.push_back(lines[i].size() > column ? lines[i].substr(column) : "");
      i += 1;
    }
    while (details && i < lines.size() && !lines[i].empty() && Indent(lines[i]) >= 6) ++i;
  }
  return names;
}

// The kernel names of the Regions table's detail lines ("13.485 ms  4x  NAME").
Lines RegionKernelNames(const Lines& lines) {
  static const std::regex kDetail("^ +\\S+ \\S+  \\d+x  (.+)$");
  Lines names;
  for (size_t i = Find(lines, "Regions") + 1; i < lines.size() && !lines[i].empty(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], m, kDetail)) names.push_back(m[1]);
  }
  return names;
}

// Per finding of the "Findings" list, in order: the kernel name of its "where:" line
// ("" when it names none).
Lines FindingKernelNames(const Lines& lines) {
  static const std::regex kHeading("^  \\d+\\. \\[.*");
  Lines names;
  size_t i = 0;
  while (i < lines.size() && !absl::StartsWith(lines[i], "Findings")) ++i;
  for (; i < lines.size(); ++i) {
    if (std::regex_match(lines[i], kHeading)) names.push_back("");
    if (names.empty() || !absl::StartsWith(lines[i], "     where: kernel ")) continue;
    std::string where = lines[i].substr(std::string("     where: kernel ").size());
    while (i + 1 < lines.size() && Indent(lines[i + 1]) == 7) where += " " + lines[++i].substr(7);
    size_t end = where.size();
    for (const char* next : {", region ", ", stream ", ", thread ", ", at ", ", GPU "}) {
      end = std::min(end, where.find(next));
    }
    names.back() = where.substr(0, end);
  }
  return names;
}

// Printed name -> the full names it stood for, over one view's text.
class Printed {
 public:
  explicit Printed(std::string view) : view_(std::move(view)) {}
  void Add(const Lines& printed, const Lines& full, const std::string& table) {
    ASSERT_EQ(printed.size(), full.size()) << view_ << ": " << table << ": rows read back";
    for (size_t i = 0; i < printed.size(); ++i) {
      if (full[i].empty()) continue;
      EXPECT_FALSE(printed[i].empty()) << view_ << ": " << table << ": " << full[i];
      EXPECT_LE(printed[i].size(), ReportOptions{}.max_name_width) << view_ << ": " << printed[i];
      by_printed_[printed[i]].insert(full[i]);
    }
    rows_ += printed.size();
  }
  // No printed name stands for two kernels; returns how many name cells were read.
  size_t ExpectDistinct() const {
    for (const auto& [printed, full] : by_printed_) {
      std::vector<std::string> heads;  // enough of each name to tell which it is
      for (const std::string& f : full) heads.push_back(f.substr(0, 240));
      EXPECT_EQ(full.size(), 1u) << view_ << ": \"" << printed << "\" prints\n    "
                                 << absl::StrJoin(heads, "\n and ");
    }
    return rows_;
  }

 private:
  std::string view_;
  std::map<std::string, std::set<std::string>> by_printed_;
  size_t rows_ = 0;
};

// The report's text at the default width, with `top` rows per table and every
// finding; returns the name cells read.
size_t CheckReport(const std::string& path, const report::ReportData& data, int top) {
  ReportOptions options;
  options.top = top;
  options.findings = 0;
  std::ostringstream out;
  report::WriteText(data, options, out);
  const Lines lines = SplitLines(out.str());
  Printed p(path + " report --top " + std::to_string(top));
  const analysis::Summary& s = data.summary;
  Lines full;
  for (size_t i = 0; i < report::ShownRows(s.kernels.size(), top); ++i) {
    full.push_back(Demangle(s.kernels[i].name));
  }
  p.Add(TableNames(lines, "GPU kernels", full.size(), false), full, "GPU kernels");
  full.clear();
  for (size_t i = 0; i < report::ShownRows(data.regions.size(), top); ++i) {
    for (const auto& k : data.regions[i].top_kernels) full.push_back(Demangle(k.name));
  }
  p.Add(RegionKernelNames(lines), full, "Regions");
  full.clear();
  for (size_t i = 0; i < report::ShownRows(data.counters.size(), top); ++i) {
    const analysis::KernelCounters& k = data.counters[i];
    full.push_back(k.region ? "" : Demangle(k.name));
  }
  p.Add(TableNames(lines, "Kernel counters", full.size(), true), full, "Kernel counters");
  full.clear();
  for (size_t i = 0; i < report::ShownRows(data.gpu_samples.kernels.size(), top); ++i) {
    full.push_back(Demangle(data.gpu_samples.kernels[i].name));
  }
  for (const std::string& l : lines) {  // "GPU metrics (sampled every 10 us)"
    if (absl::StartsWith(l, "GPU metrics (sampled every")) {
      p.Add(TableNames(lines, l, full.size(), false), full, "GPU metrics");
    }
  }
  full.clear();
  for (const model::Finding& f : data.findings) full.push_back(Demangle(f.kernel));
  p.Add(FindingKernelNames(lines), full, "Findings");
  return p.ExpectDistinct();
}

TEST(DistinctNames, ReportOfEveryShippedProfile) {
  for (const std::string& path : ShippedProfiles()) {
    absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
    ASSERT_TRUE(profile.ok()) << path << ": " << profile.status();
    const report::ReportData data = report::BuildReport(*profile);
    EXPECT_GT(CheckReport(path, data, ReportOptions{}.top), 0u) << path;
    EXPECT_GE(CheckReport(path, data, 0), data.summary.kernels.size()) << path;
  }
}

TEST(DistinctNames, AdviseOfEveryShippedProfile) {
  const std::string bin = std::string(CUSCOPE_BINARY_DIR) + "/bin/cuscope";
  for (const std::string& path : ShippedProfiles()) {
    absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
    ASSERT_TRUE(profile.ok()) << path << ": " << profile.status();
    const testing_util::ProgramResult r =
        testing_util::RunProgram({bin, "advise", path, "--top", "0"});
    ASSERT_EQ(r.code(), 0) << path << ": " << r.err;
    Lines full;
    for (const model::Finding& f : report::BuildReport(*profile).findings) {
      full.push_back(Demangle(f.kernel));
    }
    Printed p(path + " advise");
    p.Add(FindingKernelNames(SplitLines(r.out)), full, "Findings");
    p.ExpectDistinct();
  }
}

// The kernel tables of `cuscope diff BASE NEW`; returns the name cells read.
size_t CheckDiff(const std::string& label, const model::Profile& base, const model::Profile& next,
                 int top) {
  const analysis::Comparison c = analysis::Compare(base, next);
  ReportOptions options;
  options.top = top;
  std::ostringstream out;
  report::WriteComparisonText(c, "base", "new", options, out);
  const Lines lines = SplitLines(out.str());
  Printed p(label + " diff --top " + std::to_string(top));
  Lines full;
  for (size_t i = 0; i < report::ShownRows(c.kernels.size(), top); ++i) {
    full.push_back(Demangle(c.kernels[i].name));
  }
  p.Add(TableNames(lines, "GPU kernels (by change of total time)", full.size(), false), full,
        "GPU kernels");
  full.clear();
  for (size_t i = 0; i < report::ShownRows(c.verdicts.size(), top); ++i) {
    full.push_back(Demangle(c.verdicts[i].name));
  }
  p.Add(TableNames(lines, "Verdicts that changed (kernels measured in both)", full.size(), false),
        full, "Verdicts");
  full.clear();
  for (size_t i = 0; i < report::ShownRows(c.sampled.size(), top); ++i) {
    full.push_back(Demangle(c.sampled[i].name));
  }
  p.Add(TableNames(lines, "GPU metrics of kernels sampled in both (by new kernel time)",
                   full.size(), false),
        full, "Sampled");
  return p.ExpectDistinct();
}

TEST(DistinctNames, DiffOfEveryShippedProfileWithItselfAndOfTheGpt2Pair) {
  for (const std::string& path : ShippedProfiles()) {
    absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
    ASSERT_TRUE(profile.ok()) << path << ": " << profile.status();
    EXPECT_GT(CheckDiff(path, *profile, *profile, 0), 0u) << path;
  }
  absl::StatusOr<model::Profile> trace =
      store::LoadProfile(kData + "/real/h200-gpt2-step-trace.sqlite");
  absl::StatusOr<model::Profile> rotate =
      store::LoadProfile(kData + "/real/h200-gpt2-rotate-roofline.sqlite");
  ASSERT_TRUE(trace.ok() && rotate.ok());
  EXPECT_GT(CheckDiff("gpt2 trace vs rotate", *trace, *rotate, ReportOptions{}.top), 0u);
  EXPECT_GT(CheckDiff("gpt2 trace vs rotate", *trace, *rotate, 0), 0u);
}

}  // namespace
}  // namespace cuscope
