// Streams events.jsonl: one JSON object per event, keys in a fixed order (DESIGN.md §7).
#pragma once

#include <ostream>
#include <string>

#include "fleetsim/disruption/disruption_decision.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/scale_up_decision.hpp"

namespace fleetsim {

// Key order: "t", "kind"; node events then "node", "nodepool", "instance_type", "capacity_type",
// "zone" (and "price_usd_per_hour" for node_launched); pod events "pod", "workload" and "node"
// once the event names one; workload_created "workload"; disruption_decision "method", "nodes",
// "replacements", "savings_usd_per_hour", "pods"; last "reason" when the event has one.
// Lines are built by hand rather than through nlohmann::json: every event passes here, and a
// reused buffer keeps the writer free of per-event allocation and the bytes fixed.
// An observer of a run (give it to RunOptions::event_sinks); `out` must outlive it.
class EventWriter final : public EventSink {
 public:
  explicit EventWriter(std::ostream& out) : out_(out) {}

  void on_event(const SimEvent& e, const Cluster& cluster) override;

 private:
  void append_key(std::string_view key);
  void append_node(const Node& node, bool with_price);
  void append_scale_up_options(std::string_view key,
                               std::span<const ScaleUpDecision::Option> options, bool with_pods);
  void append_decision(const DisruptionDecision& d, const Cluster& cluster);

  std::ostream& out_;
  std::string line_;
};

}  // namespace fleetsim
