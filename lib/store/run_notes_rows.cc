#include "lib/store/run_notes_rows.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/store/schema.h"

namespace cuscope::store {

std::vector<std::pair<std::string, std::string>> NotesToMetaRows(const model::RunNotes& notes) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (auto& [key, value] : model::NotesToKeyValues(notes)) {
    rows.emplace_back(absl::StrCat(kExtraPrefix, key), std::move(value));
  }
  return rows;
}

std::string_view LegacyNoteKey(std::string_view key) {
  // Traces before the rank's notes were written read these (the launcher's names).
  static constexpr std::pair<std::string_view, std::string_view> kLegacy[] = {
      {"WORLD_SIZE", "world_size"}, {"LOCAL_RANK", "local_rank"}};
  for (const auto& [old_key, key_now] : kLegacy) {
    if (key == old_key) return key_now;
  }
  return {};
}

model::RunNotes NotesFromMeta(const std::map<std::string, std::string>& meta) {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> legacy;
  const size_t prefix = sizeof(kExtraPrefix) - 1;
  for (const auto& [key, value] : meta) {
    if (!absl::StartsWith(key, kExtraPrefix)) continue;
    std::string note_key = key.substr(prefix);
    if (std::string_view now = LegacyNoteKey(note_key); !now.empty()) {
      legacy.emplace(std::string(now), value);
    } else {
      values[std::move(note_key)] = value;
    }
  }
  for (auto& [key, value] : legacy) values.emplace(key, std::move(value));  // current key wins
  return model::NotesFromKeyValues(values);
}

}  // namespace cuscope::store
