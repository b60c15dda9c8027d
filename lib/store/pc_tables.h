// PC sampling's tables (since schema version 7), declared for Table<Rec>::Visit
// (table.h) like every record table: the sampled functions, their samples per PC and
// stall reason, the line table of the sampled PCs and the text of those lines
// (lib/model/pc_samples.h).
#ifndef CUSCOPE_LIB_STORE_PC_TABLES_H_
#define CUSCOPE_LIB_STORE_PC_TABLES_H_

#include "lib/model/pc_samples.h"
#include "lib/store/table.h"

namespace cuscope::store {

template <>
struct Table<model::SampledFunction> {
  static constexpr char kName[] = "sampled_functions";
  static constexpr char kDoc[] =
      "Kernel functions seen by PC sampling (`SampledFunction`, the `source` setting; since "
      "version 7): one row per (cubin, function). Continuous PC sampling has no launch: "
      "samples belong to functions, not to kernel records; a function's kernels are the "
      "`kernels` rows whose `mangled_name_id` names the same string. `id` is unique.";
  static constexpr char kConstraints[] = "UNIQUE (id)";
  template <typename R, typename V>
  static void Visit(R& f, V& v) {
    v.Int("id", f.id, "the function's id in `pc_samples` and `pc_lines`; not 0");
    v.Int("device_id", f.device_id, "`devices.id` of the context it was first sampled on");
    v.Int("cubin_crc", f.cubin_crc,
          "CUPTI's CRC of the module's cubin (`cuptiGetCubinCrc`), as its int64 bit pattern");
    v.StrId("name_id", f.name,
            "the function's name as CUPTI gives it (mangled for C++); a function none of whose "
            "PCs has a `pc_lines` row had no line info (not built with `-lineinfo`): reports "
            "give its PC offsets");
  }
};

template <>
struct Table<model::PcSampleCount> {
  static constexpr char kName[] = "pc_samples";
  static constexpr char kDoc[] =
      "PC sample counts (`PcSampleCount`, since version 7): samples of one PC of a function "
      "with one stall reason, from one drain of CUPTI's buffers. Counts add up: a (function, "
      "PC, reason) may have several rows, one per drain that saw it. A reason whose name ends "
      "in `_not_issued` counts the samples of its base reason in which the warp did not issue; "
      "totals leave those rows out.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("function_id", s.function_id, "`sampled_functions.id`");
    v.Int("pc_offset", s.pc_offset, {"bytes", "the PC's offset from the function's start"});
    v.StrId("stall_id", s.stall,
            "CUPTI's stall reason name (`smsp__pcsamp_warps_issue_stalled_long_scoreboard`, "
            "...)");
    v.Int("samples", s.samples, {"samples", "how many times the PC was sampled with it"});
  }
};

template <>
struct Table<model::PcLine> {
  static constexpr char kName[] = "pc_lines";
  static constexpr char kDoc[] =
      "The line table of the sampled PCs (`PcLine`, since version 7), once per (function, "
      "PC), from `cuptiGetSassToSourceCorrelation` while the module was loaded. A sampled PC "
      "without a row has no line info. Only the sampled PCs are kept, never the cubin.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& l, V& v) {
    v.Int("function_id", l.function_id, "`sampled_functions.id`");
    v.Int("pc_offset", l.pc_offset, {"bytes", "the PC's offset from the function's start"});
    v.StrId("file_id", l.file, "the source file: the line table's directory and file name joined");
    v.Int("line", l.line, "1-based line number");
  }
};

template <>
struct Table<model::SourceText> {
  static constexpr char kName[] = "source_text";
  static constexpr char kDoc[] =
      "The text of the source lines of sampled PCs (`SourceText`, since version 7), once per "
      "(file, line), read while the program ran (a generated file, such as Inductor's, may be "
      "gone by report time). A line whose file was not readable has no row. Lines are cut at "
      "400 bytes and kept as valid UTF-8.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& t, V& v) {
    v.StrId("file_id", t.file, "the source file, as `pc_lines.file_id`");
    v.Int("line", t.line, "1-based line number");
    v.Text("text", t.text, "the line, without its end of line");
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_PC_TABLES_H_
