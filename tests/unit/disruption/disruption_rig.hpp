// A small cluster for disruption tests: a catalog, NodePools, the EC2 model with zero start-up
// latency, Karpenter's provisioner (for its launcher and solver view) and the disruption
// controller. Nodes are launched and pods bound by hand; evicted pods are not replaced.
#pragma once

#include <catch2/catch.hpp>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "../scheduling/builders.hpp"
#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "fleetsim/disruption/disruption_controller.hpp"
#include "fleetsim/disruption/disruption_decision.hpp"
#include "fleetsim/disruption/expiration.hpp"

namespace fleetsim::test {

// The deletion reasons Karpenter's disruption gives, as the report spells them.
inline std::string deletion_word(const EventReason& reason) {
  switch (std::get<NodeDeletionReason>(reason)) {
    case NodeDeletionReason::Expired:
      return "expired";
    case NodeDeletionReason::Drifted:
      return "drifted";
    case NodeDeletionReason::Empty:
      return "empty";
    case NodeDeletionReason::Underutilized:
      return "underutilized";
    default:
      return "other";
  }
}

// Records node deletions and disruption decisions as text.
class RecordingBus : public ClusterBus {
 public:
  void emit(const SimEvent& e) override {
    const auto seconds = e.time.time_since_epoch().count() / 1'000'000;
    if (e.kind == EventKind::NodeDeleting) {
      lines.push_back(std::to_string(seconds) + "s " + cluster->node(e.node).name + " " +
                      deletion_word(e.reason));
    } else if (e.kind == EventKind::DisruptionDecision) {
      std::string line = std::to_string(seconds) + "s " + std::string(e.decision->method) + " [";
      for (std::size_t i = 0; i < e.decision->nodes.size(); ++i)
        line += (i ? " " : "") + cluster->node(e.decision->nodes[i]).name;
      line += "] -> [";
      for (std::size_t r = 0; r < e.decision->replacements.size(); ++r) {
        if (r > 0) line += "] [";
        for (std::size_t i = 0; i < e.decision->replacements[r].size(); ++i)
          line += (i ? " " : "") + e.decision->replacements[r][i];
      }
      line += "]";
      decisions.push_back(line);
      savings.push_back(e.decision->savings_per_hour);
    }
  }
  void pod_pending(PodId) override {}
  void pod_bound(PodId) override {}
  void pod_evicted(PodId, NodeId) override {}
  void pod_terminating(PodId) override {}
  void pod_preempted(PodId) override {}
  void capacity_changed() override {}

  const Cluster* cluster = nullptr;
  std::vector<std::string> lines;      // "45s node-a empty"
  std::vector<std::string> decisions;  // "30s single_node_consolidation [a] -> [m5.large]"
  std::vector<double> savings;
};

inline constexpr NodeLatency kNoLatency{
    .launch = seconds(0), .registration = seconds(0), .initialization = seconds(0)};

struct DisruptionRig {
  // `latencies`: per catalog type; none: every node starts at once.
  DisruptionRig(Catalog c, std::vector<NodePool> pools, ConsolidationSettings settings = {},
                std::vector<PodDisruptionBudgetSpec> budgets = {},
                std::vector<NodeLatency> latencies = {})
      : catalog(std::move(c)),
        cloud(sim, cluster, bus, catalog,
              latencies.empty() ? std::vector<NodeLatency>(catalog.types().size(), kNoLatency)
                                : std::move(latencies)),
        pdbs(cluster, std::move(budgets)),
        termination(sim, cluster, bus, cloud, pdbs),
        provisioner({.sim = sim,
                     .cluster = cluster,
                     .bus = bus,
                     .cloud = cloud,
                     .nodepool_inputs = {.catalog = catalog, .node_classes = {}, .daemonsets = {}},
                     .nodepools = std::move(pools)}),
        controller({.sim = sim,
                    .cluster = cluster,
                    .bus = bus,
                    .cloud = cloud,
                    .termination = termination,
                    .provisioner = provisioner,
                    .pdbs = pdbs,
                    .consolidation = settings}),
        expiration(sim, cluster, provisioner.nodepools(), termination) {
    bus.cluster = &cluster;
  }

  // Launches a node of `type` in `zone` with `capacity`, initialized now.
  NodeId launch(std::string name, std::string_view type, std::string_view zone = "us-east-1a",
                CapacityType capacity = CapacityType::OnDemand, std::uint32_t pool = 0) {
    const auto t = static_cast<std::uint32_t>(*catalog.index_of(type));
    Node tpl;
    tpl.name = std::move(name);
    tpl.owner = NodePoolOwner{.pool = pool, .name = provisioner.nodepools()[pool].name};
    const Labels& annotations = provisioner.nodepools()[pool].annotations;
    tpl.do_not_disrupt = annotations.contains(std::string(kDoNotDisruptAnnotation)) &&
                         annotations.at(std::string(kDoNotDisruptAnnotation)) == "true";
    const std::vector<InstanceTypeOption> types{
        {.type = t, .allocatable = catalog.types()[t].allocatable}};
    Requirements r;
    r.add(std::string(label::kZone), Requirement::single(std::string(zone)));
    r.add(std::string(label::kCapacityType), Requirement::single(std::string(to_string(capacity))));
    std::optional<NodeId> id =
        cloud.launch(LaunchRequest{.node = std::move(tpl), .requirements = r, .types = types});
    REQUIRE(id);
    provisioner.launcher().claims().add(
        *id, {.template_hash = template_hash(provisioner.nodepools()[pool]),
              .node_class_hash = provisioner.launcher().pool_info(pool).node_class_hash});
    expiration.claim_created(*id);  // as Karpenter's launcher's NodeClaimCreated does
    sim.run_until(sim.now());       // launch → registered → initialized, all now
    REQUIRE(cluster.node(*id).phase == NodePhase::Initialized);
    return *id;
  }

  // Binds a new pod with `spec` to `node` now.
  PodId bind(NodeId node, const PodSpec& spec) {
    specs.push_back(spec);
    const WorkloadId w = cluster.add_workload({.name = "app", .kind = WorkloadKind::Deployment});
    const PodId id = cluster.add_pod(Pod{.name = "pod-" + std::to_string(cluster.next_pod_id()),
                                         .workload = w,
                                         .spec = &specs.back(),
                                         .labels = &no_labels,
                                         .namespace_name = "default",
                                         .uid = "uid-" + std::to_string(cluster.next_pod_id()),
                                         .created = sim.now()});
    cluster.bind(id, node, sim.now());
    return id;
  }

  Catalog catalog;
  Simulation sim{42};
  Cluster cluster;
  RecordingBus bus;
  Ec2Cloud cloud;
  PodDisruptionBudgets pdbs;
  NodeTermination termination;
  KarpenterProvisioner provisioner;
  DisruptionController controller;
  Expiration expiration;
  std::deque<PodSpec> specs;
  Labels no_labels;
};

}  // namespace fleetsim::test
