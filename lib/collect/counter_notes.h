// What the run info says about counters ("counters.*" keys): the notes of one
// session, written by its strategies and read by the session after Stop. A note
// written with Note() is the first of its key to count and is also printed on stderr;
// Set() replaces silently.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_NOTES_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_NOTES_H_

#include <map>
#include <string>

namespace cuscope::collect {

class CounterNotes {
 public:
  // The first text of `key` is kept and printed ("cuscope: counters: TEXT").
  void Note(const std::string& key, const std::string& text);
  void Set(const std::string& key, const std::string& text) { notes_[key] = text; }
  // The text of `key` ("" when none).
  std::string Get(const std::string& key) const;
  // Every note but the verbose-only "counters.config".
  std::map<std::string, std::string> ForRunInfo() const;
  // Numbered verbose notes ("counters.windowN", "counters.decodeN"): the next number
  // while fewer than `limit` were written, else 0. One count for both kinds.
  int NextNumbered(int limit);

 private:
  std::map<std::string, std::string> notes_;
  int numbered_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_NOTES_H_
