#include "fleetsim/provisioning/karpenter/interruption_handler.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "unit/kube/termination_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Karpenter listens to the cloud's notices.
struct InterruptionRig : TerminationRig {
  InterruptionRig() { cloud.set_notice_listener(&handler); }
  InterruptionHandler handler{cluster, cloud, termination};
};

}  // namespace

TEST_CASE(
    "a spot interruption drains for the longest pod grace period and blocks the offering for three "
    "minutes",
    "[provisioning]") {
  InterruptionRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  PodId short_grace = rig.bound_pod(node, seconds(45));
  PodId long_grace = rig.bound_pod(node, seconds(90));
  const std::size_t events_before = rig.bus.events.size();

  const SimTime notice_at = at(seconds(100));
  rig.sim.run_until(notice_at);
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(notice_at);  // the termination controller's first look, at once

  std::vector<RecordedEvent> after(
      rig.bus.events.begin() + static_cast<std::ptrdiff_t>(events_before), rig.bus.events.end());
  REQUIRE(after.size() == 4);
  CHECK(after[0].kind == EventKind::SpotInterruptionNotice);
  CHECK(after[0].node == node);
  CHECK(after[0].time == notice_at);
  // Karpenter deletes the NodeClaim at once: cordon, then evict every pod.
  CHECK(after[1].kind == EventKind::NodeDeleting);
  CHECK(after[1].reason == EventReason{NodeDeletionReason::SpotInterruption});
  CHECK(after[2].kind == EventKind::PodEvicted);
  CHECK(after[2].pod == short_grace);
  CHECK(after[3].kind == EventKind::PodEvicted);
  CHECK(after[3].pod == long_grace);
  CHECK(after[3].reason == EventReason{NodeDeletionReason::SpotInterruption});
  CHECK(rig.bus.evicted == std::vector<PodId>{short_grace, long_grace});
  CHECK_FALSE(rig.usable("m5.large", CapacityType::Spot));
  CHECK(rig.usable("m5.large", CapacityType::OnDemand));  // only the spot pool was interrupted

  // max(45 s, 90 s) = 90 s of drain, below the two-minute warning; the instance is terminating
  // then and gone at the next poll, 5 s later.
  rig.sim.run_until(notice_at + seconds(90) - micros(1));
  CHECK_FALSE(rig.cluster.node(node).instance_terminating);
  rig.sim.run_until(notice_at + seconds(90));
  CHECK(rig.cluster.node(node).instance_terminating);
  rig.sim.run_until(notice_at + seconds(95) - micros(1));
  CHECK(rig.bus.count(EventKind::NodeTerminated) == 0);
  rig.sim.run_until(notice_at + seconds(95));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{195});
  CHECK(rig.cluster.node(node).termination_reason == NodeDeletionReason::SpotInterruption);

  rig.sim.run_until(notice_at + minutes(2) + seconds(59));
  CHECK_FALSE(rig.usable("m5.large", CapacityType::Spot));
  rig.sim.run_until(notice_at + kUnavailableOfferingTtl);
  CHECK(rig.usable("m5.large", CapacityType::Spot));
}

TEST_CASE("EC2 stops an interrupted spot node at the two-minute mark whatever the grace period",
          "[provisioning]") {
  InterruptionRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  rig.bound_pod(node, minutes(10));
  rig.sim.run_until(at(seconds(100)));
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(at(minutes(10)));
  // min(10 min grace, 2 min warning) after the notice at 100 s.
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{220});
}

TEST_CASE("an interrupted spot node without pods is gone MinDrainTime and a poll after the notice",
          "[provisioning]") {
  InterruptionRig rig;
  NodeId node = rig.ready_node("m5.large", CapacityType::Spot);
  rig.sim.run_until(at(seconds(100)));
  rig.cloud.interrupt_spot(node);
  rig.sim.run_until(at(seconds(120)));
  CHECK(rig.bus.seconds_of(EventKind::NodeTerminated) == std::vector<double>{110});
}
