// A CloudProvider for the tests of the controllers that launch through one, after Karpenter's
// fake (kubernetes-sigs/karpenter pkg/cloudprovider/fake/cloudprovider.go): every launch and
// termination is recorded, and a test makes launches fail with insufficient capacity (the next
// one, every one of a NodePool, or every one that would land on an instance type or an
// offering). None of EC2's behaviour: no launch filters, no start-up latency, no capacity
// limits; nodes are the catalog's size; a launch takes the cheapest offering the request allows,
// and the node stays launching until the test starts it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/aws/price_source.hpp"
#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"

namespace fleetsim::test {

class FakeCloudProvider final : public CloudProvider, private EventHandler {
 public:
  // One launch call, as the provisioner made it, and what came of it.
  struct LaunchCall {
    std::string nodepool;
    Requirements requirements;
    std::vector<InstanceTypeOption> types;  // in the claim's order
    std::optional<std::uint32_t> offering;  // the global offering launched; nullopt: it failed
    std::optional<NodeId> node;
  };
  struct TerminateCall {
    NodeId node = kNoNode;
    SimTime at{};
  };

  FakeCloudProvider(Simulation& sim, Cluster& cluster, ClusterBus& bus, const Catalog& catalog)
      : sim_(sim),
        cluster_(cluster),
        bus_(bus),
        prices_(catalog),
        unavailable_(catalog.offering_count(), 0),
        usable_(catalog.offering_count(), 1) {}

  // ---- What the controllers asked ----
  std::vector<LaunchCall> launch_calls;
  std::vector<TerminateCall> terminate_calls;
  std::vector<std::uint32_t> marked_unavailable;  // global offerings, in call order

  // ---- Insufficient capacity, injected (Karpenter's fake: NextCreateErr) ----
  // The next launch fails, whatever it asks for.
  void fail_next_launch() { fail_next_ = true; }
  // Every launch after the first `count` calls fails (Karpenter's fake: AllowedCreateCalls).
  void allow_launches(std::size_t count) { allowed_launches_ = count; }
  // Every launch of the NodePool fails.
  void fail_nodepool(std::string nodepool) { failing_pools_.insert(std::move(nodepool)); }
  // A launch whose cheapest offering is of this type, or is this offering, fails, and that
  // offering is marked unavailable (as a cloud reports insufficient capacity per offering).
  void fail_type(std::uint32_t type) { failing_types_.insert(type); }
  void fail_offering(std::uint32_t global_offering) { failing_offerings_.insert(global_offering); }
  // The cloud has capacity again for an offering it reported out of capacity.
  void make_available(std::uint32_t global_offering) { unavailable_[global_offering] = 0; }

