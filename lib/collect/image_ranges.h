// The ranges of one context's counter data image, shared by consecutive rotate sets.
//
// Measured on the H200 (CUDA 13.0, tests/gpu/probes/image_size_probe.cu): given again
// to SetConfig without re-initialization, an image takes the next set's ranges after
// those it holds (4, 8, 12 ranges after three sets of 4, values as in a fresh image),
// while re-initializing it costs in proportion to its size (the sol image of 2,048
// ranges: 1.59 GB, 530-620 ms; a set's ranges are cheap to decode). Where CUPTI writes
// the next set: after the ranges of the previous set's *last* pass. A set cut short
// (later passes with fewer launches or none) leaves its first pass's extra ranges in
// the image, and the next set overwrites them: after sets of 4+4, 4+0 (first pass 4,
// later ones none), 4+2, 0+0 and 3+3 launches, the image held 4, 8, 8, 8 and 9 ranges,
// the last set's at 6, 7 and 8.
//
// So the image is re-initialized only when the next set might not fit after CUPTI's
// write position, each set reads its ranges from where it began, and a decode whose
// range count is not the one this placement predicts re-initializes the image instead
// of reading ranges that may belong to other launches. Pure bookkeeping: the sampler
// makes the CUPTI calls; the rotate simulator (tests/unit/rotate_sim.h) models CUPTI.
#ifndef CUSCOPE_LIB_COLLECT_IMAGE_RANGES_H_
#define CUSCOPE_LIB_COLLECT_IMAGE_RANGES_H_

#include <algorithm>
#include <cstddef>
#include <optional>

namespace cuscope::collect {

class ImageRanges {
 public:
  explicit ImageRanges(size_t capacity = 1) : capacity_(capacity) {}

  size_t capacity() const { return capacity_; }
  // Before a set of at most `ranges` ranges a pass: whether the image must be
  // re-initialized first (they might not fit after CUPTI's write position, or its
  // state is unknown).
  bool NeedsReset(size_t ranges) const { return !known_ || next_ + ranges > capacity_; }
  // The image was (re-)initialized: empty.
  void Reset() {
    total_ = next_ = first_ = 0;
    known_ = true;
  }
  // A set was decoded: its first pass had `first_pass` ranges and its last `last_pass`,
  // and the image now holds `total` (CUPTI's count). The set's ranges are those from
  // first() on; returns how many, or nothing when `total` is not what the placement
  // predicts (then the image is to be re-initialized and the set's ranges not read).
  std::optional<size_t> Decoded(size_t total, size_t first_pass, size_t last_pass) {
    first_ = next_;
    const size_t expected = std::max(total_, std::min(first_ + first_pass, capacity_));
    if (!known_ || total != expected) {
      known_ = false;
      return std::nullopt;
    }
    total_ = total;
    next_ = std::min(first_ + last_pass, capacity_);
    return std::min(first_pass, total - first_);
  }
  // Decoding failed: re-initialize before the next set.
  void Invalidate() { known_ = false; }
  // The image index of the last decoded set's range 0.
  size_t first() const { return first_; }
  // Where CUPTI writes the next set's first range.
  size_t next() const { return next_; }
  size_t total() const { return total_; }

 private:
  size_t capacity_;
  size_t total_ = 0;  // ranges the image holds (CUPTI's numTotalRanges)
  size_t next_ = 0;
  size_t first_ = 0;
  bool known_ = false;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_IMAGE_RANGES_H_
