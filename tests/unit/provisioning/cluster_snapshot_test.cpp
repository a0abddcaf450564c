// The solver's view of the cluster: what provisioning (and later consolidation) solves on.
#include "fleetsim/provisioning/karpenter/cluster_snapshot.hpp"

#include <catch2/catch.hpp>

#include "unit/k8s/cluster_harness.hpp"
#include "unit/scheduling/builders.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

TEST_CASE(
    "a snapshot holds pending pods, live nodes with their pods, and every node against limits",
    "[provisioning]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const SchedulingContext context(catalog, pools, {});
  Cluster cluster;
  SpecStore specs;
  const NodeId live =
      add_node(cluster, {.name = "live", .allocatable = node_allocatable(4000, 16)});
  const NodeId going = add_node(cluster, {.name = "going"});
  const PodSpec* spec = specs.add(pod_requests(500, 512));
  const PodId bound = add_pending_pod(cluster, spec, kSimStart);
  cluster.bind(bound, live, at(seconds(1)));
  const PodId first = add_pending_pod(cluster, spec, at(seconds(2)));
  const PodId second = add_pending_pod(cluster, spec, at(seconds(3)));
  cluster.begin_node_deletion(going, at(seconds(4)), at(seconds(34)), NodeDeletionReason::Empty);

  const ClusterSnapshot s = take_snapshot(cluster, context);
  CHECK(s.pending == std::vector<PodId>{first, second});
  REQUIRE(s.pods.size() == 2);
  CHECK(s.pods[0].created_us == at(seconds(2)).time_since_epoch().count());
  // Only the live node can take pods; its room is what its pods left.
  CHECK(s.node_ids == std::vector<NodeId>{live});
  CHECK(s.nodes[0].available == node_allocatable(4000, 16) - pod_requests(500, 512));
  REQUIRE(s.bound.size() == 1);
  CHECK(s.bound[0].node == 0);
  // Limits count the deleting node too, by its type's capacity, until it is gone.
  CHECK(s.pool_nodes == std::vector<std::int64_t>{2});
  CHECK(s.pool_usage[0] == catalog.types()[0].capacity + catalog.types()[0].capacity);
  CHECK(s.input({}).nodes.size() == 1);
}

// karpenter pkg/utils/pod/scheduling.go IsProvisionable: a pod that kube-scheduler nominated
// after preempting others (status.nominatedNodeName) is not provisioned for; low-priority pods
// are, like any other.
TEST_CASE("a snapshot leaves out pods nominated by kube-scheduler's preemption", "[provisioning]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const SchedulingContext context(catalog, pools, {});
  Cluster cluster;
  SpecStore specs;
  const NodeId node = add_node(cluster, {.name = "node"});
  PodSpec low;
  low.requests = pod_requests(500, 512);
  low.priority = -100;
  const PodId preempting = add_pending_pod(cluster, specs.add(pod_requests(500, 512)), kSimStart);
  const PodId balloon = add_pending_pod(cluster, specs.add(std::move(low)), kSimStart);
  cluster.set_nominated_node_name(preempting, node);

  const ClusterSnapshot s = take_snapshot(cluster, context);
  CHECK(s.pending == std::vector<PodId>{balloon});
}

// IsProvisionable's FailedToSchedule: a gang's pod held at kube-scheduler's PreEnqueue was never
// tried, so it has no PodScheduled=False condition and Karpenter does not provision for it.
TEST_CASE("a snapshot leaves out pods held at PreEnqueue", "[provisioning]") {
  const Catalog catalog = small_catalog();
  const std::vector<NodePool> pools{make_pool("default")};
  const SchedulingContext context(catalog, pools, {});
  Cluster cluster;
  SpecStore specs;
  const PodSpec* spec = specs.add(pod_requests(500, 512));
  const PodId gated = add_pending_pod(cluster, spec, kSimStart);
  const PodId tried = add_pending_pod(cluster, spec, kSimStart);
  cluster.set_gated(gated, true);
  CHECK(take_snapshot(cluster, context).pending == std::vector<PodId>{tried});
}
