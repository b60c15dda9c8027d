// `cuscope export PROFILE --chrome`: a Chrome trace of a profile.
#include <iostream>

#include "absl/strings/str_cat.h"
#include "lib/cli/commands.h"
#include "lib/cli/flags.h"
#include "lib/cli/output.h"
#include "lib/report/chrome_trace.h"
#include "lib/store/reader.h"

namespace cuscope::cli {
namespace {

const std::vector<Flag>& ExportFlags() {
  static const std::vector<Flag>* flags = new std::vector<Flag>{
      {"chrome", nullptr, nullptr, "write a Chrome trace (Perfetto UI, HTA)"},
      {"output", "o", "FILE", "the file to write (default PROFILE with .trace.json; - is stdout)"},
  };
  return *flags;
}

std::string Help() {
  return CommandHelp(kExportCommand.usage, kExportCommand.summary, ExportFlags());
}

// PROFILE with its extension replaced by .trace.json.
std::string DefaultTracePath(std::string path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.resize(dot);
  return path + ".trace.json";
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  absl::StatusOr<Args> args = ParseArgs(ExportFlags(), words);
  if (!args.ok()) return UsageError("export", args.status().message());
  if (args->positional.size() != 1) {
    return UsageError("export", absl::StrCat("expected exactly one PROFILE argument, got ",
                                             args->positional.size()));
  }
  if (args->Get("chrome") != "true") {
    return UsageError("export", "choose a format: --chrome (a Chrome trace for Perfetto and HTA)");
  }
  const std::string& path = args->positional[0];
  std::string out_path = args->Get("output");
  if (out_path.empty()) out_path = DefaultTracePath(path);
  if (int code = RefuseToOverwrite("export", "output", path, out_path)) return code;
  absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
  if (!profile.ok()) {
    std::cerr << "cuscope: export: " << profile.status().message() << "\n";
    return 1;
  }
  report::ChromeTraceStats stats;
  absl::Status st = report::WriteChromeTrace(*profile, out_path, &stats);
  if (!st.ok()) {
    std::cerr << "cuscope: export: " << st.message() << "\n";
    return 1;
  }
  if (out_path != "-") {
    std::cerr << "cuscope: wrote " << stats.events << " events to " << out_path << "\n";
  }
  return 0;
}

}  // namespace

const Command kExportCommand = {
    "export",
    "cuscope export PROFILE --chrome [FLAGS]",
    "Writes a Chrome trace that opens in Perfetto UI (ui.perfetto.dev) and HTA.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
