// `cuscope export PROFILE --chrome|--perfetto`: a trace of a profile, as a Chrome
// trace (JSON, gzip when the name ends in .gz) or Perfetto's protobuf (.pftrace),
// with options that keep it small. Several profiles (the ranks of one job) make one
// merged trace (Chrome or .pftrace) with one set of processes per rank on a common clock.
#include <deque>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/cli/commands.h"
#include "lib/cli/common_flags.h"
#include "lib/cli/flags.h"
#include "lib/cli/load.h"
#include "lib/cli/output.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/perfetto_trace.h"
#include "lib/report/trace_filter.h"
#include "lib/report/trace_options.h"

namespace cuscope::cli {
namespace {

// What the flags of `cuscope export` give.
struct ExportFlags {
  bool chrome = false, perfetto = false;
  std::string output;
  std::optional<uint64_t> from_ns, to_ns;
  std::string kernels, regions;
  uint64_t aggregate_below_ns = 0, sample_bin_ns = 0;

  report::TraceOptions trace() const {
    report::TraceOptions t;
    t.from_ns = from_ns;
    t.to_ns = to_ns;
    t.kernels = kernels;
    t.regions = regions;
    t.aggregate_below_ns = aggregate_below_ns;
    t.sample_bin_ns = sample_bin_ns;
    return t;
  }
};

// A duration flag (report::ParseTraceDuration: 1.5ms, 200us).
template <typename T>
Flag<ExportFlags> Duration(const char* name, T ExportFlags::*member, std::string help) {
  return Parsed<ExportFlags, T>(name, member, "TIME", std::move(help),
                                [](absl::string_view text) -> absl::StatusOr<T> {
                                  absl::StatusOr<uint64_t> ns = report::ParseTraceDuration(text);
                                  if (!ns.ok()) return ns.status();
                                  return T(*ns);
                                });
}

const FlagTable<ExportFlags>& Flags() {
  using F = ExportFlags;
  static const auto* flags = new FlagTable<ExportFlags>{
      Switch("chrome", &F::chrome, "write a Chrome trace (Perfetto UI, chrome://tracing, HTA)"),
      Switch("perfetto", &F::perfetto,
             "write Perfetto's protobuf trace (.pftrace), compact for large runs"),
      OutputFlag(&F::output,
                 "the file to write (default PROFILE with .trace.json or .pftrace; - is stdout; "
                 "needed with several profiles); a name ending in .gz is gzip-compressed, and "
                 ".pftrace or .json chooses the format"),
      Duration("from", &F::from_ns,
               "keep what happens from TIME after the run's start (1.5ms, 200us)"),
      Duration("to", &F::to_ns, "keep what happens until TIME after the run's start"),
      Text("kernels", &F::kernels, "REGEX",
           "keep only kernels whose name matches (and their launches)"),
      Text("regions", &F::regions, "REGEX",
           "keep only what happens inside ranges whose name matches (and the GPU work launched "
           "there)"),
      Duration("aggregate", &F::aggregate_below_ns,
               "merge consecutive kernels on a stream each shorter than TIME into one event with "
               "a count"),
      Duration("gpu_metrics_bin", &F::sample_bin_ns,
               "combine each GPU's metric samples over TIME: one counter value per TIME and "
               "series"),
  };
  return *flags;
}

std::string Help() { return CommandHelp(kExportCommand.usage, kExportCommand.summary, Flags()); }

// PROFILE with its extension replaced by `suffix`.
std::string DefaultTracePath(std::string path, const char* suffix) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.resize(dot);
  return path + suffix;
}

// The extension of a .pftrace name (.pftrace, .pftrace.gz, .perfetto-trace), else "".
absl::string_view PerfettoExtension(absl::string_view path) {
  for (absl::string_view ext : {".pftrace", ".pftrace.gz", ".perfetto-trace"}) {
    if (absl::EndsWith(path, ext)) return ext;
  }
  return "";
}
// The extension of a Chrome trace's name (.json, .json.gz), else "".
absl::string_view ChromeExtension(absl::string_view path) {
  for (absl::string_view ext : {".json", ".json.gz"}) {
    if (absl::EndsWith(path, ext)) return ext;
  }
  return "";
}

// A format flag that the output's extension contradicts (--perfetto -o x.json): a
// usage error naming both, else 0.
int CheckFormatMatchesName(const std::string& out_path, bool chrome) {
  const absl::string_view other = chrome ? PerfettoExtension(out_path) : ChromeExtension(out_path);
  if (other.empty()) return 0;
  return UsageError(
      "export",
      absl::StrCat(
          chrome ? "--chrome writes a Chrome trace (JSON)" : "--perfetto writes a .pftrace",
          ", but the output ", out_path, " ends in ", other,
          chrome ? " (a .pftrace)" : " (a Chrome trace)", ": name it ",
          chrome ? ".json or .json.gz" : ".pftrace or .pftrace.gz", ", or write ",
          chrome ? "--perfetto" : "--chrome", " (or neither: the extension chooses)"));
}

// One profile's view with what it is built from.
struct LoadedTrace {
  model::Profile profile;
  std::vector<analysis::KernelCounters> counters;
  std::optional<report::TraceFilter> filter;
  std::optional<report::TraceView> view;
};

// Loads `path` and builds its view; an exit code (1 or a usage error) on failure.
// What the filters leave out entirely is a warning on stderr (with the profile's name
// when `several`); the trace is written all the same.
int Load(const std::string& path, const report::TraceOptions& options, bool several,
         LoadedTrace* t) {
  std::optional<model::Profile> profile = LoadOrSay("export", path);
  if (!profile) return 1;
  t->profile = *std::move(profile);
  absl::StatusOr<report::TraceFilter> filter = report::TraceFilter::Create(t->profile, options);
  if (!filter.ok()) return UsageError("export", filter.status().message());
  t->filter.emplace(*std::move(filter));
  for (const std::string& w : t->filter->warnings()) {
    std::cerr << "cuscope: export: warning: " << (several ? path + ": " : "") << w << "\n";
  }
  if (!t->profile.counters.empty()) t->counters = analysis::AnalyzeCounters(t->profile);
  t->view.emplace(t->profile, t->counters, options.keeps_everything() ? nullptr : &*t->filter);
  return 0;
}

// Several profiles: one trace, each profile as the rank its run recorded (the argument
// order when one has none); the number of events (Chrome) or packets (.pftrace) written.
absl::StatusOr<uint64_t> WriteMerged(const std::vector<std::string>& paths,
                                     const std::deque<LoadedTrace>& traces,
                                     const std::string& out_path, bool chrome) {
  bool recorded = true;
  for (const LoadedTrace& t : traces) recorded = recorded && t.profile.run.rank >= 0;
  std::vector<report::RankTrace> ranks;
  std::map<int, size_t> by_rank;
  for (size_t i = 0; i < traces.size(); ++i) {
    const int rank = recorded ? traces[i].profile.run.rank : static_cast<int>(i);
    auto [it, fresh] = by_rank.emplace(rank, i);
    if (!fresh) {
      return absl::InvalidArgumentError(
          absl::StrCat(paths[it->second], " and ", paths[i], " are both rank ", rank,
                       ": a merged trace takes one profile per rank of one job"));
    }
    ranks.push_back({&*traces[i].view, rank});
  }
  if (chrome) {
    report::ChromeTraceStats stats;
    absl::Status st = report::WriteMergedChromeTrace(ranks, out_path, &stats);
    if (!st.ok()) return st;
    return stats.events;
  }
  report::PerfettoTraceStats stats;
  absl::Status st = report::WriteMergedPerfettoTrace(ranks, out_path, &stats);
  if (!st.ok()) return st;
  return stats.packets;
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  ExportFlags flags;
  absl::StatusOr<Words> args = ParseFlags(Flags(), words, &flags);
  if (!args.ok()) return UsageError("export", args.status().message());
  const std::vector<std::string>& paths = args->positional;
  if (paths.empty()) return UsageError("export", "expected a PROFILE argument");
  std::string out_path = flags.output;
  bool chrome = flags.chrome, perfetto = flags.perfetto;
  if (!chrome && !perfetto && !out_path.empty()) perfetto = !PerfettoExtension(out_path).empty();
  if (!chrome && !perfetto && !out_path.empty()) chrome = true;
  if (chrome == perfetto) {
    return UsageError("export",
                      "choose one format: --chrome (a Chrome trace for Perfetto and "
                      "HTA) or --perfetto (a .pftrace)");
  }
  if (int code = CheckFormatMatchesName(out_path, chrome)) return code;
  if (paths.size() > 1 && out_path.empty()) {
    return UsageError("export", "several profiles make one merged trace: name it with -o FILE");
  }
  const report::TraceOptions options = flags.trace();
  if (out_path.empty()) out_path = DefaultTracePath(paths[0], chrome ? ".trace.json" : ".pftrace");
  for (const std::string& path : paths) {
    if (int code = RefuseToOverwrite("export", "output", path, out_path)) return code;
  }
  std::deque<LoadedTrace> traces(paths.size());  // a deque: views point into it
  for (size_t i = 0; i < paths.size(); ++i) {
    if (int code = Load(paths[i], options, paths.size() > 1, &traces[i])) return code;
  }
  uint64_t events = 0;
  absl::Status st;
  if (paths.size() > 1) {
    absl::StatusOr<uint64_t> written = WriteMerged(paths, traces, out_path, chrome);
    st = written.status();
    if (written.ok()) events = *written;
  } else if (chrome) {
    report::ChromeTraceStats stats;
    st = report::WriteChromeTrace(*traces[0].view, out_path, &stats);
    events = stats.events;
  } else {
    report::PerfettoTraceStats stats;
    st = report::WritePerfettoTrace(*traces[0].view, out_path, &stats);
    events = stats.packets;
  }
  if (!st.ok()) {
    std::cerr << "cuscope: export: " << st.message() << "\n";
    return 1;
  }
  if (out_path != "-") {
    std::cerr << "cuscope: wrote " << events << (chrome ? " events" : " packets") << " to "
              << out_path << "\n";
  }
  return 0;
}

}  // namespace

const Command kExportCommand = {
    "export",
    "cuscope export PROFILE... --chrome|--perfetto [FLAGS]",
    "Writes a trace that opens in Perfetto UI (ui.perfetto.dev) and HTA: a Chrome trace "
    "(JSON, .json.gz compressed) or Perfetto's protobuf (.pftrace) for large runs. Several "
    "profiles (the ranks of one job, e.g. run -o ddp.%r.sqlite) make one trace (-o FILE, "
    "Chrome or .pftrace) with one set of processes per rank, named \"rank N: ...\", on a "
    "common clock (each run's wall-clock start); for HTA keep one trace per rank.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
