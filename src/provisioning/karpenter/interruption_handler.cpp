#include "fleetsim/provisioning/karpenter/interruption_handler.hpp"

namespace fleetsim {

void InterruptionHandler::on_cloud_notice(const CloudNotice& notice) {
  const Node& n = cluster_.node(notice.node);
  if (!n.is_live()) return;
  cloud_.mark_unavailable(offering_of(cloud_.catalog(), n));
  const NodeDeletionReason reason = notice.kind == CloudNoticeKind::SpotInterruption
                                        ? NodeDeletionReason::SpotInterruption
                                        : NodeDeletionReason::CapacityReservationInterruption;
  termination_.delete_node(n.id, reason, {.instance_stops = notice.terminates_at});
}

}  // namespace fleetsim
