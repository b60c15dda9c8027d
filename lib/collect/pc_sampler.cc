#include "lib/collect/pc_sampler.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {

PcSampler::PcSampler(CallbackSubscription* callbacks, std::unique_ptr<PcCalls> calls,
                     ReadSourceLine read)
    : callbacks_(callbacks), calls_(std::move(calls)), records_(calls_.get(), std::move(read)) {}

absl::Status PcSampler::Start(const SourceOptions& options) {
  absl::MutexLock lock(&calls_mu_);
  options_ = options;
  {
    absl::MutexLock records(&mu_);
    period_ = options.period;
    begun_ = 0;
  }
  if (callbacks_ != nullptr) {
    absl::Status st = callbacks_->Add(CallbackSubscription::kPcSampler);
    for (CUpti_CallbackId cbid :
         {CUPTI_CBID_RESOURCE_CONTEXT_CREATED, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
          CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING}) {
      if (st.ok()) st = callbacks_->Enable(CUPTI_CB_DOMAIN_RESOURCE, cbid);
    }
    if (!st.ok()) {
      callbacks_->Remove(CallbackSubscription::kPcSampler);
      return absl::UnavailableError(
          absl::StrCat("no CUPTI callbacks for contexts and modules (", st.message(), ")"));
    }
  }
  running_ = true;
  if (CUcontext ctx = calls_->CurrentContext(); ctx != nullptr) Begin(ctx);
  return absl::OkStatus();
}

bool PcSampler::LockCallsBounded() {
  for (int waited = 0; waited < kCallbackWaitMs; ++waited) {
    if (calls_mu_.TryLock()) return true;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return calls_mu_.TryLock();
}

void PcSampler::Begin(CUcontext ctx) {
  if (!running_ || std::any_of(contexts_.begin(), contexts_.end(),
                               [&](const Context& c) { return c.ctx == ctx; })) {
    return;
  }
  Context c;
  c.ctx = ctx;
  c.device = calls_->DeviceOf(ctx);
  PcConfig config;
  config.period = options_.period;
  absl::StatusOr<std::map<uint32_t, std::string>> stalls = calls_->Begin(ctx, config);
  if (!stalls.ok()) {
    Note(absl::StrCat("device ", c.device, ": PC sampling could not start (",
                      stalls.status().message(), ")"));
    return;
  }
  c.stalls = *std::move(stalls);
  if (options_.verbose) {
    WriteStderr(absl::StrCat("cuscope: source: sampling PCs on device ", c.device, " (",
                             c.stalls.size(), " stall reasons)\n"));
  }
  contexts_.push_back(std::move(c));
  absl::MutexLock lock(&mu_);
  ++begun_;
}

void PcSampler::End(CUcontext ctx) {
  auto it = std::find_if(contexts_.begin(), contexts_.end(),
                         [&](const Context& c) { return c.ctx == ctx; });
  if (it == contexts_.end()) return;
  RawPcData data;
  absl::Status st = calls_->End(ctx, &data);
  {
    absl::MutexLock lock(&mu_);
    records_.Add(data, it->device, it->stalls);
  }
  if (!st.ok()) Note(absl::StrCat("device ", it->device, ": ", st.message()));
  contexts_.erase(it);
}

void PcSampler::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || data == nullptr) return;
  OnResource(cbid, *static_cast<const CUpti_ResourceData*>(data));
}

void PcSampler::OnResource(CUpti_CallbackId cbid, const CUpti_ResourceData& r) {
  if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED ||
      cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    const auto* module = static_cast<const CUpti_ModuleResourceData*>(r.resourceDescriptor);
    if (module == nullptr || module->pCubin == nullptr || module->cubinSize == 0) return;
    std::optional<uint64_t> crc = calls_->CubinCrc(module->pCubin, module->cubinSize);
    if (!crc) return;
    absl::MutexLock lock(&mu_);
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      records_.ModuleLoaded(*crc, module->pCubin, module->cubinSize);
    } else {
      records_.ModuleUnloading(*crc);
    }
    return;
  }
  if (cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED &&
      cbid != CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    return;
  }
  if (!LockCallsBounded()) {
    Note(cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED
             ? "a context was created while a drain held the sampler: not sampled"
             : "a context was destroyed while a drain held the sampler: its last samples lost");
    return;
  }
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    Begin(r.context);
  } else {
    End(r.context);
  }
  calls_mu_.Unlock();
}

void PcSampler::Poll() {
  absl::MutexLock lock(&calls_mu_);
  for (const Context& c : contexts_) {
    RawPcData data;
    absl::Status st = calls_->Collect(c.ctx, &data);
    {
      absl::MutexLock records(&mu_);
      records_.Add(data, c.device, c.stalls);
    }
    if (!st.ok()) Note(absl::StrCat("device ", c.device, ": ", st.message()));
  }
}

void PcSampler::Stop() {
  absl::MutexLock lock(&calls_mu_);
  if (!running_) return;
  while (!contexts_.empty()) End(contexts_.back().ctx);
  running_ = false;
  if (callbacks_ != nullptr) callbacks_->Remove(CallbackSubscription::kPcSampler);
}

void PcSampler::Drain(model::Profile* batch) {
  absl::MutexLock lock(&mu_);
  records_.MoveTo(batch);
}

void PcSampler::Note(const std::string& text) {
  absl::MutexLock lock(&mu_);
  if (status_.find(text) != std::string::npos) return;
  if (status_.size() > 2000) return;  // enough said
  status_ = status_.empty() ? text : absl::StrCat(status_, "; ", text);
}

model::RunNotes PcSampler::Notes() {
  absl::MutexLock lock(&mu_);
  model::RunNotes notes;
  const PcRecords::Totals& t = records_.totals();
  notes.source_status = status_;
  if (begun_ == 0 && status_.empty()) notes.source_status = "no CUDA context was sampled";
  notes.source_period = period_;
  notes.source_samples = static_cast<int64_t>(t.samples);
  notes.source_dropped = static_cast<int64_t>(t.dropped);
  notes.source_other_kernels = static_cast<int64_t>(t.non_user);
  if (t.no_cubin > 0) notes.source_no_cubin = static_cast<int64_t>(t.no_cubin);
  if (t.buffer_full) {
    notes.source_buffer_full =
        "the PC sampling hardware buffer filled up: samples were lost (a larger "
        "CUSCOPE_SOURCE_PERIOD samples less often)";
  }
  return notes;
}

}  // namespace cuscope::collect
