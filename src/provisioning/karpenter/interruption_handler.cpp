#include "fleetsim/provisioning/karpenter/interruption_handler.hpp"

#include <algorithm>

namespace fleetsim {

void InterruptionHandler::on_cloud_notice(const CloudNotice& notice) {
  const Node& n = cluster_.node(notice.node);
  if (!n.is_live()) return;
  cloud_.mark_unavailable(offering_of(cloud_.catalog(), n));
  SimDuration drain{0};
  for (PodId p : n.pods) drain = std::max(drain, cluster_.pod(p).spec->termination_grace);
  termination_.delete_node(n.id, "spot_interruption",
                           std::min(drain, notice.terminates_at - sim_.now()));
}

}  // namespace fleetsim
