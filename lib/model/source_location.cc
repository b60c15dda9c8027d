#include "lib/model/source_location.h"

#include <string>
#include <tuple>

namespace cuscope::model {

bool SourceLocation::operator==(const SourceLocation& o) const {
  return std::tie(id, kind, file, line, function) ==
         std::tie(o.id, o.kind, o.file, o.line, o.function);
}

std::string SourceLocationLabel(std::string_view file, uint32_t line) {
  if (file.empty()) return "";
  if (line == 0) return std::string(file);
  std::string label(file);
  label += ':';
  label += std::to_string(line);
  return label;
}

SourceLocationIndex::SourceLocationIndex(const std::vector<SourceLocation>& locations) {
  by_id_.reserve(locations.size());
  for (const SourceLocation& l : locations) {
    if (l.id != kNoLocation) by_id_.try_emplace(l.id, &l);  // the first row of an id
  }
}

const SourceLocation* SourceLocationIndex::Find(LocationId id) const {
  if (id == kNoLocation) return nullptr;
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

}  // namespace cuscope::model
