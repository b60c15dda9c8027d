#include "lib/model/run_notes.h"

#include <charconv>
#include <tuple>

namespace cuscope::model {
namespace {

std::string GetNote(const NoteText& v) { return v; }
std::string GetNote(const NoteCount& v) { return v ? std::to_string(*v) : std::string(); }

bool SetNote(NoteText* v, std::string_view text) {
  v->assign(text.data(), text.size());
  return true;
}

bool SetNote(NoteCount* v, std::string_view text) {
  int64_t n = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc() || ptr != end) return false;
  *v = n;
  return true;
}

std::vector<RunNoteField> MakeFields() {
  std::vector<RunNoteField> fields;
#define CUSCOPE_RUN_NOTE_FIELD_(member, type, key, doc)                                 \
  fields.push_back(RunNoteField{                                                        \
      key, NoteType::k##type, doc, [](const RunNotes& n) { return GetNote(n.member); }, \
      [](RunNotes* n, std::string_view text) { return SetNote(&n->member, text); }});
  CUSCOPE_RUN_NOTES(CUSCOPE_RUN_NOTE_FIELD_)
#undef CUSCOPE_RUN_NOTE_FIELD_
  return fields;
}

}  // namespace

bool RunNotes::operator==(const RunNotes& o) const {
  if (std::tie(settings, other) != std::tie(o.settings, o.other)) return false;
  for (const RunNoteField& f : RunNoteFields()) {
    if (f.get(*this) != f.get(o)) return false;
  }
  return true;
}

const std::vector<RunNoteField>& RunNoteFields() {
  static const std::vector<RunNoteField>* fields = new std::vector<RunNoteField>(MakeFields());
  return *fields;
}

const RunNoteField* FindRunNote(std::string_view key) {
  for (const RunNoteField& f : RunNoteFields()) {
    if (key == f.key) return &f;
  }
  return nullptr;
}

void AddNote(NoteText* note, std::string_view text) {
  if (text.empty()) return;
  if (!note->empty()) note->append("; ");
  note->append(text.data(), text.size());
}

void MergeNotes(const RunNotes& from, RunNotes* into) {
  for (const RunNoteField& f : RunNoteFields()) {
    if (std::string v = f.get(from); !v.empty()) f.set(into, v);
  }
  if (!from.settings.empty()) into->settings = from.settings;
  for (const auto& [key, value] : from.other) into->other[key] = value;
}

std::map<std::string, std::string> NotesToKeyValues(const RunNotes& notes) {
  std::map<std::string, std::string> out = notes.other;
  for (const RunNoteField& f : RunNoteFields()) {
    std::string v = f.get(notes);
    if (!v.empty()) out[f.key] = std::move(v);
  }
  for (const auto& [name, value] : notes.settings) {
    out[std::string(kSettingNotePrefix) + name] = value;
  }
  return out;
}

RunNotes NotesFromKeyValues(const std::map<std::string, std::string>& values) {
  RunNotes notes;
  for (const auto& [key, value] : values) {
    const RunNoteField* f = FindRunNote(key);
    if (f != nullptr && f->set(&notes, value)) continue;
    if (f == nullptr && key.compare(0, kSettingNotePrefix.size(), kSettingNotePrefix) == 0) {
      notes.settings.emplace_back(key.substr(kSettingNotePrefix.size()), value);
      continue;
    }
    notes.other[key] = value;
  }
  return notes;
}

std::vector<std::pair<std::string, std::string>> NotesOfGroup(const RunNotes& notes,
                                                              std::string_view group) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string prefix = std::string(group) + ".";
  for (const auto& [key, value] : NotesToKeyValues(notes)) {
    if (key.compare(0, prefix.size(), prefix) == 0)
      out.emplace_back(key.substr(prefix.size()), value);
  }
  return out;
}

}  // namespace cuscope::model
