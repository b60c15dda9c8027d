#include "lib/collect/chips.h"

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

const Chip* FindChip(const std::string& name) {
  for (const Chip& c : SupportedChips()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace cuscope::collect
