// The words report.json, events.jsonl and the summary use for each reason: baselines and
// dashboards key on them, so each is fixed here.
#include "fleetsim/report/reason_names.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

TEST_CASE("node deletion reasons keep their report names", "[report]") {
  CHECK(reason_name(NodeDeletionReason::None) == "unknown");
  CHECK(reason_name(NodeDeletionReason::Expired) == "expired");
  CHECK(reason_name(NodeDeletionReason::Drifted) == "drifted");
  CHECK(reason_name(NodeDeletionReason::Empty) == "empty");
  CHECK(reason_name(NodeDeletionReason::Underutilized) == "underutilized");
  CHECK(reason_name(NodeDeletionReason::SpotInterruption) == "spot_interruption");
  CHECK(reason_name(NodeDeletionReason::CapacityReservationInterruption) ==
        "capacity_reservation_interruption");
  CHECK(reason_name(NodeDeletionReason::ScaleDown) == "scale_down");
  CHECK(reason_name(NodeDeletionReason::ScaleDownEmpty) == "scale_down_empty");
  CHECK(reason_name(NodeDeletionReason::ScaleUpTimedOut) == "scale_up_timed_out");
}

TEST_CASE("every other reason type keeps its event name", "[report]") {
  CHECK(reason_name(PodDeletionReason::ScaleDown) == "scale_down");
  CHECK(reason_name(ReplicasSource::Apply) == "apply");
  CHECK(reason_name(ReplicasSource::Scripted) == "scripted");
  CHECK(reason_name(ReplicasSource::Hpa) == "hpa");
  CHECK(reason_name(ReplicasSource::Keda) == "keda");
  CHECK(reason_name(ScaleUpFailure::NoCapacity) == "no_capacity");
  CHECK(reason_name(ScaleUpFailure::TimedOut) == "timed_out");
  CHECK(reason_name(RebalanceAction::NoAction) == "no_action");
  CHECK(reason_name(DisruptionReason::Underutilized) == "Underutilized");
}

TEST_CASE("an event names its reason, and none when it has none", "[report]") {
  CHECK(reason_name(EventReason{}).empty());
  // A node its cloud took away was not deleted: its event says no reason (the report counts it
  // as unknown).
  CHECK(reason_name(EventReason{NodeDeletionReason::None}).empty());
  CHECK(reason_name(EventReason{NodeDeletionReason::SpotInterruption}) == "spot_interruption");
  CHECK(reason_name(EventReason{ReplicasSource::Keda}) == "keda");
}

TEST_CASE("counts by deletion reason are keyed by their names", "[report]") {
  const auto named = by_name({{NodeDeletionReason::SpotInterruption, 2},
                              {NodeDeletionReason::Empty, 5},
                              {NodeDeletionReason::None, 1}});
  CHECK(named == std::map<std::string, std::int64_t, std::less<>>{
                     {"empty", 5}, {"spot_interruption", 2}, {"unknown", 1}});
}
