#include "lib/report/ranks_text.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/demangle.h"
#include "lib/report/format.h"

namespace cuscope::report {
namespace {

std::string RankName(const analysis::RankColumn& c) {
  return c.rank >= 0 ? absl::StrCat("rank ", c.rank) : absl::StrCat("pid ", c.pid);
}

std::string Duration(uint64_t ns) { return FormatDuration(double(ns)); }

void WriteRankTable(const analysis::RankComparison& c, const ReportOptions& options,
                    std::ostream& out) {
  TextTable table({"Rank", "Host", "Wall Time", "GPU Busy", "Kernel Time", "Kernels", "NCCL Time",
                   "NCCL Excess", "Steps", "Median Step", "Profile"});
  table.Fit(options.width, options.max_name_width);
  table.SetDroppable({"Host", "Steps", "Kernels", "GPU Busy", "NCCL Excess"});
  for (const analysis::RankColumn& r : c.ranks) {
    table.AddRow(
        {r.rank >= 0 ? absl::StrCat(r.rank) : "-", r.host.empty() ? "-" : r.host,
         Duration(r.wall_ns), Duration(r.gpu_busy_ns), Duration(r.kernel_ns),
         absl::StrCat(r.kernel_count),
         r.nccl_count > 0 ? absl::StrFormat("%s (%d)", Duration(r.nccl_ns), r.nccl_count) : "-",
         r.nccl_count > 0 ? Duration(r.nccl_excess_ns) : "-", absl::StrCat(r.step_ns.size()),
         r.step_ns.empty() ? "-" : FormatDuration(r.steps.median_ns), r.label});
  }
  table.Write(out);
  out << Wrapped(
      "NCCL: kernels whose name contains \"nccl\" (count); NCCL Excess: above the rank with "
      "the least, roughly the time spent waiting in collectives for slower ranks.",
      options.width, 2, 2);
}

void WriteStragglers(const analysis::RankComparison& c, size_t width, std::ostream& out) {
  const analysis::Stragglers& s = c.stragglers;
  const analysis::RankColumn& slow = c.ranks[s.slowest];
  const analysis::RankColumn& fast = c.ranks[s.fastest];
  out << "\nStragglers\n";
  if (s.basis == "steps") {
    out << Wrapped(absl::StrFormat("by step regions \"%s\": %d steps in every rank", s.step_name,
                                   s.steps_compared),
                   width, 2, 4);
    if (s.slowest == s.fastest) {
      out << Wrapped("the same median step time on every rank", width, 2, 4);
    } else {
      out << Wrapped(
          absl::StrFormat("slowest %s (median step %s), fastest %s (%s): %.1f%% slower",
                          RankName(slow), FormatDuration(slow.steps.median_ns), RankName(fast),
                          FormatDuration(fast.steps.median_ns), s.skew_percent),
          width, 2, 4);
    }
    out << Wrapped(
        absl::StrFormat("per-step skew (slowest - fastest rank): median %s, max %s at step %d",
                        Duration(s.median_skew_ns), Duration(s.max_skew_ns), s.max_skew_step),
        width, 2, 4);
  } else {
    out << Wrapped(
        "by wall time (no step regions common to every rank: name them step, ProfilerStep#N or "
        "train_step)",
        width, 2, 4);
    out << Wrapped(absl::StrFormat("slowest %s (%s), fastest %s (%s): %.1f%% slower, %s",
                                   RankName(slow), Duration(slow.wall_ns), RankName(fast),
                                   Duration(fast.wall_ns), s.skew_percent, Duration(s.max_skew_ns)),
                   width, 2, 4);
  }
}

void WriteKernelsByRank(const analysis::RankComparison& c, const ReportOptions& options,
                        std::ostream& out) {
  out << "\nGPU kernels by rank (total time)\n";
  if (c.kernels.empty()) {
    out << "  (none)\n";
    return;
  }
  std::vector<std::string> headers = {"All Ranks"};
  for (const analysis::RankColumn& r : c.ranks) {
    headers.push_back(r.rank >= 0 ? absl::StrCat("Rank ", r.rank) : absl::StrCat("pid ", r.pid));
  }
  headers.push_back("Name");
  std::vector<std::string> all;
  for (const analysis::RankKernelRow& k : c.kernels) all.push_back(model::Demangle(k.name));
  const NameCut names(std::move(all));
  TextTable table(headers);
  table.Fit(options.width, options.max_name_width, &names);
  // Too many ranks for the width: the last ones are left out (the note names them).
  table.SetDroppable({headers.rbegin() + 1, headers.rend() - 1});
  const size_t shown = ShownRows(c.kernels.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::RankKernelRow& k = c.kernels[i];
    std::vector<std::string> cells = {Duration(k.sum_ns)};
    for (size_t r = 0; r < c.ranks.size(); ++r) {
      cells.push_back(k.count[r] > 0 ? Duration(k.total_ns[r]) : "-");
    }
    cells.push_back(model::Demangle(k.name));
    table.AddRow(std::move(cells));
  }
  table.Write(out);
  WriteMoreLine(c.kernels.size(), shown, "kernels", out);
}

}  // namespace

void WriteRanksText(const analysis::RankComparison& c, const ReportOptions& options,
                    std::ostream& out) {
  out << "cuscope report: " << c.ranks.size() << " profiles\n";
  if (c.ranks.empty()) return;
  WriteRankTable(c, options, out);
  WriteStragglers(c, options.width, out);
  WriteKernelsByRank(c, options, out);
}

}  // namespace cuscope::report
