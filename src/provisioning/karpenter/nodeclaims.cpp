#include "fleetsim/provisioning/karpenter/nodeclaims.hpp"

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

}  // namespace fleetsim
