// The payload of a disruption_decision event.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// A disruption command that passed validation: the nodes it deletes and what replaces them.
struct DisruptionDecision {
  std::string_view method;  // emptiness, drift, multi_node_consolidation, …
  std::span<const NodeId> nodes;
  // Per replacement NodeClaim, its instance types, cheapest first; none for a delete.
  std::span<const std::vector<std::string>> replacements;
  double savings_per_hour = 0.0;
  std::size_t pods = 0;  // reschedulable pods that move
};

}  // namespace fleetsim
