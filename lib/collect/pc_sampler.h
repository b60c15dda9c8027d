// PC sampling for a session (the `source` setting): CUPTI's PC Sampling API in
// continuous mode (kernels are not serialized; graph launches and concurrent streams
// are sampled like any other) on every CUDA context: begun when the context is created
// (or, at Start, on the starting thread's current context), drained by Poll (the
// session's background thread, each flush period) and at Stop, ended when the context
// is destroyed. The samples become model records (PcRecords) that the tracer's batches
// take (DrainSource).
//
// A failure (no permission, an unsupported device, MIG, another PC sampling client) is
// a note and one stderr line; the run goes on without samples on that context.
//
// Locks: calls_mu_ serializes the PC sampling calls and guards the contexts; mu_ (a
// leaf, taken after calls_mu_) guards the records. CUPTI's callbacks run on the
// program's threads inside driver calls: a module load or unload takes mu_ only (no
// CUPTI call but the CRC); a context's creation or destruction waits for calls_mu_ at
// most kCallbackWaitMs, then goes on without sampling that context (a note says so),
// so that a drain in progress can never hold a driver call forever.
#ifndef CUSCOPE_LIB_COLLECT_PC_SAMPLER_H_
#define CUSCOPE_LIB_COLLECT_PC_SAMPLER_H_

#include <cupti.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/options.h"
#include "lib/collect/pc_calls.h"
#include "lib/collect/pc_records.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

class PcSampler final : public DrainSource {
 public:
  // `callbacks` nullptr: no CUPTI callbacks (tests drive OnCallback themselves).
  PcSampler(CallbackSubscription* callbacks, std::unique_ptr<PcCalls> calls,
            ReadSourceLine read = FileSourceReader());
  PcSampler(const PcSampler&) = delete;
  PcSampler& operator=(const PcSampler&) = delete;

  // Subscribes to context and module callbacks and begins on the calling thread's
  // current context, if any. Fails only when the callbacks cannot be had.
  absl::Status Start(const SourceOptions& options);
  // Resource callbacks: context created / destroy starting, module loaded / unload starting.
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // Drains every context (the background thread, each flush period).
  void Poll();
  // Ends sampling on every context (stop, drain, disable) and unsubscribes.
  void Stop();
  // Moves the records made so far into `batch` (the tracer's buffer thread).
  void Drain(model::Profile* batch) override;
  // The source.* notes: status, period, samples, dropped, other_kernels, buffer_full, no_cubin.
  model::RunNotes Notes();

  static constexpr int kCallbackWaitMs = 2000;

 private:
  struct Context {
    CUcontext ctx = nullptr;
    uint32_t device = 0;
    std::map<uint32_t, std::string> stalls;  // CUPTI's stall reason names by index
  };
  // Takes calls_mu_ within kCallbackWaitMs; false (not held) when it could not.
  bool LockCallsBounded() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true, calls_mu_);
  void Begin(CUcontext ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(calls_mu_);
  void End(CUcontext ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(calls_mu_);
  void OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& r);
  void Note(const std::string& text) ABSL_LOCKS_EXCLUDED(mu_);

  CallbackSubscription* const callbacks_;
  const std::unique_ptr<PcCalls> calls_;

  absl::Mutex calls_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  bool running_ ABSL_GUARDED_BY(calls_mu_) = false;
  SourceOptions options_ ABSL_GUARDED_BY(calls_mu_);
  std::vector<Context> contexts_ ABSL_GUARDED_BY(calls_mu_);

  absl::Mutex mu_;
  PcRecords records_ ABSL_GUARDED_BY(mu_);
  std::string status_ ABSL_GUARDED_BY(mu_);  // problems, "; " between them
  int begun_ ABSL_GUARDED_BY(mu_) = 0;       // contexts sampled this run
  uint32_t period_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PC_SAMPLER_H_
