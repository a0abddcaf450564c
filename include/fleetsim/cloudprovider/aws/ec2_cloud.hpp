// The simulated EC2: launches with start-up latency, offering capacity and the insufficient-
// capacity cache, spot interruption notices and instance termination.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/aws/aws_instance_types.hpp"
#include "fleetsim/cloudprovider/aws/price_source.hpp"
#include "fleetsim/cloudprovider/cloud_provider.hpp"
#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"

namespace fleetsim {

// Karpenter's unavailable-offerings cache TTL (aws:pkg/cache/cache.go UnavailableOfferingsTTL).
inline constexpr SimDuration kUnavailableOfferingTtl = minutes(3);
// EC2 terminates a spot instance two minutes after its interruption notice.
inline constexpr SimDuration kSpotInterruptionWarning = minutes(2);

class Ec2Cloud final : public CloudProvider, private EventHandler {
 public:
  // `latency_by_type` gives each catalog type's start-up latencies (medians: each launch draws
  // its node's from the "node-startup" stream, one normal per launch, in launch order);
  // `fee_by_type` EKS Auto Mode's management fee per catalog type (empty: none).
  Ec2Cloud(Simulation& sim, Cluster& cluster, ClusterBus& bus, const Catalog& catalog,
           std::vector<NodeLatency> latency_by_type, std::vector<double> fee_by_type = {});

  const Catalog& catalog() const override { return catalog_; }
  // Karpenter's AWS sizing (AwsInstanceTypes).
  std::vector<SizedInstanceType> instance_types(const KubeletSizing& node_class) const override {
    return sizing_.instance_types(node_class);
  }
  // The price source's: the catalog's prices until set_price changes one.
  double price(std::uint32_t global_offering) const override {
    return prices_.offering_price(global_offering);
  }
  std::span<const double> offering_prices() const override { return prices_.offering_prices(); }
  // Both counts only grow, so their sum changes whenever either does.
  std::uint64_t offerings_revision() const override {
    return 1 + usable_revision_ + prices_.revision();
  }
  double volumes_price_per_hour(std::span<const BlockDevice> volumes) const override {
    return prices_.volumes_price_per_hour(volumes);
  }
  const NodePricing& node_pricing() const override { return prices_; }
  const PriceSource& prices() const { return prices_; }
  // Like Karpenter, the solver does not know EC2's spare capacity: it learns of a shortage when
  // a launch fails. A reservation's offering is usable only inside its window (a Capacity Block
  // not yet expiring) with an instance of its count free, as Karpenter AWS's reserved offerings
  // are available (reserved_capacity_resolver.go).
  std::span<const std::uint8_t> usable_offerings() override;
  // A reservation's count less its running instances; 0 outside its window (Karpenter AWS's
  // ReservationCapacity, the available count EC2 reports).
  std::span<const std::int64_t> reservation_remaining() override;
  void mark_unavailable(std::uint32_t global_offering) override;
  // Karpenter's AWS launch filters choose the capacity type and order the offerings
  // (launch_filters.hpp); an offering with no spare capacity fails with
  // InsufficientInstanceCapacity and is marked unavailable for three minutes, as the fleet API
  // reports it, and the next is tried.
  std::optional<NodeId> launch(LaunchRequest request) override;
  void terminate(NodeId node, SimTime at) override;

  // One offering to try, and the node it would make.
  struct OfferingChoice {
    std::uint32_t offering = 0;  // global offering index
    Resources allocatable;
    Resources daemon_overhead;
    NodeGpuSetup gpu_setup;
  };
  // Launches the first of `choices` with capacity, in their order, as an Auto Scaling group's
  // request does: an offering out of capacity is skipped, not cached (the group retries on its
  // own). Returns nullopt when none had capacity.
  std::optional<NodeId> launch_first(Node node, std::span<const OfferingChoice> choices);

  // EC2 reclaims a spot instance: a notice now, and the instance stops two minutes later. A node
  // that is not a live spot instance is left alone.
  void interrupt_spot(NodeId node);

  // Running instances of each offering (capacity accounting).
  std::int64_t running(std::uint32_t global_offering) const { return running_[global_offering]; }
  // From now on at most `capacity` instances of the offering run at once (nullopt: unlimited);
  // the catalog's figure at first. Instances already running are left alone: launches fail
  // with insufficient capacity until enough of them are gone.
  void set_capacity(std::uint32_t global_offering, std::optional<std::int64_t> capacity);
  std::optional<std::int64_t> capacity(std::uint32_t global_offering) const {
    return capacity_[global_offering];
  }
  // From now on the offering costs `price` an hour: new launches and the solver see it, and the
  // instances of it running are billed at it from now on (spot instances pay the current price).
  void set_price(std::uint32_t global_offering, double price);

  // The start-up phases drawn for a node this cloud launched.
  const NodeLatency& node_latency(NodeId node) const { return latency_by_node_[node]; }

 private:
  // The Reservation* steps' subject is a reservation index, the others' a node.
  enum class Step : std::uint8_t {
    Launched,
    Registered,
    Initialized,
    Terminate,
    ReservationNotice,  // its instances are told they go at the reclaim time (the handler drains)
    ReservationEnded,   // an ODCR's window closed: its instances run on as on-demand
  };
  void on_event(SimTime now, std::uint64_t tag) override;
  // Each reservation's end as EC2 and Karpenter AWS handle it, scheduled at construction.
  void schedule_reservation_ends();
  void on_reservation_step(Step step, std::size_t r);
  // When EC2 takes back a reservation's instances; kNever when it lets them run on.
  static SimTime reclaim_time(const Reservation& r);
  using Tag = EventTag<Step>;
  // Starts the instance of global offering `g`: the node is added, launching.
  NodeId start(Node node, std::uint32_t g, const Resources& allocatable,
               const Resources& daemon_overhead, const NodeGpuSetup& gpu_setup);

  Simulation& sim_;
  Cluster& cluster_;
  ClusterBus& bus_;
  const Catalog& catalog_;
  std::vector<NodeLatency> latency_by_type_;
  RngStream startup_rng_;
  std::vector<NodeLatency> latency_by_node_;  // by NodeId: the phases drawn at launch
  PriceSource prices_;
  AwsInstanceTypes sizing_;
  std::vector<SimTime> unavailable_until_;
  std::vector<std::int64_t> running_;
  std::vector<std::optional<std::int64_t>> capacity_;
  std::vector<std::uint8_t> usable_;
  // usable_ holds from usable_from_ until usable_until_ (the next insufficient-capacity expiry or
  // reservation window edge) unless a launch, termination or mark_unavailable changed an input
  // since: a consolidation pass asks for it at every price check.
  bool usable_stale_ = true;
  SimTime usable_from_{};
  SimTime usable_until_{};
  std::uint64_t usable_revision_ = 0;  // counts the times usable_ was computed
  std::vector<std::int64_t> reservation_remaining_;
};

}  // namespace fleetsim
