// What the run info says about counters (the counters_* fields of model::RunNotes):
// the notes of one session, written by its strategies and read by the session after
// Stop. A note written with Note() is the first of its field to count and is also
// printed on stderr; Set() replaces silently.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_NOTES_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_NOTES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/model/run_notes.h"

namespace cuscope::collect {

class CounterNotes {
 public:
  using TextNote = model::NoteText model::RunNotes::*;
  using CountNote = model::NoteCount model::RunNotes::*;

  // The first text of `note` is kept and printed ("cuscope: counters: TEXT").
  void Note(TextNote note, std::string text);
  void Set(TextNote note, std::string text) { notes_.*note = std::move(text); }
  void Set(CountNote note, int64_t n) { notes_.*note = n; }
  // The text of `note` ("" when none).
  const std::string& Get(TextNote note) const { return notes_.*note; }
  // A verbose line: printed and appended to counters_log while fewer than `limit`
  // lines were logged (one count for every caller); false once past it.
  bool Log(int limit, const std::string& text);
  // Every note but the verbose-only counters_config.
  model::RunNotes ForRunInfo() const;

 private:
  model::RunNotes notes_;
  int logged_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_NOTES_H_
