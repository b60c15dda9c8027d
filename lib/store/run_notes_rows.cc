#include "lib/store/run_notes_rows.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/store/schema.h"

namespace cuscope::store {

MetaRows NotesToMetaRows(const model::RunNotes& notes) {
  model::RunNotes rest = notes;
  rest.settings.clear();
  MetaRows rows;
  for (auto& [key, value] : model::NotesToKeyValues(rest)) {
    rows.emplace_back(absl::StrCat(kExtraPrefix, key), std::move(value));
  }
  for (const auto& [name, value] : notes.settings) {
    rows.emplace_back(absl::StrCat(kExtraPrefix, std::string(model::kSettingNotePrefix), name),
                      value);
  }
  return rows;
}

std::string_view LegacyNoteKey(std::string_view key) {
  // Traces read these before the rank's notes were declared (the launchers' names).
  static constexpr std::pair<std::string_view, std::string_view> kLegacy[] = {
      {"WORLD_SIZE", "world_size"}, {"LOCAL_RANK", "local_rank"}};
  for (const auto& [old_key, key_now] : kLegacy) {
    if (key == old_key) return key_now;
  }
  return {};
}

model::RunNotes NotesFromMeta(const MetaRows& rows) {
  const std::string setting_prefix =
      absl::StrCat(kExtraPrefix, std::string(model::kSettingNotePrefix));
  std::map<std::string, std::string> values, legacy;
  std::vector<std::pair<std::string, std::string>> settings;
  for (const auto& [key, value] : rows) {
    if (!absl::StartsWith(key, kExtraPrefix)) continue;
    if (absl::StartsWith(key, setting_prefix)) {
      settings.emplace_back(key.substr(setting_prefix.size()), value);
      continue;
    }
    std::string note_key = key.substr(sizeof(kExtraPrefix) - 1);
    if (std::string_view now = LegacyNoteKey(note_key); !now.empty()) {
      legacy.emplace(std::string(now), value);
    } else {
      values[std::move(note_key)] = value;
    }
  }
  for (auto& [key, value] : legacy) values.emplace(key, std::move(value));  // current key wins
  model::RunNotes notes = model::NotesFromKeyValues(values);
  notes.settings = std::move(settings);
  return notes;
}

}  // namespace cuscope::store
