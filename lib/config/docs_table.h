// docs/configuration.md's table of settings, made from the rows (setting.h);
// tests/unit/config_test.cc fails when the file's copy differs.
#ifndef CUSCOPE_LIB_CONFIG_DOCS_TABLE_H_
#define CUSCOPE_LIB_CONFIG_DOCS_TABLE_H_

#include <string>

namespace cuscope::config {

// A Markdown table: variable, `cuscope run` flag, default, accepts, what it does;
// one line per setting, each line ending in '\n'.
std::string MarkdownTable();

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_DOCS_TABLE_H_
