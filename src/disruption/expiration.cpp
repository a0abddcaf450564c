#include "fleetsim/disruption/expiration.hpp"

namespace fleetsim {

void Expiration::claim_created(NodeId id) {
  const Node& n = cluster_.node(id);
  const NodePool& pool = pools_[n.nodepool()->pool];
  if (!pool.expire_after) return;
  grace_.emplace(id, pool.termination_grace_period);
  sim_.schedule_at(saturating_add(n.created, *pool.expire_after), Phase::Disruption, *this, id);
}

void Expiration::on_event(SimTime, std::uint64_t tag) {
  const auto id = static_cast<NodeId>(tag);
  const auto it = grace_.find(id);
  const std::optional<SimDuration> grace = it->second;
  grace_.erase(it);
  if (!cluster_.node(id).is_live()) return;
  termination_.delete_node(id, NodeDeletionReason::Expired, {.termination_grace_period = grace});
}

}  // namespace fleetsim
