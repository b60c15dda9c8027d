// The JSON and CSV reports print the same run fields, from one list (run_fields.h).
#include "lib/report/run_fields.h"

#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/report/csv.h"
#include "lib/report/json.h"
#include "lib/report/report_data.h"
#include "rapidjson/document.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using testing::ProfileBuilder;

TEST(RunFields, JsonAndCsvPrintTheSameFieldsInOrder) {
  ProfileBuilder b;
  b.Kernel("k", 1000, 2000);
  b.profile().run.start_ns = 500;
  b.profile().run.end_ns = 9000;
  b.profile().run.notes.other["note"] = "x";
  const ReportData data = BuildReport(b.profile());

  std::ostringstream csv_out;
  WriteCsv(data, {}, csv_out);
  std::istringstream csv(csv_out.str());
  std::vector<std::string> csv_keys;
  std::string line;
  std::getline(csv, line);  // # run
  std::getline(csv, line);  // key,value
  while (std::getline(csv, line) && !line.empty())
    csv_keys.push_back(line.substr(0, line.find(',')));

  std::ostringstream json_out;
  WriteJson(data, {}, json_out);
  rapidjson::Document doc;
  doc.Parse(json_out.str().c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(doc.MemberBegin()->name.GetString(), std::string("schema_version"));
  EXPECT_EQ(doc["schema_version"].GetInt(), kJsonSchemaVersion);

  std::vector<std::string> declared, json_keys;
  for (const RunField& f : RunFields()) {
    declared.push_back(f.key);
    const char* object = f.group == RunField::Group::kRun ? "run" : "counts";
    EXPECT_TRUE(doc[object].HasMember(f.key)) << object << "." << f.key;
  }
  for (const char* object : {"run", "counts"}) {
    for (auto it = doc[object].MemberBegin(); it != doc[object].MemberEnd(); ++it) {
      if (std::string(it->name.GetString()) != "extra") json_keys.push_back(it->name.GetString());
    }
  }
  declared.push_back("extra.note");
  EXPECT_EQ(csv_keys, declared);
  EXPECT_EQ(json_keys.size() + 1, declared.size());
  EXPECT_EQ(doc["run"]["end_ns"].GetUint64(), 9000u);
  EXPECT_NE(csv_out.str().find("\nend_ns,9000\n"), std::string::npos);
}

}  // namespace
}  // namespace cuscope::report
