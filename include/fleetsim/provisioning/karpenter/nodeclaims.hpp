// What Karpenter keeps about the NodeClaims it launched, by node: the hashes its drift check
// compares (the NodeClaim's karpenter.sh/nodepool-hash and EC2NodeClass hash annotations) and the
// nomination that keeps a node from disruption (state.Cluster's StateNode).
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

struct NodeClaimState {
  std::uint64_t template_hash = 0;    // its NodePool's template_hash at launch
  std::uint64_t node_class_hash = 0;  // its EC2NodeClass's spec hash at launch
  SimTime nominated_until{};          // pods were planned onto it: no disruption candidate
};

class NodeClaims {
 public:
  void add(NodeId node, NodeClaimState state);
  // A node Karpenter did not launch (a node group's) has the default state.
  const NodeClaimState& at(NodeId node) const;
  // Pods were planned onto the node: it is no disruption candidate until `until`.
  void hold_nominated(NodeId node, SimTime until);

  // bufferPodCounts: the CapacityBuffer virtual pods the last solve placed on each existing node
  // (UpdateBufferPodCounts replaces them all). Emptiness leaves a node holding any.
  std::int32_t buffer_pods(NodeId node) const {
    return node < buffer_pods_.size() ? buffer_pods_[node] : 0;
  }
  // Replaces the counts with `counts` (by NodeId; absent: 0); appends the nodes whose count
  // changed to `changed`, in id order.
  void set_buffer_pods(const std::vector<std::int32_t>& counts, std::vector<NodeId>& changed);

 private:
  std::vector<NodeClaimState> by_node_;  // by NodeId
  std::vector<std::int32_t> buffer_pods_;
};

}  // namespace fleetsim
