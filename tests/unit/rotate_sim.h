// A simulated Range Profiler for the rotate driver (lib/collect/rotate_driver.h): the
// unit tests drive the planner and the driver with the calls the counter sampler
// makes (launch_counters.cc), and this stands for CUPTI: a set's passes are all
// submitted at the P-th Stop, and decoding gives one range per launch of the first
// pass.
#ifndef CUSCOPE_TESTS_UNIT_ROTATE_SIM_H_
#define CUSCOPE_TESTS_UNIT_ROTATE_SIM_H_

#include <string>
#include <vector>

#include "gtest/gtest.h"
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
  SimCalls(const Planner& planner, const ContextPlan& c) : planner_(planner), c_(c) {}
  bool Start() override {
    EXPECT_FALSE(started_) << "Start inside a pass";
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
  std::optional<size_t> Decode() override {
    EXPECT_FALSE(started_);
    EXPECT_EQ(c_.windows.size(), planner_.passes()) << "decoded before every pass ran";
    return c_.windows.empty() ? 0 : c_.windows[0].size();
  }
  bool Keep(size_t, RangeMatch& match) override {
    kept.push_back(match);
    return true;
  }
  void Reset() override {}
  void Measured(const Launch& launch) override { measured.push_back(launch.correlation_id); }
  void SetInProgress(bool in_set) override {
    EXPECT_NE(in_set, held) << "a set began or ended twice";
    EXPECT_FALSE(started_) << "held or released inside a pass";
    held = in_set;
  }
  bool held = false;  // a set in progress (kernel records held off)
  bool in_pass() const { return started_; }

  std::vector<RangeMatch> kept;  // samples, in order
  std::vector<uint32_t> measured;
  size_t starts = 0, stops = 0;

 private:
  const Planner& planner_;
  const ContextPlan& c_;
  bool started_ = false;
  size_t pass_ = 0;
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
    EXPECT_EQ(calls.held, c.in_set);
    RotateDriver(planner, calls).Exit(c);
    EXPECT_EQ(calls.held, c.in_set);  // kernel records held off exactly while a set runs
  }
  void Graph() {
    ++next_id;
    RotateDriver(planner, calls).Graph(c);
    EXPECT_EQ(calls.held, c.in_set);
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
