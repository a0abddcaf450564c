// Karpenter's provisioning batcher: pods that need nodes are gathered into one solve.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_set>

#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// A window opens with the first pod and closes after `idle` without a new pod, or `max` after it
// opened, whichever comes first (core:pkg/controllers/provisioning/batcher.go). A pod already in
// the open window does not extend it.
class Batcher : private EventHandler {
 public:
  Batcher(Simulation& sim, SimDuration idle, SimDuration max, std::function<void()> on_close)
      : sim_(sim), idle_(idle), max_(max), on_close_(std::move(on_close)) {}

  void trigger(PodId pod) { trigger_key(pod); }
  // The CapacityBuffer controller's trigger: one key of its own, apart from every pod's.
  void trigger_buffer() { trigger_key(std::uint64_t{1} << 32); }

 private:
  void on_event(SimTime now, std::uint64_t tag) override;
  void trigger_key(std::uint64_t key);

  Simulation& sim_;
  SimDuration idle_;
  SimDuration max_;
  std::function<void()> on_close_;
  bool open_ = false;
  SimTime opened_{};
  std::unordered_set<std::uint64_t> in_window_;  // the open window's keys (membership only)
  EventHandle close_;
};

}  // namespace fleetsim
