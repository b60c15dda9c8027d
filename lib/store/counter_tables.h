// Hardware counters' tables of the profile file, declared for Table<Rec>::Visit
// (table.h).
//
// A CounterSet holds two lists, so it is saved as three tables of plain rows
// (CounterSetRow, CounterLaunchRow, CounterValueRow below): the writer flattens the
// sets into rows and the loader puts them back together by set id. A set's id is its
// position in the file: the writer numbers sets 1, 2, ... in the order they are
// appended, so ordering counter_sets by id (its rowid) gives the sets in insertion
// order, and the rows of counter_launches and counter_values, in rowid order, give
// each set's lists in order.
#ifndef CUSCOPE_LIB_STORE_COUNTER_TABLES_H_
#define CUSCOPE_LIB_STORE_COUNTER_TABLES_H_

#include <cstdint>

#include "lib/model/profile.h"
#include "lib/store/table.h"

namespace cuscope::store {

struct CounterSetRow {
  int64_t id = 0;
  uint32_t device_id = 0;
  model::StringId name = model::kEmptyString;
  model::Dim3 grid, block;
  model::CounterStrategy strategy = model::CounterStrategy::kRotate;
  uint32_t passes = 0;
};

// One launch of a set (an element of CounterSet::correlation_ids).
struct CounterLaunchRow {
  int64_t set_id = 0;
  uint32_t correlation_id = 0;
};

// One metric value of a set (an element of CounterSet::values).
struct CounterValueRow {
  int64_t set_id = 0;
  model::StringId metric = model::kEmptyString;
  double value = 0;
};

template <>
struct Table<CounterSetRow> {
  static constexpr char kName[] = "counter_sets";
  static constexpr char kDoc[] =
      "Hardware counters ([counters.md](counters.md)): one `CounterSet` per kernel signature "
      "sample (or per region instance) is one row of `counter_sets`, plus one row of "
      "`counter_launches` per launch measured and one row of `counter_values` per metric "
      "value. `counters_named` joins the three into readable rows. Primary key `id`.";
  // `id` as a table constraint makes it the rowid (no separate index).
  static constexpr char kConstraints[] = "PRIMARY KEY (id)";
  template <typename R, typename V>
  static void Visit(R& c, V& v) {
    v.Int("id", c.id,
          "the set's number: 1, 2, ... in the order the sets were written (it is the `rowid`)");
    v.Int("device_id", c.device_id, "`devices.id`");
    v.StrId("name_id", c.name, "the demangled kernel name, or the region name");
    v.Int("grid_x", c.grid.x, {"blocks", "the signature's grid x (0 for regions)"});
    v.Int("grid_y", c.grid.y, {"blocks", "the signature's grid y (0 for regions)"});
    v.Int("grid_z", c.grid.z, {"blocks", "the signature's grid z (0 for regions)"});
    v.Int("block_x", c.block.x, {"threads", "the signature's block x (0 for regions)"});
    v.Int("block_y", c.block.y, {"threads", "the signature's block y (0 for regions)"});
    v.Int("block_z", c.block.z, {"threads", "the signature's block z (0 for regions)"});
    v.Int("strategy", c.strategy,
          "rotate (each pass on a later launch), kernel replay (all passes on one launch), "
          "region (a user range measured as a whole), or sweep (one pass: a launch measured "
          "in a window of consecutive launches)");
    v.Int("passes", c.passes, "replay passes the metrics needed");
  }
};

template <>
struct Table<CounterLaunchRow> {
  static constexpr char kName[] = "counter_launches";
  static constexpr char kDoc[] =
      "The launches whose counters went into a set (`CounterSet::correlation_ids`), one row "
      "each, in `rowid` order: one per pass for `rotate`, one for `kernel replay` and "
      "`sweep`, none for a region.";
  // Declared for readers of the schema; SQLite does not enforce it (foreign keys
  // are off by default), the loader checks it.
  static constexpr char kConstraints[] = "FOREIGN KEY (set_id) REFERENCES counter_sets (id)";
  template <typename R, typename V>
  static void Visit(R& l, V& v) {
    v.Int("set_id", l.set_id,
          "`counter_sets.id` (a foreign key SQLite does not enforce; `LoadProfile` checks it)");
    v.Int("correlation_id", l.correlation_id,
          "the launch's row in `kernels` (which has flag bit 0 set) and in `api_calls`");
  }
};

template <>
struct Table<CounterValueRow> {
  static constexpr char kName[] = "counter_values";
  static constexpr char kDoc[] =
      "The set's values (`CounterSet::values`), one row per metric, in `rowid` order. A set may "
      "have no values.";
  static constexpr char kConstraints[] = "FOREIGN KEY (set_id) REFERENCES counter_sets (id)";
  template <typename R, typename V>
  static void Visit(R& c, V& v) {
    v.Int("set_id", c.set_id, "`counter_sets.id` (checked by `LoadProfile`)");
    v.StrId("metric_id", c.metric,
            "the metric name (e.g. `dram__bytes.sum`; [counters.md](counters.md) lists names "
            "and units)");
    v.Real("value", c.value, {"the metric's", "the value; a NaN is `NULL`"});
  }
};

template <>
struct Table<model::DeviceMetric> {
  static constexpr char kName[] = "device_metrics";
  static constexpr char kDoc[] =
      "Properties of a device measured by counters (`DeviceMetric`): peaks and clocks that the "
      "roofline ceilings come from, one row per metric, in the order written.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("device_id", m.device_id, "`devices.id`");
    v.StrId("metric_id", m.metric,
            "the metric name, e.g. `dram__bytes.sum.peak_sustained`, "
            "`sm__cycles_elapsed.avg.per_second`");
    v.Real("value", m.value, {"the metric's", "the value; a NaN is `NULL`"});
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_COUNTER_TABLES_H_
