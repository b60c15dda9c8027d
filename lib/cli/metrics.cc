// `cuscope metrics [--chip NAME] [--set NAME] [--format text|json] [--chips]`: the
// metric sets, their metrics resolved for a chip and what each answers, like
// `ncu --list-sets` and `--query-metrics`. Through libcuscope.so (library.h).
#include <iostream>

#include "absl/strings/str_cat.h"
#include "lib/cli/commands.h"
#include "lib/cli/common_flags.h"
#include "lib/cli/flags.h"
#include "lib/cli/library.h"

namespace cuscope::cli {
namespace {

constexpr char kDefaultChip[] = "GH100";

// What the flags of `cuscope metrics` give.
struct MetricsFlags {
  std::string chip, set;
  Format format = Format::kText;
  bool chips = false;
};

const FlagTable<MetricsFlags>& Flags() {
  static const auto* flags = new FlagTable<MetricsFlags>{
      Text("chip", &MetricsFlags::chip, "NAME",
           "the chip to resolve the sets for (GH100, GA100, AD102, GB100, ..., in any case, or a "
           "GPU --chips lists: H200, A100, ...; default: that of GPU 0, else GH100)"),
      Text("set", &MetricsFlags::set, "NAME",
           "list this set's metrics with what each measures (sets and metric names, comma "
           "separated, as --metrics of run takes them); default: one line per set"),
      FormatFlag(&MetricsFlags::format, {Format::kText, Format::kJson}),
      Switch("chips", &MetricsFlags::chips, "list the chips the Range Profiler supports"),
  };
  return *flags;
}

std::string Help() { return CommandHelp(kMetricsCommand.usage, kMetricsCommand.summary, Flags()); }

// The chip named, else GPU 0's, else the default with a note on stderr.
std::string ChooseChip(const MetricsLibrary& lib, const std::string& given) {
  if (!given.empty()) return given;
  std::string why;
  absl::StatusOr<std::string> visible = lib.VisibleChip(&why);
  if (visible.ok() && !visible->empty()) {
    if (lib.Check(*visible, "").code() != absl::StatusCode::kUnavailable) return *visible;
    why = absl::StrCat("GPU 0 is a ", *visible, ", which cuscope does not know");
  } else if (!visible.ok()) {
    why = std::string(visible.status().message());
  }
  std::cerr << "cuscope: metrics: " << why << "; showing " << kDefaultChip
            << " (--chip NAME for another; --chips lists them)\n";
  return kDefaultChip;
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>&) {
  MetricsFlags flags;
  absl::StatusOr<Words> args = ParseFlags(Flags(), words, &flags);
  if (!args.ok()) return UsageError("metrics", args.status().message());
  if (!args->positional.empty()) {
    return UsageError("metrics", absl::StrCat("unexpected argument \"", args->positional[0],
                                              "\"; write ", kMetricsCommand.usage));
  }
  const std::string format = FormatName(flags.format);
  absl::StatusOr<MetricsLibrary> lib = MetricsLibrary::Load();
  if (!lib.ok()) {
    std::cerr << "cuscope: metrics: " << lib.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> text =
      flags.chips ? lib->Chips(format)
                  : lib->Resolve(ChooseChip(*lib, flags.chip), flags.set, format);
  if (!text.ok()) {
    if (text.status().code() == absl::StatusCode::kInvalidArgument) {
      return UsageError("metrics", text.status().message());
    }
    std::cerr << "cuscope: metrics: " << text.status().message() << "\n";
    return 1;
  }
  std::cout << *text;
  return 0;
}

}  // namespace

const Command kMetricsCommand = {
    "metrics",
    "cuscope metrics [--chip NAME] [--set NAME] [--format text|json] [--chips]",
    "Lists the metric sets of --metrics, what each answers and their metrics as a chip "
    "collects them (substitutes where the chip names a metric differently, and what it "
    "cannot measure). Needs no GPU.",
    false,
    Help,
    Main};

}  // namespace cuscope::cli
