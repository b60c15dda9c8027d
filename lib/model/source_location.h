// Source locations: where in the program's source a record comes from. One table per
// profile (Profile::source_locations), shared by every kind of site: C/C++ scope
// sites (CUSCOPE_SCOPE) and Python call sites (the PyTorch hook's line ranges); kernel
// source lines would be a further kind of the same table. Records refer to a location by its id; id
// 0 is none.
#ifndef CUSCOPE_LIB_MODEL_SOURCE_LOCATION_H_
#define CUSCOPE_LIB_MODEL_SOURCE_LOCATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace cuscope::model {

using StringId = uint32_t;  // as profile.h: an id in Profile::strings

using LocationId = uint32_t;
inline constexpr LocationId kNoLocation = 0;

// What kind of site a location is. Stored by value: add kinds at the end.
enum class SourceLocationKind : uint8_t {
  kScope = 0,   // a C/C++ scope site: CUSCOPE_SCOPE / cuscope_range_push_at
  kPython = 1,  // a Python line that called into torch: cuscope_range_push_python
};

struct SourceLocation {
  LocationId id = kNoLocation;  // unique in a profile, not 0
  SourceLocationKind kind = SourceLocationKind::kScope;
  StringId file = 0;      // the path as the compiler spelled it (__FILE__); "" if unknown
  uint32_t line = 0;      // 1-based; 0 if unknown
  StringId function = 0;  // the enclosing function's name (__func__); "" if unknown
  bool operator==(const SourceLocation& o) const;
};

// "file:line" of a location whose file is `file` (Profile::str(location.file)):
// "file" when the line is unknown, "" when the file is.
std::string SourceLocationLabel(std::string_view file, uint32_t line);

// A profile's locations by id.
class SourceLocationIndex {
 public:
  explicit SourceLocationIndex(const std::vector<SourceLocation>& locations);
  // The location of `id`, or nullptr (kNoLocation, or an id the table lacks).
  const SourceLocation* Find(LocationId id) const;

 private:
  absl::flat_hash_map<LocationId, const SourceLocation*> by_id_;
};

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_SOURCE_LOCATION_H_
