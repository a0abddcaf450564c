// The Cluster Autoscaler's expanders: which node group a scale-up grows
// (cluster-autoscaler/expander/).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/rng.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/settings.hpp"

namespace fleetsim {

// One node group's answer to the pending pods: how many nodes of its template they need, and
// which of them those nodes would hold.
struct ScaleUpOption {
  std::uint32_t group = 0;
  std::string name;  // the node group's name, which the priority expander matches
  std::int64_t node_count = 0;
  std::vector<std::uint32_t> pods;  // indices into the pods the estimate was asked about
  Resources pod_requests;           // the sum of those pods' requests
  Resources node_capacity;          // the template node's capacity (least-waste reads it)
};

// One expander as a filter: the options it keeps, as indices into `options`, in their order.
std::vector<std::size_t> keep_best(Expander expander, std::span<const ScaleUpOption> options,
                                   std::span<const std::size_t> among,
                                   std::span<const ExpanderPriority> priorities);

// The chain (expander/factory/chain.go): each expander in turn narrows the options, and as soon
// as one is left it wins; what remains at the end is chosen among at random. An expander that
// keeps nothing ends the chain with no choice. Returns an index into `options`, or nullopt.
std::optional<std::size_t> choose_option(std::span<const ScaleUpOption> options,
                                         std::span<const Expander> expanders,
                                         std::span<const ExpanderPriority> priorities,
                                         RngStream& rng);

std::string_view to_string(Expander e);

}  // namespace fleetsim
