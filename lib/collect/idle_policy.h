// When the counter sampler's launch callbacks may go off, and what is given up when
// they do (LaunchSwitch, launch_switch.h, decides each tick's switch under the
// session lock; CounterSampler::SwitchLaunchCallbacks makes the CUPTI calls). Pure:
// no CUPTI, no lock; tested in tests/unit/idle_policy_test.cc.
//
// The callbacks may go off after a run of launches in a row that left nothing to
// measure (settled: Planner::Settled) while no set was in progress: at least
// `idle_launches`, and with rotate three periods of the launch sequence, so a
// signature of a long step still to sample comes round first (the caller passes period
// 0 for the other strategies, LaunchSwitch::IdlePeriod). A kernel record of a
// signature not settled brings them back. A signature that brought them back and is
// then never launched while they are on (a launch call they do not follow, such as a
// cooperative launch) is given up at its second wake: it is settled from then on.
#ifndef CUSCOPE_LIB_COLLECT_IDLE_POLICY_H_
#define CUSCOPE_LIB_COLLECT_IDLE_POLICY_H_

#include <cstddef>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/collect/planner.h"

namespace cuscope::collect {

class IdlePolicy {
 public:
  // A new session. `enabled`: idle_launches > 0 and kernel records can wake them.
  void Reset(uint64_t idle_launches, bool enabled);
  bool enabled() const { return enabled_; }
  bool off() const { return off_; }
  uint64_t run() const { return run_; }
  // Settled launches in a row needed, `period` the launch sequence's (0: none).
  uint64_t Threshold(size_t period) const;

  // A launch seen at API_ENTER while the callbacks are on. True once the run reaches
  // the threshold (the switch off is due).
  bool Launch(const Signature& sig, bool settled, bool busy, size_t period);
  // Whether the run still allows the switch off (a launch may have reset it since).
  bool Ready(size_t period) const { return enabled_ && !off_ && run_ >= Threshold(period); }
  // The callbacks go off: what stays settled while they are off, the planner's
  // `settled` and the signatures given up.
  SettledSignatures Off(SettledSignatures settled);
  // They come back on for a record of `sig`.
  void On(const Signature& sig);
  // They come back on for good: records no longer reach cuscope.
  void Disable();

 private:
  bool enabled_ = false;
  uint64_t idle_launches_ = 0;
  uint64_t run_ = 0;
  bool off_ = false;
  // Signatures that brought the callbacks back and were not launched while they were
  // on since, with how many times; at two, given up at the next switch off.
  absl::flat_hash_map<Signature, int> woke_by_;
  absl::flat_hash_set<Signature> given_up_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_IDLE_POLICY_H_
