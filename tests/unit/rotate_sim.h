// A simulated Range Profiler for the rotate driver (lib/collect/rotate_driver.h): the
// unit tests drive the planner and the driver with the calls the counter sampler
// makes (launch_counters.cc), and this stands for CUPTI: a set's passes are all
// submitted at the P-th Stop, and decoding gives one range per launch of the first
// pass.
#ifndef CUSCOPE_TESTS_UNIT_ROTATE_SIM_H_
#define CUSCOPE_TESTS_UNIT_ROTATE_SIM_H_

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/collect/image_ranges.h"
#include "lib/collect/planner.h"
#include "lib/collect/rotate_driver.h"

namespace cuscope::collect {

class FakeStack : public RegionStack {
 public:
  std::vector<std::string> names;
  mutable int asked = 0;
  const std::vector<std::string>& ThreadRegions() const override {
    ++asked;
    return names;
  }
};

class SimCalls : public RangeCalls {
 public:
  SimCalls(const Planner& planner, const ContextPlan& c)
      : image(planner.window_limit()), planner_(planner), c_(c) {}
  bool Start() override {
    EXPECT_FALSE(started_) << "Start inside a pass";
    EXPECT_TRUE(cupti_configured_) << "Start without SetConfig after the image or object was made";
    started_ = true;
    ++starts;
    return true;
  }
  Stopped Stop() override {
    EXPECT_TRUE(started_) << "Stop outside a pass";
    started_ = false;
    ++stops;
    if (++pass_ < planner_.passes()) return {true, false};
    pass_ = 0;
    return {true, true};
  }
  // CUPTI (measured, lib/collect/image_ranges.h): a Range Profiler object holds at most
  // twice the ranges of its first image, dropping the rest silently; a set's ranges go from where
  // the previous set's last pass ended; the image counts the highest range written, up to its
  // capacity. After a set that ended in an empty pass (or had no launch) the next set's values are
  // not its own: a set measured then, without a re-initialization between, is an error here (its
  // samples would be another launch's).
  std::optional<size_t> Decode() override {
    EXPECT_FALSE(started_);
    EXPECT_EQ(c_.windows.size(), planner_.passes()) << "decoded before every pass ran";
    const size_t first = c_.windows.empty() ? 0 : c_.windows.front().size();
    const size_t last = c_.windows.empty() ? 0 : c_.windows.back().size();
    EXPECT_FALSE(spoiled_) << "a set measured after one that ended in an empty pass, into "
                              "the same image without re-initializing it";
    spoiled_ = last == 0;
    EXPECT_EQ(image.capacity(), cupti_capacity_) << "the image's bookkeeping lost its size";
    EXPECT_LE(cupti_next_ + first, cupti_capacity_) << "a set outgrew the image's room";
    // The object holds ranges up to twice its first image's size, silently (no drop).
    EXPECT_LE(cupti_next_ + first, 2 * cupti_room_)
        << "a set outgrew the Range Profiler object's first image (not re-enabled)";
    cupti_total_ = std::max(cupti_total_, std::min(cupti_next_ + first, cupti_capacity_));
    const size_t at = cupti_next_;
    cupti_next_ = std::min(cupti_next_ + last, cupti_capacity_);
    if (last == 0) ++ended_empty;
    ++decodes;
    now_ns += decode_cost_ns;
    std::optional<size_t> ranges = image.Decoded(cupti_total_, first, last);
    EXPECT_TRUE(ranges.has_value()) << "the image's placement differs from CUPTI's";
    EXPECT_EQ(image.first(), at);
    return ranges;
  }
  bool Keep(size_t range, RangeMatch& match) override {
    EXPECT_LT(image.first() + range, image.total());
    kept.push_back(match);
    return true;
  }
  // The sampler's own sequence (PrepareImage), against the simulated CUPTI below.
  bool Prepare(size_t ranges) override {
    EXPECT_FALSE(held) << "prepared inside a set";
    CuptiCalls cupti(*this);
    now_ns += prepare_cost_ns + prepare_cost_per_range_ns * ranges;
    const bool ok =
        PrepareImage(image, ranges, size_images, planner_.window_limit(), &configured_, cupti);
    EXPECT_FALSE(image.NeedsReset(ranges)) << "no room for the set";
    return ok;
  }
  void Finished(bool decoded) override {
    if (!decoded) image.Invalidate();
  }
  void Measured(const Launch& launch) override { measured.push_back(launch.correlation_id); }
  uint64_t NowNs() override {
    ++clock_reads;
    return now_ns;
  }
  void SetInProgress(bool in_set) override {
    EXPECT_NE(in_set, held) << "a set or gap began or ended twice";
    EXPECT_FALSE(started_) << "held or released inside a pass";
    held = in_set;
  }
  bool held = false;  // a set in progress (kernel records held off)
  bool in_pass() const { return started_; }

