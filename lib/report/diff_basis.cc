#include "lib/report/diff_basis.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/model/checked.h"
#include "lib/report/diff_totals.h"
#include "lib/report/format.h"

namespace cuscope::report {

using analysis::ProfilerEffects;

namespace {

// "BASE and NEW", "BASE" or "NEW": the sides for which `pred` holds.
template <typename Pred>
std::string Sides(const analysis::Comparison& c, Pred pred) {
  const bool b = pred(c.base_profiler), n = pred(c.next_profiler);
  return b && n ? "BASE and NEW" : b ? "BASE" : n ? "NEW" : "";
}

void JsonEffects(json::Writer& w, const char* key, const ProfilerEffects& fx) {
  json::Key(w, key);
  w.StartObject();
  json::Key(w, "counters"), json::Str(w, fx.counters);
  json::Key(w, "settings");
  w.StartObject();
  for (const auto& [name, value] : fx.settings) json::Key(w, name), json::Str(w, value);
  w.EndObject();
  json::Key(w, "measured_launches"), w.Uint64(fx.measured_launches);
  json::Key(w, "launches_without_records"), w.Uint64(fx.launches_without_records);
  json::Key(w, "copies_held"), w.Bool(fx.copies_held);
  json::Key(w, "memory_untraced"), w.Bool(fx.memory_untraced);
  json::Key(w, "dropped_records"), w.Uint64(fx.dropped_records);
  json::Key(w, "held_ms"), json::Num(w, fx.held_ms);
  json::Key(w, "taken"), json::Str(w, TakenText(fx));
  json::Key(w, "effects"), json::Str(w, EffectsText(fx));
  w.EndObject();
}

void JsonNotCompared(json::Writer& w, const char* quantity, const std::string& reason) {
  w.StartObject();
  json::Key(w, "quantity"), json::Str(w, quantity);
  json::Key(w, "reason"), json::Str(w, reason);
  w.EndObject();
}

}  // namespace

std::string TakenText(const ProfilerEffects& fx) {
  std::string text = fx.counters.empty() ? "trace only" : absl::StrCat("counters by ", fx.counters);
  std::vector<std::string> settings;
  for (const auto& [name, value] : fx.settings) {
    if (name == "metrics" || name == "replay" || name == "trace" || name == "capture" ||
        name == "kernels") {
      if (!value.empty()) settings.push_back(absl::StrCat(name, "=", value));
    }
  }
  if (!settings.empty()) absl::StrAppend(&text, " (", absl::StrJoin(settings, ", "), ")");
  return text;
}

std::string EffectsText(const ProfilerEffects& fx) {
  std::vector<std::string> parts;
  if (fx.measured_launches > 0) {
    parts.push_back(absl::StrCat(fx.measured_launches, " launches measured with counters"));
  }
  if (fx.launches_without_records > 0) {
    parts.push_back(absl::StrCat(fx.launches_without_records,
                                 " launches measured with counters have no kernel record"));
  }
  if (const std::string memory = MemoryCausesText(fx); !memory.empty()) parts.push_back(memory);
  if (fx.held_ms > 0) {
    parts.push_back(
        absl::StrCat(FormatDuration(fx.held_ms * 1e6), " holding the program to measure counters"));
  }
  return absl::StrJoin(parts, "; ");
}

std::string KernelCountNotComparedText(const analysis::Comparison& c) {
  if (c.kernel_count_compared) return "";
  const std::string sides =
      Sides(c, [](const ProfilerEffects& fx) { return !fx.kernel_records_complete(); });
  return absl::StrCat("not compared: ", sides,
                      " kept no kernel record of launches it measured or dropped");
}

namespace {

// "+1.2%: within 3%, no change" or "-12.0%: a change beyond 3%".
std::string VerdictText(uint64_t base_ns, uint64_t next_ns) {
  const double pct = analysis::ChangePercent(double(base_ns), double(next_ns));
  const std::string change = std::isfinite(pct) ? absl::StrFormat("%+.1f%%", pct) : "new";
  if (!(std::fabs(pct) <= analysis::kKernelTimeChangePct)) {
    return absl::StrCat(change, ": a change beyond ", analysis::kKernelTimeChangePct, "%");
  }
  return absl::StrCat(change, ": within ", analysis::kKernelTimeChangePct, "%, no change");
}

}  // namespace

std::string KernelTimeVerdictText(const analysis::KernelTimeComparison& kt) {
  return VerdictText(kt.base.total_ns, kt.next.total_ns);
}

std::string KernelTimeChangeText(const analysis::Comparison& c) {
  if (c.kernel_time.whole) {
    return absl::StrCat(
        FormatDuration(double(c.base_kernel_ns)), " -> ", FormatDuration(double(c.next_kernel_ns)),
        " (", FormatSignedDuration(model::SaturatingDifference(c.next_kernel_ns, c.base_kernel_ns)),
        ", ", VerdictText(c.base_kernel_ns, c.next_kernel_ns), ")");
  }
  return absl::StrCat(FormatDuration(double(c.base_kernel_ns)), " in BASE, ",
                      FormatDuration(double(c.next_kernel_ns)),
                      " in NEW: each profile's own, timed otherwise (compared below)");
}

std::string ComparableKernelTimeText(const analysis::Comparison& c) {
  const analysis::KernelTimeComparison& kt = c.kernel_time;
  if (kt.whole) return "";
  return absl::StrCat(
      FormatDuration(double(kt.base.total_ns)), " -> ", FormatDuration(double(kt.next.total_ns)),
      " (", FormatSignedDuration(model::SaturatingDifference(kt.next.total_ns, kt.base.total_ns)),
      ", ", KernelTimeVerdictText(kt), ") over the launches timed alike: ", kt.base.launches,
      " in BASE, ", kt.next.launches, " in NEW; left out ", kt.base.left_out, " and ",
      kt.next.left_out, " (measured with counters on one side, or without a record)");
}

const char* LeftOutText(analysis::LeftOut why) {
  switch (why) {
    case analysis::LeftOut::kNone:
      return "";
    case analysis::LeftOut::kMeasured:
      return "measured with counters on one side";
    case analysis::LeftOut::kNoRecord:
      return "without a partner where the other profile kept no record";
    case analysis::LeftOut::kUnusable:
      return "unusable times on one side";
  }
  return "";
}

void WriteBasisHeaderText(const analysis::Comparison& c, const ReportOptions& options,
                          std::ostream& out) {
  auto line = [&](const char* label, const std::string& value) {
    out << Wrapped(absl::StrFormat("%-12s%s", label, value), options.width, 2, 14);
  };
  line("Taken",
       absl::StrCat("BASE ", TakenText(c.base_profiler), "; NEW ", TakenText(c.next_profiler)));
  for (const auto& [side, fx] :
       {std::pair{"BASE", &c.base_profiler}, std::pair{"NEW", &c.next_profiler}}) {
    if (const std::string effects = EffectsText(*fx); !effects.empty()) {
      line("Profiler", absl::StrCat(side, ": ", effects));
    }
  }
  std::string wall = DurationChangeText(c.base_wall_ns, c.next_wall_ns);
  const std::string held = Sides(c, [](const ProfilerEffects& fx) { return fx.held_ms > 0; });
  if (!held.empty()) {
    absl::StrAppend(&wall, "; ", held, held.size() > 4 ? " include" : " includes",
                    " time holding the program to measure counters");
  }
  line("Wall time", wall);
  line("Kernel time", KernelTimeChangeText(c));
  if (std::string comparable = ComparableKernelTimeText(c); !comparable.empty()) {
    line("Comparable", comparable);
  }
  if (c.kernel_count_compared) {
    line("Kernels", CountChangeText(c.base_kernel_count, c.next_kernel_count, "records"));
  } else {
    line("Kernels", absl::StrCat(c.base_kernel_count, " records in BASE, ", c.next_kernel_count,
                                 " in NEW: ", KernelCountNotComparedText(c)));
  }
}

void WriteBasisJson(json::Writer& w, const analysis::Comparison& c) {
  json::Key(w, "profilers");
  w.StartObject();
  JsonEffects(w, "base", c.base_profiler);
  JsonEffects(w, "new", c.next_profiler);
  w.EndObject();
  const analysis::KernelTimeComparison& kt = c.kernel_time;
  json::Key(w, "comparable_kernel_time");
  w.StartObject();
  json::Key(w, "base_ns"), w.Uint64(kt.base.total_ns);
  json::Key(w, "new_ns"), w.Uint64(kt.next.total_ns);
  json::Key(w, "base_launches"), w.Uint64(kt.base.launches);
  json::Key(w, "new_launches"), w.Uint64(kt.next.launches);
  json::Key(w, "base_left_out"), w.Uint64(kt.base.left_out);
  json::Key(w, "new_left_out"), w.Uint64(kt.next.left_out);
  json::Key(w, "change_ns"),
      w.Int64(model::SaturatingDifference(kt.next.total_ns, kt.base.total_ns));
  json::Key(w, "change_percent");
  if (std::isfinite(kt.change_percent())) {
    w.Double(kt.change_percent());
  } else {
    w.Null();
  }
  json::Key(w, "threshold_percent"), json::Num(w, analysis::kKernelTimeChangePct);
  json::Key(w, "changed"), w.Bool(kt.changed());
  json::Key(w, "whole"), w.Bool(kt.whole);
  w.EndObject();
  json::Key(w, "kernel_count_compared"), w.Bool(c.kernel_count_compared);
  json::Key(w, "not_compared");
  w.StartArray();
  if (!c.kernel_count_compared) JsonNotCompared(w, "kernel_count", KernelCountNotComparedText(c));
  for (const analysis::TotalsDelta& d : c.memory) {
    if (d.not_compared) JsonNotCompared(w, d.name.c_str(), MemoryNotComparedText(c));
  }
  if (c.copies.not_compared) JsonNotCompared(w, "all copies", MemoryNotComparedText(c));
  w.EndArray();
}

}  // namespace cuscope::report
