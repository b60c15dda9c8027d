// The run's notes (model::RunNotes) in the meta table: each note that is set as one
// row, its key the note's stored key after "extra." (schema.h, kExtraPrefix), its
// value as text; the settings as "extra.setting.<name>" rows in their order. Every
// schema version stores them so; files written before the notes were declared fields
// hold the same keys, and a few older spellings (LegacyNoteKey).
#ifndef CUSCOPE_LIB_STORE_RUN_NOTES_ROWS_H_
#define CUSCOPE_LIB_STORE_RUN_NOTES_ROWS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/model/run_notes.h"

namespace cuscope::store {

using MetaRows = std::vector<std::pair<std::string, std::string>>;

// The meta rows of `notes`: ("extra.<key>", text) sorted by key, then the settings'
// rows in the order of `notes.settings` (the settings table's).
MetaRows NotesToMetaRows(const model::RunNotes& notes);

// The notes among a file's meta rows, in the order written (the "extra.*" keys;
// others are not notes). Declared keys land in their fields, "extra.setting.<name>"
// in the settings (in the rows' order), older spellings in the field they name now
// (unless the file also holds the current key), anything else in `other`.
model::RunNotes NotesFromMeta(const MetaRows& rows);

// The key an older version's reader accepted for a note, as it is declared now
// ("WORLD_SIZE" -> "world_size"); "" when `key` is no older spelling.
std::string_view LegacyNoteKey(std::string_view key);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_RUN_NOTES_ROWS_H_
