#include "lib/config/docs_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "lib/config/setting.h"

namespace cuscope::config {
namespace {

// Plain text in a table cell: '|' would end the cell, '<' open an HTML tag.
std::string Cell(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"<", "\\<"}});
}

}  // namespace

std::string MarkdownTable() {
  std::string out =
      "| variable | `cuscope run` flag | default | accepts | what it does |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const Setting& s : Settings()) {
    std::string def = s.default_text();
    // As `cuscope run --help` writes it (dashes; --launch_skip is accepted too).
    std::string flag = s.flag;
    std::replace(flag.begin(), flag.end(), '_', '-');
    absl::StrAppend(&out, "| `", s.env, "` | `--", flag, "` | ",
                    def.empty() ? "(empty)" : absl::StrCat("`", def, "`"), " | ",
                    Cell(s.value.accepts), " | ", Cell(s.help), " |\n");
  }
  return out;
}

}  // namespace cuscope::config
