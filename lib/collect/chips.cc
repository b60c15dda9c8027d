#include "lib/collect/chips.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace cuscope::collect {

// Each name was checked with the Host API of CUDA 13.0 (cuptiProfilerHostInitialize
// accepts it); tests/unit/chips_test.cc keeps it so.
const std::vector<Chip>& SupportedChips() {  // lint: table
  static const auto* chips = new std::vector<Chip>{
      {"TU102", "Turing", "TITAN RTX, RTX 2080 Ti, Quadro RTX 6000/8000"},
      {"TU104", "Turing", "RTX 2080, RTX 2070 Super, T4"},
      {"TU106", "Turing", "RTX 2070, RTX 2060"},
      {"TU116", "Turing", "GTX 1660, GTX 1660 Ti"},
      {"TU117", "Turing", "GTX 1650, T400, T600"},
      {"GA100", "Ampere", "A100, A30"},
      {"GA102", "Ampere", "RTX 3090, RTX 3080, A40, A10, RTX A6000"},
      {"GA103", "Ampere", "RTX 3080 Ti Laptop"},
      {"GA104", "Ampere", "RTX 3070, RTX 3060 Ti, A4000"},
      {"GA106", "Ampere", "RTX 3060, A2000"},
      {"GA107", "Ampere", "RTX 3050, A2"},
      {"GA10B", "Ampere", "Jetson AGX Orin, Orin NX"},
      {"AD102", "Ada", "RTX 4090, L40S, L40, RTX 6000 Ada"},
      {"AD103", "Ada", "RTX 4080"},
      {"AD104", "Ada", "RTX 4070 Ti, RTX 4070, L4"},
      {"AD106", "Ada", "RTX 4060 Ti"},
      {"AD107", "Ada", "RTX 4060"},
      {"GH100", "Hopper", "H100, H200, GH200"},
      {"GB100", "Blackwell", "B200, GB200"},
      {"GB102", "Blackwell", ""},
      {"GB110", "Blackwell", ""},
      {"GB10B", "Blackwell", "GB10 (DGX Spark)"},
      {"GB20B", "Blackwell", ""},
      {"GB202", "Blackwell", "RTX 5090, RTX PRO 6000 Blackwell"},
      {"GB203", "Blackwell", "RTX 5080, RTX 5070 Ti"},
      {"GB205", "Blackwell", "RTX 5070"},
      {"GB206", "Blackwell", "RTX 5060 Ti, RTX 5060"},
      {"GB207", "Blackwell", "RTX 5050"},
  };
  return *chips;
}

namespace {

// Lower case without spaces and dashes: "RTX 4090" and "rtx-4090" are one name.
std::string Folded(absl::string_view name) {
  std::string out;
  for (char c : name) {
    if (c != ' ' && c != '-') out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::vector<std::string> ChipGpus(const Chip& chip) {
  std::vector<std::string> out;
  for (absl::string_view gpu : absl::StrSplit(chip.gpus, ',', absl::SkipWhitespace())) {
    gpu = absl::StripAsciiWhitespace(gpu);
    const size_t paren = gpu.find(" (");
    if (paren != absl::string_view::npos && absl::EndsWith(gpu, ")")) {
      out.emplace_back(gpu.substr(0, paren));
      gpu = gpu.substr(paren + 2, gpu.size() - paren - 3);
    }
    out.emplace_back(gpu);
  }
  return out;
}

const Chip* FindChip(const std::string& name) {
  const std::string folded = Folded(name);
  if (folded.empty()) return nullptr;
  for (const Chip& c : SupportedChips()) {
    if (folded == Folded(c.name)) return &c;
  }
  for (const Chip& c : SupportedChips()) {
    for (const std::string& gpu : ChipGpus(c)) {
      if (folded == Folded(gpu)) return &c;
    }
  }
  return nullptr;
}

std::string AcceptedChipNames() {
  std::vector<std::string> names;
  for (const Chip& c : SupportedChips()) names.emplace_back(c.name);
  return absl::StrCat(absl::StrJoin(names, ", "),
                      " (any case), or a GPU of theirs as --chips lists them (H100, H200, A100, "
                      "L40S, RTX 4090, B200, ...)");
}

}  // namespace cuscope::collect
