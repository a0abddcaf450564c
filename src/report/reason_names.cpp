#include "fleetsim/report/reason_names.hpp"

#include <variant>

namespace fleetsim {

std::string_view reason_name(NodeDeletionReason reason) {
  switch (reason) {
    case NodeDeletionReason::None:
      return "unknown";
    case NodeDeletionReason::Expired:
      return "expired";
    case NodeDeletionReason::Drifted:
      return "drifted";
    case NodeDeletionReason::Empty:
      return "empty";
    case NodeDeletionReason::Underutilized:
      return "underutilized";
    case NodeDeletionReason::SpotInterruption:
      return "spot_interruption";
    case NodeDeletionReason::CapacityReservationInterruption:
      return "capacity_reservation_interruption";
    case NodeDeletionReason::ScaleDown:
      return "scale_down";
    case NodeDeletionReason::ScaleDownEmpty:
      return "scale_down_empty";
    case NodeDeletionReason::ScaleUpTimedOut:
      return "scale_up_timed_out";
  }
  return "?";
}

std::string_view reason_name(PodDeletionReason reason) {
  switch (reason) {
    case PodDeletionReason::ScaleDown:
      return "scale_down";
    case PodDeletionReason::Preempted:
      return "preempted";
    case PodDeletionReason::AdmissionFailed:
      return "unexpected_admission_error";
  }
  return "?";
}

std::string_view reason_name(ReplicasSource source) {
  switch (source) {
    case ReplicasSource::Apply:
      return "apply";
    case ReplicasSource::Scripted:
      return "scripted";
    case ReplicasSource::Hpa:
      return "hpa";
    case ReplicasSource::Keda:
      return "keda";
  }
  return "?";
}

std::string_view reason_name(ScaleUpFailure failure) {
  switch (failure) {
    case ScaleUpFailure::NoCapacity:
      return "no_capacity";
    case ScaleUpFailure::TimedOut:
      return "timed_out";
  }
  return "?";
}

std::string_view reason_name(RebalanceAction action) {
  switch (action) {
    case RebalanceAction::NoAction:
      return "no_action";
  }
  return "?";
}

std::string_view reason_name(DisruptionReason reason) { return to_string(reason); }

std::string_view reason_name(const EventReason& reason) {
  return std::visit(
      [](const auto& r) -> std::string_view {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return {};
        } else if constexpr (std::is_same_v<T, NodeDeletionReason>) {
          // A node its cloud took away without a deletion says no reason.
          return r == NodeDeletionReason::None ? std::string_view{} : reason_name(r);
        } else {
          return reason_name(r);
        }
      },
      reason);
}

std::map<std::string, std::int64_t, std::less<>> by_name(
    const std::map<NodeDeletionReason, std::int64_t>& counts) {
  std::map<std::string, std::int64_t, std::less<>> named;
  for (const auto& [reason, count] : counts) named[std::string(reason_name(reason))] += count;
  return named;
}

}  // namespace fleetsim