  // The instance ran, joined and became Ready now.
  void start(NodeId id) {
    cluster_.node_launched(id, sim_.now());
    bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::NodeLaunched, .node = id});
    cluster_.node_registered(id);
    cluster_.node_initialized(id, sim_.now());
    bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::NodeReady, .node = id});
    bus_.capacity_changed();
  }

  std::size_t launches_failed() const {
    return static_cast<std::size_t>(std::count_if(launch_calls.begin(), launch_calls.end(),
                                                  [](const LaunchCall& c) { return !c.node; }));
  }

  // ---- CloudProvider ----
  const Catalog& catalog() const override { return prices_.catalog(); }
  // The catalog's own sizing, whatever the NodeClass: the provisioner's tests do not size nodes.
  std::vector<SizedInstanceType> instance_types(const KubeletSizing&) const override {
    std::vector<SizedInstanceType> out;
    for (std::uint32_t t = 0; t < catalog().types().size(); ++t) {
      const InstanceType& type = catalog().types()[t];
      out.push_back({.type = t,
                     .capacity = type.capacity,
                     .overhead = type.capacity - type.allocatable,
                     .allocatable = type.allocatable});
    }
    return out;
  }
  double price(std::uint32_t g) const override { return prices_.offering_price(g); }
  std::span<const double> offering_prices() const override { return prices_.offering_prices(); }
  double volumes_price_per_hour(std::span<const BlockDevice> volumes) const override {
    return prices_.volumes_price_per_hour(volumes);
  }
  const NodePricing& node_pricing() const override { return prices_; }
  std::span<const std::uint8_t> usable_offerings() override {
    for (std::size_t g = 0; g < usable_.size(); ++g) usable_[g] = unavailable_[g] == 0;
    return usable_;
  }
  void mark_unavailable(std::uint32_t g) override {
    unavailable_[g] = 1;
    marked_unavailable.push_back(g);
  }

  std::optional<NodeId> launch(LaunchRequest request) override {
    LaunchCall& call = launch_calls.emplace_back(
        LaunchCall{.nodepool = request.node.owner_name(),
                   .requirements = request.requirements,
                   .types = {request.types.begin(), request.types.end()}});
    if (fail_next_ || failing_pools_.contains(request.node.owner_name()) ||
        launch_calls.size() > allowed_launches_) {
      fail_next_ = false;
      return std::nullopt;
    }
    const std::optional<Choice> choice = cheapest(request);
    if (!choice) return std::nullopt;
    const std::uint32_t type = catalog().type_of_offering(choice->offering);
    if (failing_types_.contains(type) || failing_offerings_.contains(choice->offering)) {
      mark_unavailable(choice->offering);
      return std::nullopt;
    }
    launch_on_offering(request.node, catalog(), choice->offering,
                       prices_.offering_price(choice->offering), request.types[choice->option],
                       sim_.now());
    call.offering = choice->offering;
    call.node = cluster_.add_node(std::move(request.node));
    return call.node;
  }

  void terminate(NodeId node, SimTime at) override {
    terminate_calls.push_back({.node = node, .at = at});
    sim_.schedule_at(std::max(at, sim_.now()), Phase::CloudAndNodes, *this, node);
  }

 private:
  struct Choice {
    std::uint32_t option = 0;  // index into the request's types
    std::uint32_t offering = 0;
  };

  // The cheapest usable offering the request's zones and capacity types allow; ties go to the
  // claim's order, then the catalog's.
  std::optional<Choice> cheapest(const LaunchRequest& request) const {
    const Requirement* zones = request.requirements.get(label::kZone);
    const Requirement* capacity = request.requirements.get(label::kCapacityType);
    std::optional<Choice> best;
    for (std::uint32_t k = 0; k < request.types.size(); ++k) {
      const std::uint32_t t = request.types[k].type;
      for (std::size_t i = 0; i < catalog().types()[t].offerings.size(); ++i) {
        const Offering& o = catalog().types()[t].offerings[i];
        const std::uint32_t g = catalog().offering_index(t, i);
        if (unavailable_[g] != 0 || (zones != nullptr && !zones->allows(o.zone)) ||
            (capacity != nullptr && !capacity->allows(to_string(o.capacity_type))))
          continue;
        if (!best || price(g) < price(best->offering)) best = Choice{.option = k, .offering = g};
      }
    }
    return best;
  }

  void on_event(SimTime now, std::uint64_t node) override {
    const auto id = static_cast<NodeId>(node);
    cluster_.node_terminated(id, now);
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::NodeTerminated,
                       .node = id,
                       .reason = cluster_.node(id).termination_reason});
  }

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  PriceSource prices_;
  std::vector<std::uint8_t> unavailable_;  // by global offering: reported out of capacity
  std::vector<std::uint8_t> usable_;
  bool fail_next_ = false;
  std::size_t allowed_launches_ = SIZE_MAX;
  std::set<std::string, std::less<>> failing_pools_;
  std::set<std::uint32_t> failing_types_;
  std::set<std::uint32_t> failing_offerings_;
};

}  // namespace fleetsim::test
