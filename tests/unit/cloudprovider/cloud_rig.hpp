// A simulated EC2 over a two-type catalog, for the tests of the cloud provider and of the
// controllers that act through it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "unit/k8s/cluster_harness.hpp"
#include "unit/scheduling/builders.hpp"

namespace fleetsim::test {

// NodeLatency{launch, registration, initialization}: Launched at 5 s, Registered at 5+40 = 45 s,
// Ready at 45+25 = 70 s after the launch call.
inline constexpr NodeLatency kLatency{seconds(5), seconds(40), seconds(25)};
inline constexpr SimTime kReadyAt = at(seconds(70));

struct Capacities {
  std::optional<std::int64_t> large{};   // m5.large offerings
  std::optional<std::int64_t> xlarge{};  // m5.xlarge offerings
  std::string spot_band{};               // the spot offerings' Spot Advisor band
};

// The position of one offering: catalog type index and index into that type's offerings.
struct OfferingPos {
  std::uint32_t type = 0;
  std::uint32_t offering = 0;
};

inline OfferingPos find_offering(const Catalog& catalog, std::string_view type,
                                 std::string_view zone, CapacityType ct) {
  const auto index = catalog.index_of(type);
  FLEETSIM_ASSERT(index.has_value());
  const InstanceType& t = catalog.types()[*index];
  for (std::size_t i = 0; i < t.offerings.size(); ++i)
    if (t.offerings[i].zone == zone && t.offerings[i].capacity_type == ct)
      return OfferingPos{.type = static_cast<std::uint32_t>(*index),
                         .offering = static_cast<std::uint32_t>(i)};
  FLEETSIM_ASSERT(false);
  return {};
}

// Two types in one zone, each with an on-demand and a spot offering.
inline Catalog cloud_catalog(const Capacities& caps) {
  InstanceType large = make_type({.name = "m5.large",
                                  .vcpu = 2,
                                  .memory_gib = 8,
                                  .max_pods = 29,
                                  .on_demand = 0.096,
                                  .spot = 0.04,
                                  .zones = {"us-east-1a"}});
  InstanceType xlarge = make_type({.name = "m5.xlarge",
                                   .vcpu = 4,
                                   .memory_gib = 16,
                                   .max_pods = 58,
                                   .on_demand = 0.192,
                                   .spot = 0.08,
                                   .zones = {"us-east-1a"}});
  for (Offering& o : large.offerings) o.capacity = caps.large;
  for (Offering& o : xlarge.offerings) o.capacity = caps.xlarge;
  for (InstanceType* t : {&large, &xlarge})
    for (Offering& o : t->offerings)
      if (o.capacity_type == CapacityType::Spot) o.interruption_bucket = caps.spot_band;
  return Catalog({large, xlarge}, "test");
}

// Everything an Ec2Cloud needs, never moved (the cloud points into the catalog).
struct CloudRig {
  explicit CloudRig(const Capacities& caps = {}, std::uint64_t seed = 7,
                    NodeLatency latency = kLatency)
      : catalog(cloud_catalog(caps)),
        sim(seed),
        cloud(sim, cluster, bus, catalog, {latency, latency}) {}
  CloudRig(const CloudRig&) = delete;
  CloudRig& operator=(const CloudRig&) = delete;

  std::uint32_t global(std::string_view type, CapacityType ct = CapacityType::OnDemand) const {
    OfferingPos pos = find_offering(catalog, type, "us-east-1a", ct);
    return catalog.offering_index(pos.type, pos.offering);
  }
  bool usable(std::string_view type, CapacityType ct = CapacityType::OnDemand) {
    return cloud.usable_offerings()[global(type, ct)] != 0;
  }

  // A NodeClaim for `types` (in that order) of capacity type `ct`; each node would carry the
  // type's allocatable and `daemon_overhead`.
  std::optional<NodeId> launch(const std::vector<std::string_view>& types,
                               CapacityType ct = CapacityType::OnDemand,
                               Resources daemon_overhead = {}) {
    std::vector<InstanceTypeOption> options;
    for (std::string_view name : types) {
      const auto index = catalog.index_of(name);
      FLEETSIM_ASSERT(index.has_value());
      options.push_back({.type = static_cast<std::uint32_t>(*index),
                         .allocatable = catalog.types()[*index].allocatable,
                         .daemon_overhead = daemon_overhead});
    }
    Requirements requirements;
    requirements.add(std::string(label::kCapacityType),
                     Requirement::single(std::string(to_string(ct))));
    Node tpl;
    tpl.name = "default-" + std::to_string(cluster.nodes().size());
    tpl.owner = owner;
    return cloud.launch(
        LaunchRequest{.node = std::move(tpl), .requirements = requirements, .types = options});
  }
  // Launches one node and runs until it is Ready.
  NodeId ready_node(std::string_view type, CapacityType ct = CapacityType::OnDemand) {
    std::optional<NodeId> id = launch({type}, ct);
    FLEETSIM_ASSERT(id.has_value());
    sim.run_until(std::max(sim.now(), kReadyAt));
    return *id;
  }
  PodId bound_pod(NodeId node, SimDuration grace = seconds(30)) {
    PodSpec s;
    s.requests = pod_requests(100, 128);
    s.termination_grace = grace;
    PodId id = add_pending_pod(cluster, specs.add(std::move(s)), sim.now());
    cluster.bind(id, node, sim.now());
    return id;
  }

  NodeOwner owner = NodePoolOwner{.pool = 0, .name = "default"};  // of the nodes launched
  Catalog catalog;
  Simulation sim;
  Cluster cluster;
  RecordingBus bus;
  Ec2Cloud cloud;
  SpecStore specs;
};

}  // namespace fleetsim::test