  std::vector<RangeMatch> kept;  // samples, in order
  std::vector<uint32_t> measured;
  size_t starts = 0, stops = 0;
  ImageRanges image;              // capacity: the window limit, as the sampler sizes it
  size_t resets = 0;              // counter data (re)initializations
  size_t reenables = 0;           // Range Profiler objects made again (a larger image)
  size_t ranges_initialized = 0;  // their sizes, in ranges (the cost grows with them)
  bool size_images = false;       // CUSCOPE_INTERNAL_IMAGE_SIZING
  size_t ended_empty = 0;         // sets cut before their last pass (it ran empty)
  size_t decodes = 0;
  // The clock (rotate's time budget): a test moves it; decoding a set costs
  // `decode_cost_ns`, preparing one `prepare_cost_ns` plus so much a range.
  uint64_t now_ns = 0, decode_cost_ns = 0, prepare_cost_ns = 0, prepare_cost_per_range_ns = 0;
  size_t clock_reads = 0;

 private:
  // CUPTI's side of PrepareImage: a new object has no room until its first image; an
  // image initialized is empty.
  class CuptiCalls final : public ImageCalls {
   public:
    explicit CuptiCalls(SimCalls& s) : s_(s) {}
    bool Reenable() override {
      s_.cupti_room_ = 0;
      s_.cupti_configured_ = false;
      ++s_.reenables;
      return true;
    }
    bool Initialize(size_t capacity) override {
      if (s_.cupti_room_ == 0) s_.cupti_room_ = capacity;
      s_.cupti_capacity_ = capacity;
      s_.cupti_configured_ = false;
      s_.cupti_total_ = s_.cupti_next_ = 0;
      s_.spoiled_ = false;
      ++s_.resets;
      s_.ranges_initialized += capacity;
      return true;
    }
    bool Configure() override {
      s_.cupti_configured_ = true;
      return true;
    }

   private:
    SimCalls& s_;
  };
  bool configured_ = false;
  const Planner& planner_;
  const ContextPlan& c_;
  bool started_ = false;
  size_t pass_ = 0;
  size_t cupti_total_ = 0, cupti_next_ = 0;  // the simulated image
  size_t cupti_room_ = 0;                    // the capacity of the object's first image
  size_t cupti_capacity_ = 0;                // of the image last initialized
  bool cupti_configured_ = false;            // SetConfig since that image or object
  bool spoiled_ = false;  // the last set ended in an empty pass: the next reads garbage
};

// One context's launches through the planner and the driver, as the sampler's
// callbacks make them.
struct RotateSim {
  Planner planner;
  ContextPlan c;
  FakeStack stack;
  SimCalls calls{planner, c};
  uint32_t next_id = 1;
  std::vector<RangeMatch>& sets = calls.kept;

  RotateSim(const CounterOptions& o, size_t passes)
      : planner(o, /*rotate=*/true, /*region_mode=*/false) {
    planner.set_passes(passes);
  }
  // A kernel launch: API_ENTER, then API_EXIT.
  void Run(const Signature& sig, bool matches = true) {
    ++planner.stats().launches_seen;
    Launch launch{sig, next_id++, planner.WantSample(sig, matches, stack)};
    RotateDriver(planner, calls).Enter(c, launch);
    EXPECT_EQ(calls.held, c.in_set && !c.in_gap);
    RotateDriver(planner, calls).Exit(c);
    // Kernel records held off exactly while a set runs, outside its gaps.
    EXPECT_EQ(calls.held, c.in_set && !c.in_gap);
  }
  void Graph() {
    ++next_id;
    RotateDriver(planner, calls).Graph(c);
    EXPECT_EQ(calls.held, c.in_set && !c.in_gap);
  }
  void End() {
    RotateDriver(planner, calls).End(c);
    EXPECT_FALSE(calls.held);
  }
  uint64_t dropped(DropReason r) const { return planner.stats().dropped_by[static_cast<int>(r)]; }
};

inline CounterOptions RotateOptions(int window = 32) {
  CounterOptions o;
  o.metrics = {"roofline"};
  o.per_signature = 0;
  o.window = window;
  return o;
}

}  // namespace cuscope::collect

#endif  // CUSCOPE_TESTS_UNIT_ROTATE_SIM_H_
