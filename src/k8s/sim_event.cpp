#include "fleetsim/k8s/sim_event.hpp"

namespace fleetsim {

std::string_view to_string(EventKind k) {
  switch (k) {
    case EventKind::NodeClaimCreated:
      return "nodeclaim_created";
    case EventKind::NodeLaunched:
      return "node_launched";
    case EventKind::NodeRegistered:
      return "node_registered";
    case EventKind::NodeReady:
      return "node_ready";
    case EventKind::NodeDeleting:
      return "node_deleting";
    case EventKind::NodeTerminated:
      return "node_terminated";
    case EventKind::LaunchFailed:
      return "launch_failed";
    case EventKind::PodCreated:
      return "pod_created";
    case EventKind::PodNominated:
      return "pod_nominated";
    case EventKind::PodScheduled:
      return "pod_scheduled";
    case EventKind::PodReady:
      return "pod_ready";
    case EventKind::PodCompleted:
      return "pod_completed";
    case EventKind::PodEvicted:
      return "pod_evicted";
    case EventKind::PodDeleted:
      return "pod_deleted";
    case EventKind::PodUnschedulable:
      return "pod_unschedulable";
    case EventKind::PodPreempted:
      return "pod_preempted";
    case EventKind::SpotInterruptionNotice:
      return "spot_interruption_notice";
    case EventKind::SpotRebalanceRecommendation:
      return "spot_rebalance_recommendation";
    case EventKind::CapacityChanged:
      return "capacity_changed";
    case EventKind::SpotPriceChanged:
      return "spot_price_changed";
    case EventKind::ScaleUp:
      return "scale_up";
    case EventKind::ScaleUpFailed:
      return "scale_up_failed";
    case EventKind::ScaleDownCandidate:
      return "scale_down_candidate";
    case EventKind::NodeBufferPods:
      return "node_buffer_pods";
    case EventKind::PodCrashed:
      return "pod_crashed";
    case EventKind::PodWaitingOnPermit:
      return "pod_waiting_on_permit";
    case EventKind::PodPermitRejected:
      return "pod_permit_rejected";
    case EventKind::PodGroupTimeout:
      return "pod_group_timeout";
    case EventKind::WorkloadCreated:
      return "workload_created";
    case EventKind::WorkloadCompleted:
      return "workload_completed";
    case EventKind::ReplicasChanged:
      return "replicas_changed";
    case EventKind::DisruptionDecision:
      return "disruption_decision";
  }
  return "unknown";
}

EventSubject subject_of(EventKind k) {
  switch (k) {
    case EventKind::CapacityChanged:
    case EventKind::SpotPriceChanged:
      return EventSubject::Offering;
    case EventKind::ScaleUp:
    case EventKind::ScaleUpFailed:
      return EventSubject::NodeGroup;
    case EventKind::ScaleDownCandidate:
    case EventKind::NodeBufferPods:
    case EventKind::NodeClaimCreated:
    case EventKind::NodeLaunched:
    case EventKind::NodeRegistered:
    case EventKind::NodeReady:
    case EventKind::NodeDeleting:
    case EventKind::NodeTerminated:
    case EventKind::SpotInterruptionNotice:
    case EventKind::SpotRebalanceRecommendation:
    case EventKind::LaunchFailed:  // carries a node only when a NodeClaim object existed
      return EventSubject::Node;
    case EventKind::PodCreated:
    case EventKind::PodNominated:
    case EventKind::PodScheduled:
    case EventKind::PodReady:
    case EventKind::PodCompleted:
    case EventKind::PodEvicted:
    case EventKind::PodDeleted:
    case EventKind::PodUnschedulable:
    case EventKind::PodPreempted:
    case EventKind::PodCrashed:
    case EventKind::PodWaitingOnPermit:
    case EventKind::PodPermitRejected:
      return EventSubject::Pod;
    case EventKind::PodGroupTimeout:
    case EventKind::WorkloadCreated:
    case EventKind::WorkloadCompleted:
    case EventKind::ReplicasChanged:
      return EventSubject::Workload;
    case EventKind::DisruptionDecision:
      return EventSubject::Command;
  }
  return EventSubject::Workload;
}

}  // namespace fleetsim
