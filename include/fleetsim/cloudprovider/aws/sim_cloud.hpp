// The simulated EC2: launches with start-up latency, offering capacity and the insufficient-
// capacity cache, spot interruption notices and termination.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim {

// Start-up phases after a launch (DESIGN.md §4.1): the instance runs and is billed (launch),
// the kubelet joins (registration), then the node is Ready with its GPUs advertised
// (initialization).
struct NodeLatency {
  SimDuration launch;
  SimDuration registration;    // after launch
  SimDuration initialization;  // after registration
  friend bool operator==(const NodeLatency&, const NodeLatency&) = default;
};

// An offering the launch may use, cheapest first.
struct LaunchCandidate {
  std::uint32_t type = 0;
  std::uint32_t offering = 0;  // index into the type's offerings
  double price = 0.0;
};

// Karpenter's unavailable-offerings cache TTL (aws:pkg/cache/cache.go UnavailableOfferingsTTL).
inline constexpr SimDuration kUnavailableOfferingTtl = minutes(3);
// EC2 terminates a spot instance two minutes after its interruption notice.
inline constexpr SimDuration kSpotInterruptionWarning = minutes(2);

class SimCloud : private EventHandler {
 public:
  SimCloud(Simulation& sim, Cluster& cluster, ClusterBus& bus, const SchedulingContext& context);

  // Per global offering: 1 unless it is in the unavailable-offerings cache. Like Karpenter, the
  // solver does not know EC2's spare capacity: it learns of a shortage when a launch fails.
  std::span<const std::uint8_t> usable_offerings();

  // Launches the first candidate with capacity; each candidate without capacity is marked
  // unavailable for three minutes (an ICE error), as the fleet API reports it. Returns the node,
  // or nullopt when every candidate was out of capacity.
  std::optional<NodeId> launch(Node node_template, std::span<const LaunchCandidate> candidates,
                               const NodeLatency& latency);

  // Marks an offering unavailable for the cache TTL (ICE, or a spot interruption in its pool).
  void mark_unavailable(std::uint32_t global_offering);

  // Cordons a node and evicts its pods now; the instance terminates after `drain` (Karpenter
  // deletes the instance once drained; EC2 stops a spot instance at the notice + 2 min).
  void delete_node(NodeId node, std::string_view reason, SimDuration drain);

  // A spot interruption notice: the offering becomes unavailable, Karpenter deletes the
  // NodeClaim at once, and the node is gone once drained or at the two-minute mark.
  void interrupt_spot(NodeId node);

  // NodePools changed (a scripted apply): offerings are the catalog's, so only the pools move.
  void set_context(const SchedulingContext& context) { context_ = &context; }

  // Running instances of each offering (capacity accounting).
  std::int64_t running(std::uint32_t global_offering) const { return running_[global_offering]; }

 private:
  enum class Step : std::uint8_t { Launched, Registered, Initialized, Terminate };
  void on_event(SimTime now, std::uint64_t tag) override;
  static std::uint64_t tag(NodeId node, Step step) { return (static_cast<std::uint64_t>(node) << 8) | static_cast<std::uint64_t>(step); }
  std::uint32_t global_offering(const Node& n) const;

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  const SchedulingContext* context_;
  std::vector<SimTime> unavailable_until_;
  std::vector<std::int64_t> running_;
  std::vector<std::uint8_t> usable_;
  std::vector<NodeLatency> latency_;  // per node
};

}  // namespace fleetsim
