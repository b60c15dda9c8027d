#include "lib/collect/counter_notes.h"

#include "absl/strings/str_cat.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {

void CounterNotes::Note(const std::string& key, const std::string& text) {
  if (notes_.count(key) == 0) {
    notes_[key] = text;
    WriteStderr(absl::StrCat("cuscope: counters: ", text, "\n"));
  }
}

std::string CounterNotes::Get(const std::string& key) const {
  auto it = notes_.find(key);
  return it == notes_.end() ? std::string() : it->second;
}

std::map<std::string, std::string> CounterNotes::ForRunInfo() const {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : notes_) {
    if (k != "counters.config") out[k] = v;
  }
  return out;
}

int CounterNotes::NextNumbered(int limit) {
  if (numbered_ >= limit) return 0;
  return ++numbered_;
}

}  // namespace cuscope::collect
