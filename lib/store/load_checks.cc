#include "lib/store/load_checks.h"

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"

namespace cuscope::store {

std::string DuplicateDeviceId(const std::vector<model::DeviceInfo>& devices) {
  absl::flat_hash_map<uint32_t, size_t> row_of;  // id -> row
  for (size_t i = 0; i < devices.size(); ++i) {
    auto [it, inserted] = row_of.try_emplace(devices[i].id, i + 1);
    if (!inserted) {
      return absl::StrFormat(
          "devices row %d: column id holds %d, expected an id no other row has (row %d has it)",
          i + 1, devices[i].id, it->second);
    }
  }
  return "";
}

namespace {

template <typename Rec>
std::string UnknownFunction(const char* table, const std::vector<Rec>& rows,
                            const absl::flat_hash_set<uint32_t>& ids) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!ids.contains(rows[i].function_id)) {
      return absl::StrFormat(
          "%s row %d: column function_id holds %d, expected the id of a sampled_functions row",
          table, i + 1, rows[i].function_id);
    }
  }
  return "";
}

}  // namespace

std::string CheckLoadedPcSamples(const model::Profile& profile) {
  absl::flat_hash_set<uint32_t> ids;
  for (size_t i = 0; i < profile.sampled_functions.size(); ++i) {
    const uint32_t id = profile.sampled_functions[i].id;
    if (id == 0 || !ids.insert(id).second) {
      return absl::StrFormat(
          "sampled_functions row %d: column id holds %d, expected an id above 0 that no other "
          "row has",
          i + 1, id);
    }
  }
  if (std::string e = UnknownFunction("pc_samples", profile.pc_samples, ids); !e.empty()) return e;
  return UnknownFunction("pc_lines", profile.pc_lines, ids);
}

}  // namespace cuscope::store
