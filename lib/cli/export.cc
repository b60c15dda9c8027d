// `cuscope export PROFILE --chrome|--perfetto`: a trace of a profile, as a Chrome
// trace (JSON, gzip when the name ends in .gz) or Perfetto's protobuf (.pftrace),
// with options that keep it small.
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/cli/commands.h"
#include "lib/cli/flags.h"
#include "lib/cli/output.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/perfetto_trace.h"
#include "lib/report/trace_filter.h"
#include "lib/store/reader.h"

namespace cuscope::cli {
namespace {

const std::vector<Flag>& ExportFlags() {
  static const std::vector<Flag>* flags = new std::vector<Flag>{
      {"chrome", nullptr, nullptr, "write a Chrome trace (Perfetto UI, chrome://tracing, HTA)"},
      {"perfetto", nullptr, nullptr,
       "write Perfetto's protobuf trace (.pftrace), compact for large runs"},
      {"output", "o", "FILE",
       "the file to write (default PROFILE with .trace.json or .pftrace; - is stdout); a name "
       "ending in .gz is gzip-compressed, and .pftrace or .json chooses the format"},
      {"from", nullptr, "TIME", "keep what happens from TIME after the run's start (1.5ms, 200us)"},
      {"to", nullptr, "TIME", "keep what happens until TIME after the run's start"},
      {"kernels", nullptr, "REGEX", "keep only kernels whose name matches (and their launches)"},
      {"regions", nullptr, "REGEX",
       "keep only what happens inside ranges whose name matches (and the GPU work launched there)"},
      {"aggregate", nullptr, "TIME",
       "merge consecutive kernels on a stream each shorter than TIME into one event with a count"},
  };
  return *flags;
}

std::string Help() {
  return CommandHelp(kExportCommand.usage, kExportCommand.summary, ExportFlags());
}

// PROFILE with its extension replaced by `suffix`.
std::string DefaultTracePath(std::string path, const char* suffix) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.resize(dot);
  return path + suffix;
}

// The trace options from the flags; false after a usage error line.
bool ReadOptions(const Args& args, report::TraceOptions* options) {
  for (auto [flag, field] : {std::pair{"from", &options->from_ns}, {"to", &options->to_ns}}) {
    const std::string text = args.Get(flag);
    if (text.empty()) continue;
    absl::StatusOr<uint64_t> ns = report::ParseTraceDuration(text);
    if (!ns.ok()) {
      UsageError("export", absl::StrCat("--", flag, ": ", ns.status().message()));
      return false;
    }
    *field = *ns;
  }
  options->kernels = args.Get("kernels");
  options->regions = args.Get("regions");
  const std::string aggregate = args.Get("aggregate");
  if (!aggregate.empty()) {
    absl::StatusOr<uint64_t> ns = report::ParseTraceDuration(aggregate);
    if (!ns.ok()) {
      UsageError("export", absl::StrCat("--aggregate: ", ns.status().message()));
      return false;
    }
    options->aggregate_below_ns = *ns;
  }
  return true;
}

bool IsPerfettoPath(absl::string_view path) {
  return absl::EndsWith(path, ".pftrace") || absl::EndsWith(path, ".pftrace.gz") ||
         absl::EndsWith(path, ".perfetto-trace");
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  absl::StatusOr<Args> args = ParseArgs(ExportFlags(), words);
  if (!args.ok()) return UsageError("export", args.status().message());
  if (args->positional.size() != 1) {
    return UsageError("export", absl::StrCat("expected exactly one PROFILE argument, got ",
                                             args->positional.size()));
  }
  std::string out_path = args->Get("output");
  bool chrome = args->Get("chrome") == "true", perfetto = args->Get("perfetto") == "true";
  if (!chrome && !perfetto && !out_path.empty()) perfetto = IsPerfettoPath(out_path);
  if (!chrome && !perfetto && !out_path.empty()) chrome = true;
  if (chrome == perfetto) {
    return UsageError("export",
                      "choose one format: --chrome (a Chrome trace for Perfetto and "
                      "HTA) or --perfetto (a .pftrace)");
  }
  report::TraceOptions options;
  if (!ReadOptions(*args, &options)) return kUsageError;
  const std::string& path = args->positional[0];
  if (out_path.empty()) out_path = DefaultTracePath(path, chrome ? ".trace.json" : ".pftrace");
  if (int code = RefuseToOverwrite("export", "output", path, out_path)) return code;
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    std::cerr << "cuscope: export: " << profile.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<report::TraceFilter> filter = report::TraceFilter::Create(*profile, options);
  if (!filter.ok()) return UsageError("export", filter.status().message());
  const std::vector<analysis::KernelCounters> counters =
      profile->counters.empty() ? std::vector<analysis::KernelCounters>()
                                : analysis::AnalyzeCounters(*profile);
  const report::TraceView view(*profile, counters, options.keeps_everything() ? nullptr : &*filter);
  uint64_t events = 0;
  absl::Status st;
  if (chrome) {
    report::ChromeTraceStats stats;
    st = report::WriteChromeTrace(view, out_path, &stats);
    events = stats.events;
  } else {
    report::PerfettoTraceStats stats;
    st = report::WritePerfettoTrace(view, out_path, &stats);
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
    "cuscope export PROFILE --chrome|--perfetto [FLAGS]",
    "Writes a trace that opens in Perfetto UI (ui.perfetto.dev) and HTA: a Chrome trace "
    "(JSON, .json.gz compressed) or Perfetto's protobuf (.pftrace) for large runs.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
