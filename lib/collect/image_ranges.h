// The ranges of one context's counter data image, shared by consecutive rotate sets.
//
// What this relies on (CUPTI's Range Profiler; the measurements are in
// docs/validation.md, "Facts the code relies on"): given again to SetConfig without
// re-initialization, an image takes the next set's ranges after those it holds, with
// values as in a fresh image, while re-initializing it costs in proportion to its size
// (hundreds of ms for the sol set's 2,048 ranges; a set's ranges are cheap to decode).
// CUPTI writes the next set after the ranges of the previous set's *last* pass (after
// a set of 4 launches in 8 passes and 2 in the 9th, the next set starts at range 2).
// After a set whose last passes were empty (rotate's cut sets: 4, 4, 2, then none), the
// next set's values are not its own: so after such a set, and after a set cut before
// its first launch (every pass empty; treated the same: untested with launches that
// can be told apart), the image is re-initialized.
//
// So the image is re-initialized only when the next set might not fit after the ranges
// it holds, or after a set that ended in an empty pass; each set reads its ranges from
// where it began; and a decode whose range count is not the one this placement
// predicts, or that dropped ranges, reads nothing (ranges that may belong to other
// launches) and re-initializes the image. Pure bookkeeping: the sampler makes the CUPTI
// calls; the rotate simulator (tests/unit/rotate_sim.h) models CUPTI.
#ifndef CUSCOPE_LIB_COLLECT_IMAGE_RANGES_H_
#define CUSCOPE_LIB_COLLECT_IMAGE_RANGES_H_

#include <algorithm>
#include <cstddef>
#include <optional>

namespace cuscope::collect {

class ImageRanges {
 public:
  explicit ImageRanges(size_t capacity = 1) : capacity_(capacity) {}

  // Per-set sizing (the default; CUSCOPE_INTERNAL_IMAGE_SIZING=0 turns it off): an image for a set
  // of `ranges` ranges a pass, with room for one more such set: a power of two of at least 64 and
  // twice `ranges`, within `limit` (the window limit).
  static size_t CapacityFor(size_t ranges, size_t limit) {
    size_t capacity = 64;
    while (capacity < 2 * ranges && capacity < limit) capacity *= 2;
    return std::max(std::min(capacity, limit), std::min(ranges, limit));
  }

  // What to do before a set of at most `ranges` ranges a pass.
  struct Step {
    bool reset = false;     // re-initialize the image (to `capacity` ranges)
    bool reenable = false;  // first Disable + Enable the Range Profiler (see Before)
    size_t capacity = 0;
  };
  // `sizing`: images sized to each set; else of `limit` ranges (the window limit). A Range
  // Profiler object holds the ranges of at most about twice the image size of its first
  // SetConfig, and decodes a larger image's set short without saying so (no range
  // counted as dropped; docs/validation.md, "Facts the code relies on"): an image larger
  // than the first one is given to a new object (Disable + Enable).
  Step Before(size_t ranges, bool sizing, size_t limit) const {
    Step step;
    if (!NeedsReset(ranges)) return step;
    step.reset = true;
    step.capacity = sizing ? CapacityFor(ranges, limit) : limit;
    step.reenable = room_ > 0 && step.capacity > room_;
    return step;
  }
  // The Range Profiler was disabled and enabled again: a new object, whose first image
  // sets its room.
  void Reenabled() {
    room_ = 0;
    known_ = false;
  }
  // The largest image the current object holds (0: not configured yet).
  size_t room() const { return room_; }

  size_t capacity() const { return capacity_; }
  // Before a set of at most `ranges` ranges a pass: whether the image must be
  // re-initialized first (they might not fit after the ranges it holds, or where CUPTI
  // writes next is not known).
  bool NeedsReset(size_t ranges) const {
    return !known_ || std::max(next_, total_) + ranges > capacity_;
  }
  // The image was (re-)initialized: empty; `capacity` ranges when given.
  void Reset(size_t capacity = 0) {
    if (capacity > 0) capacity_ = capacity;
    if (room_ == 0) room_ = capacity_;
    total_ = next_ = first_ = 0;
    known_ = true;
  }
  // A set was decoded: its first pass had `first_pass` ranges and its last `last_pass`,
  // CUPTI dropped `dropped` and the image now holds `total`. The set's ranges are those
  // from first() on; returns how many, or nothing when ranges were dropped or `total` is
  // not what the placement predicts (then the image is to be re-initialized and the
  // set's ranges not read).
  std::optional<size_t> Decoded(size_t total, size_t first_pass, size_t last_pass,
                                size_t dropped = 0) {
    first_ = next_;
    const size_t expected = std::max(total_, std::min(first_ + first_pass, capacity_));
    if (!known_ || dropped > 0 || total != expected) {
      known_ = false;
      return std::nullopt;
    }
    total_ = total;
    next_ = std::min(first_ + last_pass, capacity_);
    // Ended in an empty pass: the next set would not read its own values (measured after
    // launches in earlier passes; a set with no launch at all is not measured: the same).
    known_ = last_pass > 0;
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
  size_t room_ = 0;   // the capacity of the object's first image
  size_t total_ = 0;  // ranges the image holds (CUPTI's numTotalRanges)
  size_t next_ = 0;
  size_t first_ = 0;
  bool known_ = false;
};

// The calls that prepare an image for a set, made by PrepareImage in its order: the
// counter sampler's are CUPTI's, the rotate simulator's model them. Each returns false
// when it failed (the context is then given up).
class ImageCalls {
 public:
  virtual ~ImageCalls() = default;
  // Disable + Enable: a new Range Profiler object (no image configured yet).
  virtual bool Reenable() = 0;
  // Sizes and initializes the counter data image for `capacity` ranges.
  virtual bool Initialize(size_t capacity) = 0;
  // SetConfig for the set's first pass with the current image.
  virtual bool Configure() = 0;
};

// Before a set of at most `ranges` ranges a pass: a new object when the image must
// outgrow the current one's room, a fresh image when the set might not fit or where
// CUPTI writes next is not known, and the configuration unless `*configured` (set up,
// no set run since). False: a call failed.
inline bool PrepareImage(ImageRanges& image, size_t ranges, bool sizing, size_t limit,
                         bool* configured, ImageCalls& calls) {
  const ImageRanges::Step step = image.Before(ranges, sizing, limit);
  if (step.reset) {
    if (step.reenable) {
      if (!calls.Reenable()) return false;
      image.Reenabled();
    }
    if (!calls.Initialize(step.capacity)) return false;
    image.Reset(step.capacity);
    if (image.NeedsReset(ranges)) return false;
    *configured = false;
  }
  // Given again, a used image takes the set's ranges after those it holds.
  if (!*configured && !calls.Configure()) return false;
  *configured = false;  // this set's passes use it
  return true;
}

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_IMAGE_RANGES_H_
