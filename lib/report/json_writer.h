// The few RapidJSON helpers the JSON writers share (report and diff): a pretty
// writer, string keys and values from string_views, and finite numbers.
#ifndef CUSCOPE_LIB_REPORT_JSON_WRITER_H_
#define CUSCOPE_LIB_REPORT_JSON_WRITER_H_

#include <cmath>
#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "lib/model/utf8.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace cuscope::report::json {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// Strings that are not valid UTF-8 (a file name from the command line, say) are
// written with U+FFFD for each bad byte, so that the document stays valid JSON. For
// any RapidJSON writer (the HTML report's is compact).
template <typename W = Writer>
inline void Str(W& w, absl::string_view s) {
  if (!model::IsValidUtf8({s.data(), s.size()})) {
    const std::string valid = model::ReplaceInvalidUtf8({s.data(), s.size()});
    w.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    return;
  }
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
template <typename W = Writer>
inline void Key(W& w, absl::string_view k) {
  if (!model::IsValidUtf8({k.data(), k.size()})) {
    const std::string valid = model::ReplaceInvalidUtf8({k.data(), k.size()});
    w.Key(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    return;
  }
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
// NaN and infinity are written as 0.
inline void Num(Writer& w, double v) { w.Double(std::isfinite(v) ? v : 0.0); }

// A document written with two-space indents, then copied to `out` with a final newline.
class Document {
 public:
  Document() : writer_(buffer_) { writer_.SetIndent(' ', 2); }
  Writer& writer() { return writer_; }
  void WriteTo(std::ostream& out) const {
    out.write(buffer_.GetString(), static_cast<std::streamsize>(buffer_.GetSize()));
    out << "\n";
  }

 private:
  rapidjson::StringBuffer buffer_;
  Writer writer_;
};

}  // namespace cuscope::report::json

#endif  // CUSCOPE_LIB_REPORT_JSON_WRITER_H_
