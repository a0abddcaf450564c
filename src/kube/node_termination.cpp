#include "fleetsim/kube/node_termination.hpp"

namespace fleetsim {

void NodeTermination::delete_node(NodeId id, std::string_view reason, SimDuration drain) {
  if (!cluster_.node(id).is_live()) return;
  const SimTime now = sim_.now();
  cluster_.begin_node_deletion(id, now, saturating_add(now, drain), reason);
  bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeDeleting, .node = id, .reason = reason});
  const std::vector<PodId> bound = cluster_.node(id).pods;
  for (PodId p : bound) {
    cluster_.finish(p, PodPhase::Deleted, now);
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::PodEvicted,
                       .node = id,
                       .pod = p,
                       .workload = cluster_.pod(p).workload,
                       .reason = reason});
    bus_.pod_evicted(p, id);
  }
  cluster_.clear_nominations_to(id);
  cloud_.terminate(id, saturating_add(now, drain));
  bus_.capacity_changed();
}

}  // namespace fleetsim
