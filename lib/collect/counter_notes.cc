#include "lib/collect/counter_notes.h"

#include "absl/strings/str_cat.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {

void CounterNotes::Note(TextNote note, std::string text) {
  std::string& held = notes_.*note;
  if (!held.empty()) return;
  WriteStderr(absl::StrCat("cuscope: counters: ", text, "\n"));
  held = std::move(text);
}

bool CounterNotes::Log(int limit, const std::string& text) {
  if (logged_ >= limit) return false;
  ++logged_;
  WriteStderr(absl::StrCat("cuscope: counters: ", text, "\n"));
  model::AddNote(&notes_.counters_log, text);
  return true;
}

model::RunNotes CounterNotes::ForRunInfo() const {
  model::RunNotes out = notes_;
  out.counters_config.clear();
  return out;
}

}  // namespace cuscope::collect
