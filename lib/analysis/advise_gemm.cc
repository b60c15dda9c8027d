// The misaligned GEMM rule: a tensor-core kernel (FP16, BF16, TF32 or FP8) built for
// operands aligned to less than 16 bytes (CUTLASS's `alignN` in its name, N elements). cuBLAS picks
// one when a dimension or leading dimension of the GEMM is not a multiple of 16 bytes (8 BF16
// elements): an odd vocabulary (GPT-2's 50,257) sends a language model's output layer
// to a Turing-era `cutlass_75_..._align1` kernel, several times slower than the step's
// aligned GEMMs of its precision (docs/advisor.md has a GPT-2 step's numbers).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/analysis/advise_rules.h"
#include "lib/analysis/summary.h"

namespace cuscope::analysis::advise {
namespace {

// The tensor precisions whose fast kernels want 16-byte aligned operands: an operand
// element's bytes and its name in the advice. Not INT8: cuBLAS's INT8 GEMMs in the NN
// layout run CUTLASS's `..._align4` wmma kernels with aligned operands (the layout picks
// them: docs/validation.md, "Facts the code relies on"). Not FP64: CUTLASS's DMMA GEMMs
// exist only as `align1`.
struct Element {
  Precision precision;
  int bytes;
  const char* name;
};
constexpr Element kElements[] = {{Precision::kTensorFp16, 2, "FP16"},
                                 {Precision::kTensorBf16, 2, "BF16"},
                                 {Precision::kTensorTf32, 4, "FP32 (TF32)"},
                                 {Precision::kTensorFp8, 1, "FP8"}};

// The element of `p`, or null for the other precisions.
const Element* ElementOf(Precision p) {
  for (const Element& e : kElements) {
    if (e.precision == p) return &e;
  }
  return nullptr;
}

// A GEMM by its name (cuBLAS's nvjet and xmma kernels, CUTLASS's and cuBLAS's
// "gemm"): what may serve as the aligned reference (not attention or convolution).
bool GemmNamed(const std::string& name) {
  return name.find("gemm") != std::string::npos || name.find("nvjet") != std::string::npos ||
         name.find("xmma") != std::string::npos;
}

// The number after the last "align" of `name` followed by digits, 0 when none.
int AlignmentOf(const std::string& name) {
  int found = 0;
  for (size_t at = name.find("align"); at != std::string::npos; at = name.find("align", at + 1)) {
    const size_t digits = at + 5;
    if (digits < name.size() && name[digits] >= '1' && name[digits] <= '9') {
      found = std::atoi(name.c_str() + digits);
    }
  }
  return found;
}

// The architecture a CUTLASS kernel was built for ("cutlass_75_...", "sm80_..."), 0
// when the name does not say.
int BuiltFor(const std::string& name) {
  for (const char* prefix : {"cutlass_", "sm"}) {
    for (size_t at = name.find(prefix); at != std::string::npos; at = name.find(prefix, at + 1)) {
      const size_t d = at + std::string(prefix).size();
      if (d + 2 <= name.size() && std::isdigit(static_cast<unsigned char>(name[d])) &&
          std::isdigit(static_cast<unsigned char>(name[d + 1])) &&
          (d + 2 == name.size() || !std::isdigit(static_cast<unsigned char>(name[d + 2])))) {
        return (name[d] - '0') * 10 + (name[d + 1] - '0');
      }
    }
  }
  return 0;
}

int DeviceArch(const model::Profile& p, uint32_t device_id) {
  for (const model::DeviceInfo& d : p.devices) {
    if (d.id == device_id) return d.compute_major * 10 + d.compute_minor;
  }
  return 0;
}

// The tensor precision a GEMM's name declares ("bf16", "f16", "tf32", "e4m3"), null when
// it names none of the four, or INT8 or FP64 (which the rule leaves alone).
const Element* ElementNamed(const std::string& name) {
  for (const char* skip : {"f64", "dgemm", "dmma", "s8", "i8", "int8", "imma"}) {
    if (name.find(skip) != std::string::npos) return nullptr;
  }
  if (name.find("bf16") != std::string::npos) return ElementOf(Precision::kTensorBf16);
  if (name.find("tf32") != std::string::npos) return ElementOf(Precision::kTensorTf32);
  if (name.find("e4m3") != std::string::npos || name.find("e5m2") != std::string::npos) {
    return ElementOf(Precision::kTensorFp8);
  }
  if (name.find("f16") != std::string::npos || name.find("h1688") != std::string::npos ||
      name.find("h16816") != std::string::npos) {
    return ElementOf(Precision::kTensorFp16);
  }
  return nullptr;
}

// The word of `name` around its last "align" ("cutlass_75_..._align1"): what
// --kernels=... matches it by; "" when none.
std::string NameWord(const std::string& name) {
  const size_t at = name.rfind("align");
  if (at == std::string::npos) return "";
  auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  size_t b = at, e = at;
  while (b > 0 && word(name[b - 1])) --b;
  while (e < name.size() && word(name[e])) ++e;
  return name.substr(b, e - b);
}

// A kernel name on one device, from its kernel records.
struct NamedKernel {
  uint64_t ns = 0, launches = 0;
  const model::KernelRecord* first = nullptr;
};

// Gains guessed from the name alone (docs/advisor.md, "By kernel names"): the share of
// the kernel's time a padded or current-architecture GEMM would save. The GPT-2 step
// measured with counters saved more (0.74 to 0.84 of its misaligned GEMMs' time).
constexpr double kMisalignedShare = 0.5;
constexpr double kOldArchShare = 0.25;

// Whether a counter set counted tensor-core FLOPs (sm__ops_path_tensor_*): what the
// counter rule needs to judge a GEMM; the default `verdict` set does not.
bool CountsTensorFlops(const model::Profile& p, const model::CounterSet& s) {
  for (const auto& [metric, value] : s.values) {
    if (absl::StartsWith(p.str(metric), "sm__ops_path_tensor")) return true;
  }
  return false;
}

void NamedGemm(const Context& c, const std::string& name, const NamedKernel& k, bool measured,
               std::vector<model::Finding>& out) {
  const int built = BuiltFor(name), arch = DeviceArch(c.profile, k.first->device_id);
  const Element* e = ElementNamed(name);
  // A tensor-core GEMM only: cuBLAS's FP32 (ffma) GEMMs on sm_90 are sm80 designs.
  const bool old_arch = e != nullptr && built > 0 && built < 90 && arch >= 90;
  const int alignment = AlignmentOf(name);
  const bool misaligned = e != nullptr && alignment > 0 && alignment * e->bytes < 16;
  if (!misaligned && !old_arch) return;
  const double share = misaligned ? kMisalignedShare : kOldArchShare;
  model::Finding f = c.Make(misaligned ? "misaligned_gemm" : "old_arch_gemm",
                            static_cast<double>(k.ns) * share, model::GainBasis::kGpu);
  f.kernel = name;
  f.device_id = k.first->device_id;
  if (!c.Keeps(f)) return;
  const double pct =
      c.kernel_ns > 0 ? 100.0 * static_cast<double>(k.ns) / static_cast<double>(c.kernel_ns) : 0;
  std::string what = misaligned
                         ? absl::StrFormat(
                               "%s GEMM in a kernel for operands aligned to "
                               "%d element%s (%d bytes)",
                               e->name, alignment, alignment == 1 ? "" : "s", alignment * e->bytes)
                         : std::string("GEMM");
  if (old_arch) {
    absl::StrAppend(
        &what, misaligned ? ", " : " in ",
        absl::StrFormat("a design for sm_%d on this sm_%d GPU (mma.sync, no TMA)", built, arch));
  }
  const std::string word = NameWord(name);
  f.summary = absl::StrFormat(
      "%s, by its name: %s in %d launch%s (%s of GPU kernel time); the gain assumes %s of it "
      "(%s would confirm it%s)",
      what, Dur(static_cast<double>(k.ns)), k.launches, k.launches == 1 ? "" : "es", Pct(pct),
      misaligned ? "half" : "a quarter",
      measured ? "measured without tensor FLOP counters: the roofline set"
               : "no counters: counters",
      word.empty() ? "" : absl::StrCat(", cuscope run --metrics=roofline --kernels=", word));
  f.advice =
      misaligned
          ? absl::StrFormat(
                "cuBLAS (or CUTLASS) takes such a kernel when a GEMM dimension, a leading "
                "dimension or an operand's start is not a multiple of 16 bytes (%d %s "
                "elements): pad the dimension to a multiple of %d (64 is better). In a language "
                "model it is usually the vocabulary (GPT-2's 50257 -> 50304).",
                16 / e->bytes, e->name, 16 / e->bytes)
          : "cuBLAS took a kernel designed for an older GPU: it has no kernel of this GPU's "
            "design for the shape or alignment (pad dimensions to multiples of 16 bytes), or "
            "the library was built without one (update CUDA or the framework).";
  f.evidence = {{"kernel_time_ns", static_cast<double>(k.ns)},
                {"launches", static_cast<double>(k.launches)},
                {"assumed_share", share},
                {"from_name", 1.0}};
  if (alignment > 0) f.evidence.emplace_back("alignment_elements", alignment);
  if (built > 0) f.evidence.emplace_back("built_for_sm", built);
  out.push_back(std::move(f));
}

}  // namespace

void GemmNames(const Context& c, std::vector<model::Finding>& out) {
  // Names (per device) with counter sets that counted tensor FLOPs are the counter
  // rule's to judge; those measured without them (the default set) are judged by name.
  std::set<std::pair<uint32_t, std::string>> judged, measured;
  for (const model::CounterSet& s : c.profile.counters) {
    measured.emplace(s.device_id, c.profile.str(s.name));
    if (CountsTensorFlops(c.profile, s)) judged.emplace(s.device_id, c.profile.str(s.name));
  }
  std::map<std::pair<uint32_t, std::string>, NamedKernel> by_name;
  for (const model::KernelRecord& k : c.profile.kernels) {
    if (!HasValidTimes(k)) continue;
    const std::string& name = c.profile.str(k.name);
    if (!GemmNamed(name)) continue;
    NamedKernel& n = by_name[{k.device_id, name}];
    n.ns += k.duration_ns();
    ++n.launches;
    if (n.first == nullptr) n.first = &k;
  }
  for (const auto& [key, k] : by_name) {
    if (judged.count(key) == 0) NamedGemm(c, key.second, k, measured.count(key) > 0, out);
  }
}

Misalignment MisalignmentOf(const KernelCounters& k) {
  Misalignment m;
  const Element* e = ElementOf(k.dominant);
  if (k.tensor_flops <= 0 || e == nullptr) return m;
  m.element_bytes = e->bytes;
  m.alignment = AlignmentOf(k.name);
  m.misaligned = m.alignment > 0 && m.alignment * m.element_bytes < 16;
  return m;
}

std::vector<AlignedBest> BestAlignedGemms(const std::vector<KernelCounters>& kernels) {
  std::vector<AlignedBest> best;
  for (const KernelCounters& k : kernels) {
    if (k.region || k.tensor_flops <= 0 || !IsTensor(k.dominant) || !GemmNamed(k.name) ||
        MisalignmentOf(k).misaligned) {
      continue;
    }
    const double pct = k.flops_of(k.dominant).pct_of_peak;
    auto it = std::find_if(best.begin(), best.end(), [&](const AlignedBest& b) {
      return b.device_id == k.device_id && b.precision == k.dominant;
    });
    if (it == best.end()) {
      best.push_back({k.device_id, k.dominant, pct, k.name});
    } else if (pct > it->pct) {
      it->pct = pct;
      it->kernel = k.name;
    }
  }
  return best;
}

bool MisalignedGemm(const Context& c, const KernelCounters& k,
                    const std::vector<AlignedBest>& aligned, std::vector<model::Finding>& out) {
  const Misalignment m = MisalignmentOf(k);
  if (!m.misaligned) return false;
  const double pct = k.flops_of(k.dominant).pct_of_peak;
  // What the same precision reaches when aligned: the best aligned GEMM of the profile,
  // else the threshold.
  double reference = c.t.aligned_gemm_pct;
  std::string reference_kernel;
  for (const AlignedBest& b : aligned) {
    if (b.device_id == k.device_id && b.precision == k.dominant && b.pct > 0) {
      reference = b.pct;
      reference_kernel = b.kernel.size() > 60 ? b.kernel.substr(0, 57) + "..." : b.kernel;
    }
  }
  if (pct <= 0 || reference <= pct) return false;
  const double share = 1.0 - pct / reference;
  model::Finding f = c.Make("misaligned_gemm", static_cast<double>(k.total_time_ns) * share,
                            model::GainBasis::kGpu);
  f.kernel = k.name;
  f.device_id = k.device_id;
  if (!c.Keeps(f)) return false;
  const int built = BuiltFor(k.name), arch = DeviceArch(c.profile, k.device_id);
  const std::string older =
      built > 0 && arch > built
          ? absl::StrFormat(", a design for sm_%d on this sm_%d GPU%s", built, arch,
                            built < 90 && arch >= 90 ? " (mma.sync, no TMA)" : "")
          : "";
  f.summary = absl::StrFormat(
      "GEMM in %s at %s of the %s roof, in a kernel for operands aligned to %d element%s "
      "(%d bytes)%s; %s",
      ElementOf(k.dominant)->name, Pct(pct), PrecisionName(k.dominant), m.alignment,
      m.alignment == 1 ? "" : "s", m.alignment * m.element_bytes, older,
      reference_kernel.empty()
          ? absl::StrFormat("a GEMM with aligned operands is expected to reach %s", Pct(reference))
          : absl::StrFormat("the best aligned %s GEMM of this profile (another shape) reaches "
                            "%s: %s",
                            ElementOf(k.dominant)->name, Pct(reference), reference_kernel));
  f.advice = absl::StrFormat(
      "cuBLAS (or CUTLASS) takes such a kernel when a GEMM dimension, a leading dimension or "
      "an operand's start is not a multiple of 16 bytes (%d %s elements): pad the dimension "
      "to a multiple of %d (64 is better), and do not start operands at an odd offset (a "
      "slice). In a language model it is usually the vocabulary (GPT-2's 50257 -> 50304) of "
      "the output layer and its tied embedding; else the hidden, batch x sequence or head "
      "sizes.",
      16 / m.element_bytes, ElementOf(k.dominant)->name, 16 / m.element_bytes);
  f.evidence = {{"tensor_pct_of_peak", pct},
                {"aligned_reference_pct", reference},
                {"alignment_elements", static_cast<double>(m.alignment)},
                {"element_bytes", static_cast<double>(m.element_bytes)},
                {"kernel_time_ns", static_cast<double>(k.total_time_ns)}};
  if (built > 0) f.evidence.emplace_back("built_for_sm", static_cast<double>(built));
  out.push_back(std::move(f));
  return true;
}

}  // namespace cuscope::analysis::advise
