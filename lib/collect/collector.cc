#include "lib/collect/collector.h"

#include "lib/collect/scopes.h"

namespace cuscope::collect {

void ScopesDrain::Drain(model::Profile* batch) { scopes::Drain(batch); }

Collector::Collector()
    : callbacks_(&Collector::OnCallback, this),
      sampler_(&callbacks_),
      pc_sampler_(&callbacks_, MakeCuptiPcCalls()),
      tracer_({&counters_, &scopes_, &sampler_, &pc_sampler_}, &counters_),
      counters_(&tracer_, &regions_, &callbacks_),
      regions_(&tracer_, &counters_, &callbacks_) {}

void CUPTIAPI Collector::OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void* data) {
  auto* self = static_cast<Collector*>(userdata);
  if (self->callbacks_.Wants(CallbackSubscription::kCapture)) {
    self->regions_.OnCallback(domain, cbid, data);
  }
  if (self->callbacks_.Wants(CallbackSubscription::kCounters)) {
    self->counters_.OnCallback(domain, cbid, data);
  }
  if (self->callbacks_.Wants(CallbackSubscription::kSampler)) {
    self->sampler_.OnCallback(domain, cbid, data);
  }
  if (self->callbacks_.Wants(CallbackSubscription::kPcSampler)) {
    self->pc_sampler_.OnCallback(domain, cbid, data);
  }
}

}  // namespace cuscope::collect
