// The payloads of the Cluster Autoscaler's scale_up and scale_up_failed events.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace fleetsim {

// A scale-up: the groups it grew (more than one when balancing similar groups) and every option
// the expander weighed.
struct ScaleUpDecision {
  struct Option {
    std::string_view node_group;
    std::int64_t nodes = 0;
    std::int64_t pods = 0;  // the pending pods the group's new nodes would hold
  };
  std::string_view expander;  // the first of the chain
  std::span<const Option> grown;
  std::span<const Option> options;
};

// Why a scale-up failed: the Auto Scaling group found no capacity, or its instances did not
// register within max-node-provision-time.
enum class ScaleUpFailure : std::uint8_t { NoCapacity, TimedOut };

}  // namespace fleetsim
