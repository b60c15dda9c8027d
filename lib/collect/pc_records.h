// PC sampling's drains as model records (lib/model/pc_samples.h): each function named
// once, counts added up per (function, PC, stall reason) until the tracer's batch takes
// them, the line of each sampled PC looked up once in its module's cubin while the
// cubin is readable, and the text of each such line read once. Not thread-safe: the PC
// sampler (pc_sampler.h) calls it under its lock.
//
// Cubins: a loaded module's cubin is CUPTI's memory, readable until the module unloads
// (ModuleLoaded keeps the pointer only). At an unload (ModuleUnloading) its bytes are
// copied and kept until the next Add, so that PCs sampled before the unload and drained
// after it still get their lines; then they are dropped. Only the line tables of the
// sampled PCs reach the profile, never a cubin.
#ifndef CUSCOPE_LIB_COLLECT_PC_RECORDS_H_
#define CUSCOPE_LIB_COLLECT_PC_RECORDS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/collect/pc_calls.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

// The text of line `line` (1-based) of `file`, or nullopt when it cannot be read.
using ReadSourceLine =
    std::function<std::optional<std::string>(const std::string& file, uint32_t line)>;

// Reads files from the file system, each once (kept in memory; files over 16 MiB and
// unreadable ones give nullopt).
ReadSourceLine FileSourceReader();

class PcRecords {
 public:
  PcRecords(PcCalls* calls, ReadSourceLine read) : calls_(calls), read_(std::move(read)) {}

  void ModuleLoaded(uint64_t crc, const void* cubin, size_t size);
  void ModuleUnloading(uint64_t crc);

  // Adds a drain of a context of `device`, whose stall reasons are `stall_names`.
  void Add(const RawPcData& data, uint32_t device,
           const std::map<uint32_t, std::string>& stall_names);

  // Moves the records made since the last call into `batch`, their strings interned in
  // its table.
  void MoveTo(model::Profile* batch);

  // Totals since construction.
  struct Totals {
    uint64_t samples = 0, dropped = 0, non_user = 0, no_cubin = 0;
    bool buffer_full = false;
  };
  const Totals& totals() const { return totals_; }

 private:
  struct Cubin {
    const void* bytes = nullptr;
    size_t size = 0;
    std::vector<unsigned char> owned;  // the copy made at unload
  };
  // The function's id, made (and its record queued) at first sight.
  uint32_t FunctionId(const RawPc& pc, uint32_t device);
  // The line of a PC seen for the first time, its record and its text's queued.
  void AddLine(uint32_t function, const RawPc& pc);
  void AddText(model::StringId file, const std::string& path, uint32_t line);

  PcCalls* const calls_;
  const ReadSourceLine read_;
  absl::flat_hash_map<uint64_t, Cubin> cubins_;  // by CRC
  std::vector<uint64_t> unloaded_;               // CRCs whose copies go after the next Add
  std::map<std::pair<uint64_t, std::string>, uint32_t> functions_;  // (CRC, name) -> id
  absl::flat_hash_set<std::pair<uint32_t, uint64_t>> pcs_seen_;     // (function, PC)
  absl::flat_hash_set<std::pair<std::string, uint32_t>> texts_seen_;
  // Counts not yet moved out, by (function, PC, stall name id in pending_.strings).
  absl::flat_hash_map<std::tuple<uint32_t, uint64_t, model::StringId>, size_t> count_at_;
  model::Profile pending_;  // its own string table
  Totals totals_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PC_RECORDS_H_
