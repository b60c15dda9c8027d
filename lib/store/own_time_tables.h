// cuscope's own time (since schema version 6), declared for Table<Rec>::Visit
// (table.h) like every record table: one row per OwnInterval (lib/model/own_time.h).
#ifndef CUSCOPE_LIB_STORE_OWN_TIME_TABLES_H_
#define CUSCOPE_LIB_STORE_OWN_TIME_TABLES_H_

#include "lib/model/own_time.h"
#include "lib/store/table.h"

namespace cuscope::store {

template <>
struct Table<model::OwnInterval> {
  static constexpr char kName[] = "own_time";
  static constexpr char kDoc[] =
      "cuscope's own time (`OwnInterval`, since version 6): one row per interval in which the "
      "profiler itself worked on the GPU or held a thread of the program, in the order "
      "written. The analyses leave this time out of the program's (idle gaps, the first "
      "iteration, region and step durations; `lib/analysis/own_time.h`), the report prints "
      "its total, and the traces draw it on a track of its own (`cuscope`). The view "
      "`own_time_named` names each row's kind. A profile of an earlier version has no rows: "
      "the analyses then take its kernel replays from the launch calls of its kernel-replay "
      "sets.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& o, V& v) {
    v.Int("start_ns", o.start_ns, {"ns, CUPTI clock", "when cuscope's work began"});
    v.Int("end_ns", o.end_ns, {"ns, CUPTI clock", "when it ended"});
    v.Int("kind", o.kind,
          "`enum_names` `own_kind`: `kernel replay` (a launch replayed once per pass, from the "
          "Range Profiler's Start in its launch callback to the end of decoding; the launching "
          "thread is held throughout), `rotate window` or `sweep window` (a pass: a window of "
          "launches on one context run under the Range Profiler, Start to Stop; the program's "
          "launches run inside it, one at a time), `region counters` (a measured region "
          "instance's Start, or its Stop and decoding), `GPU metrics decode` (PM sampling's "
          "buffers decoded on the sampler's thread), `profile flush` (records written to this "
          "file, on the thread that flushed)");
    v.Int("thread_id", o.thread_id,
          "the thread that did the work or was held, as `api_calls.thread_id` gives it");
    v.Int("device_id", o.device_id, "`devices.id`; `4294967295` (0xffffffff) for none (a flush)");
    v.Int("context_id", o.context_id,
          "CUPTI's id of the context (`kernels.context_id`); 0 unknown");
    v.Int("first_correlation_id", o.first_correlation_id,
          "the launches involved: the first one's correlation id; 0 none");
    v.Int("last_correlation_id", o.last_correlation_id,
          "the last one's; every launch on the context between the two is involved");
    v.Int("launches", o.launches, {"launches", "how many launches are involved"});
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_OWN_TIME_TABLES_H_
