#include "lib/report/trace_names.h"

#include "absl/strings/str_cat.h"
#include "lib/analysis/summary.h"
#include "lib/model/demangle.h"
#include "lib/model/enum_names.h"
#include "lib/report/kineto_names.h"

namespace cuscope::report {
namespace {

using analysis::HasValidTimes;
using model::Demangle;

std::tuple<int, int, int> MemcpyKey(const model::MemcpyRecord& m) {
  return {static_cast<int>(m.kind), static_cast<int>(m.src_kind), static_cast<int>(m.dst_kind)};
}

}  // namespace

TraceNames::TraceNames(const model::Profile& profile) : p_(profile) {
  kernel_index_.assign(p_.strings.size(), -1);
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    const model::KernelRecord& k = p_.kernels[i];
    if (!HasValidTimes(k)) continue;
    const model::StringId id = !p_.str(k.name).empty() ? k.name : k.mangled_name;
    if (id >= kernel_index_.size()) {  // not in the string table
      odd_kernels_[i] = kernels_.size();
      kernels_.push_back(Demangle(analysis::KernelDisplayName(p_, k)));
      continue;
    }
    int32_t& slot = kernel_index_[id];
    if (slot >= 0) continue;
    slot = static_cast<int32_t>(kernels_.size());
    kernels_.push_back(Demangle(analysis::KernelDisplayName(p_, k)));
    if (kernels_.back().rfind("nccl", 0) == 0) any_nccl_ = true;
  }
  for (const model::MemcpyRecord& m : p_.memcpys) {
    if (!HasValidTimes(m)) continue;
    std::string& name = memcpys_[MemcpyKey(m)];
    if (name.empty()) {
      name = absl::StrCat("Memcpy ", model::MemcpyKindName(m.kind), " (",
                          KinetoMemoryKind(m.src_kind), " -> ", KinetoMemoryKind(m.dst_kind), ")");
    }
  }
  for (const model::MemsetRecord& m : p_.memsets) {
    if (!HasValidTimes(m)) continue;
    std::string& name = memsets_[static_cast<int>(m.memory_kind)];
    if (name.empty()) name = absl::StrCat("Memset (", KinetoMemoryKind(m.memory_kind), ")");
  }
  for (const model::ApiRecord& a : p_.api_calls) {
    if (!HasValidTimes(a) || !p_.str(a.name).empty()) continue;
    std::string& name = unnamed_apis_[a.callback_id];
    if (name.empty()) name = absl::StrCat("<cbid ", a.callback_id, ">");
  }
}

const std::string& TraceNames::Kernel(size_t index) const {
  const model::KernelRecord& k = p_.kernels[index];
  const model::StringId id = !p_.str(k.name).empty() ? k.name : k.mangled_name;
  if (id >= kernel_index_.size()) return kernels_[odd_kernels_.at(index)];
  return kernels_[static_cast<size_t>(kernel_index_[id])];
}

const std::string& TraceNames::Memcpy(const model::MemcpyRecord& m) const {
  return memcpys_.at(MemcpyKey(m));
}

const std::string& TraceNames::Memset(const model::MemsetRecord& m) const {
  return memsets_.at(static_cast<int>(m.memory_kind));
}

const std::string& TraceNames::UnnamedApi(uint32_t callback_id) const {
  return unnamed_apis_.at(callback_id);
}

}  // namespace cuscope::report
