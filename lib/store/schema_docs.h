// The parts of docs/profile-format.md made from the schema's declarations (table.h,
// schema.h), so that the file cannot drift from the code:
// tests/unit/store_schema_docs_test.cc fails when the file's copies differ, and
// rewrites them with CUSCOPE_UPDATE_DOCS=1.
#ifndef CUSCOPE_LIB_STORE_SCHEMA_DOCS_H_
#define CUSCOPE_LIB_STORE_SCHEMA_DOCS_H_

#include <string>

namespace cuscope::store {

// The Markdown table of the meta keys: `format`, `schema_version`, the run's keys
// (VisitRunInfo) and `extra.<name>`; one line per key, each ending in '\n'.
std::string MetaKeysMarkdown();

// For each table of ProfileTables, then FindingsTables: a "### `name`" heading, the
// table's doc, its constraints, and a Markdown table of its columns (column, type,
// unit, meaning), sections separated by blank lines; ends in '\n'.
std::string TablesMarkdown();

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_SCHEMA_DOCS_H_
