// ncu's raw CSV (`ncu --csv --page raw --print-units base`), gzip-compressed, as the
// recorded references in tests/data/real hold it: a header row of column names, a row
// of units, then one row per profiled launch. Numbers may carry thousands separators.
#ifndef CUSCOPE_TESTS_UNIT_NCU_CSV_H_
#define CUSCOPE_TESTS_UNIT_NCU_CSV_H_

#include <map>
#include <string>
#include <vector>

#include "tests/unit/gunzip.h"

namespace cuscope::testing {

inline std::vector<std::string> CsvFields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// "1,234.5" -> 1234.5.
inline double CsvNumber(const std::string& s) {
  std::string digits;
  for (char c : s) {
    if (c != ',') digits += c;
  }
  return std::stod(digits);
}

// The launches of one file: each a map from column name to its text. Empty when the
// file cannot be read.
inline std::vector<std::map<std::string, std::string>> LoadNcuCsv(const std::string& path) {
  std::vector<std::map<std::string, std::string>> out;
  const std::string text = Gunzip(path);
  std::vector<std::string> header;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (header.empty()) {
      if (line.rfind("\"ID\"", 0) == 0) header = CsvFields(line);
      continue;
    }
    std::vector<std::string> f = CsvFields(line);
    // The units row has no launch ID.
    if (f.size() != header.size() || f[0].empty()) continue;
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size(); ++i) row[header[i]] = f[i];
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace cuscope::testing

#endif  // CUSCOPE_TESTS_UNIT_NCU_CSV_H_
