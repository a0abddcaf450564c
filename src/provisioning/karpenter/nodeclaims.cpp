#include "fleetsim/provisioning/karpenter/nodeclaims.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

const NodeClaimState kNoClaim{};

}  // namespace

void NodeClaims::add(NodeId node, NodeClaimState state) {
  if (by_node_.size() <= node) by_node_.resize(node + 1);
  by_node_[node] = state;
}

const NodeClaimState& NodeClaims::at(NodeId node) const {
  return node < by_node_.size() ? by_node_[node] : kNoClaim;
}

void NodeClaims::hold_nominated(NodeId node, SimTime until) {
  if (by_node_.size() <= node) by_node_.resize(node + 1);
  by_node_[node].nominated_until = until;
}

void NodeClaims::set_buffer_pods(const std::vector<std::int32_t>& counts,
                                 std::vector<NodeId>& changed) {
  const std::size_t n = std::max(counts.size(), buffer_pods_.size());
  buffer_pods_.resize(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t now = i < counts.size() ? counts[i] : 0;
    if (buffer_pods_[i] == now) continue;
    buffer_pods_[i] = now;
    changed.push_back(static_cast<NodeId>(i));
  }
}

}  // namespace fleetsim
