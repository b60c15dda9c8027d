#include "lib/collect/record_batch.h"

#include "lib/collect/elapsed.h"
#include "lib/collect/own_spans.h"

namespace cuscope::collect {

void RecordBatch::Reset(Sink sink, bool counters_enabled) {
  absl::MutexLock lock(&mu_);
  sink_ = std::move(sink);
  batch_ = model::Profile();
  converter_ = std::make_unique<RecordConverter>(&batch_, counters_enabled ? measured_ : nullptr);
}

void RecordBatch::AddBuffer(uint8_t* buffer, size_t valid_size) {
  absl::MutexLock lock(&mu_);
  if (converter_ == nullptr || valid_size == 0) return;
  converter_->stats().devices_changed = false;
  converter_->AddBuffer(buffer, valid_size);
  Emit(converter_->stats().devices_changed);
}

void RecordBatch::EmitIfRunning(const std::atomic<bool>& running) {
  absl::MutexLock lock(&mu_);
  if (converter_ == nullptr || !running.load()) return;
  Emit(false);
}

void RecordBatch::CloseAndEmit(uint64_t end_ns) {
  absl::MutexLock lock(&mu_);
  if (converter_ == nullptr) return;
  converter_->CloseOpenRanges(end_ns);
  Emit(false);
}

std::optional<uint64_t> RecordBatch::MarkProbes(uint64_t after_ns) {
  absl::MutexLock lock(&mu_);
  if (converter_ == nullptr) return std::nullopt;
  converter_->set_probe_after(after_ns);
  return converter_->stats().probe_records;
}

bool RecordBatch::ProbesAtLeast(uint64_t count) {
  absl::MutexLock lock(&mu_);
  return converter_ != nullptr && converter_->stats().probe_records >= count;
}

ConvertStats RecordBatch::stats() {
  absl::MutexLock lock(&mu_);
  return converter_ != nullptr ? converter_->stats() : ConvertStats{};
}

void RecordBatch::Emit(bool devices_changed) {
  for (DrainSource* drain : drains_) drain->Drain(&batch_);
  const bool write = sink_ && (batch_.record_count() > 0 || devices_changed);
  const uint64_t start_ns = write ? MonotonicNs() : 0;
  if (write) sink_(batch_, devices_changed);
  batch_.ClearRecords();
  // A long write is cuscope's own time (own_time.h), written with the next batch.
  if (auto o = OwnSpanUntilNow(model::OwnKind::kFlush, start_ns, kRecordedBackgroundNs)) {
    batch_.own_time.push_back(*o);
  }
}

}  // namespace cuscope::collect
