// The words the report, events.jsonl and the summary use for each reason type.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "fleetsim/cloudprovider/aws/rebalance_action.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/reasons.hpp"
#include "fleetsim/k8s/sim_event.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/scale_up_decision.hpp"

namespace fleetsim {

std::string_view reason_name(NodeDeletionReason reason);
std::string_view reason_name(PodDeletionReason reason);
std::string_view reason_name(ReplicasSource source);
std::string_view reason_name(ScaleUpFailure failure);
std::string_view reason_name(RebalanceAction action);
// As the NodePool API spells it ("Empty", "Underutilized", "Drifted").
std::string_view reason_name(DisruptionReason reason);
// An event's reason; empty when it has none (or a node's deletion reason is None).
std::string_view reason_name(const EventReason& reason);

// Counts by reason, keyed by their names (the report's order).
std::map<std::string, std::int64_t, std::less<>> by_name(
    const std::map<NodeDeletionReason, std::int64_t>& counts);

}  // namespace fleetsim
