// The cloud a provisioner launches instances in: the seam between the Kubernetes-side
// controllers (Karpenter, the Cluster Autoscaler) and one cloud's model (aws/).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/cloudprovider/node_latency.hpp"
#include "fleetsim/cloudprovider/node_pricing.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/nodepool.hpp"

namespace fleetsim {

// One instance type as a cloud would launch it for a NodeClass (Karpenter's
// CloudProvider.GetInstanceTypes): what the node reports, what the kubelet, the system and the
// eviction threshold reserve of it, and what pods may request. Its offerings' prices are the
// provider's price().
struct SizedInstanceType {
  std::uint32_t type = 0;  // catalog index
  Resources capacity;
  Resources overhead;
  Resources allocatable;
};

// Sizes a cloud's nodes: a running cloud provider, or (where no cloud runs, as in the scenario
// checks) its sizing alone.
class InstanceTypeSizer {
 public:
  virtual ~InstanceTypeSizer() = default;
  // Every catalog type, in catalog order, as a node of a NodeClass with these kubelet settings.
  virtual std::vector<SizedInstanceType> instance_types(const KubeletSizing& node_class) const = 0;
};

// Each catalog type's allocatable, as the sizer sizes a NodeClass's nodes.
std::vector<Resources> allocatable_by_type(const InstanceTypeSizer& sizer,
                                           const KubeletSizing& node_class);

// One instance type a NodeClaim may become, with the node it would make: allocatable as the
// NodeClass sizes it, and what the DaemonSet pods take of it.
struct InstanceTypeOption {
  std::uint32_t type = 0;  // catalog index
  Resources allocatable;
  Resources daemon_overhead;
  NodeGpuSetup gpu_setup;  // how its GPUs are configured once it runs
};

// A NodeClaim to turn into an instance. `node` carries what the provisioner decided (name, pool,
// labels, taints, volumes); the provider picks the instance type and offering among `types` (in
// the claim's order, cheapest compatible first) within `requirements` (zones, capacity types,
// minValues), and fills in type, zone, capacity type and price.
struct LaunchRequest {
  Node node;
  Requirements requirements;
  std::span<const InstanceTypeOption> types;
  // Per global offering: 1 where the NodeClass may launch it (its capacityReservationSelectorTerms
  // select the reservation); empty = every offering.
  std::span<const std::uint8_t> offering_allowed{};
  // By global offering: the NodePool's NodeOverlay price changes; empty: none.
  std::span<const OverlayPrice> price_by_offering;
};

// What the provider tells the cluster's controllers about an instance before it acts.
enum class CloudNoticeKind : std::uint8_t {
  SpotInterruption,  // the instance stops at `terminates_at`
  // Its reservation takes it back at `terminates_at`: a Capacity Block expiring, or an
  // interruptible reservation reclaimed.
  CapacityReservationInterruption,
};

struct CloudNotice {
  CloudNoticeKind kind = CloudNoticeKind::SpotInterruption;
  NodeId node = kNoNode;
  SimTime terminates_at{};
};

class CloudNoticeListener {
 public:
  virtual ~CloudNoticeListener() = default;
  virtual void on_cloud_notice(const CloudNotice& notice) = 0;
};

// The global offering a node was launched from.
std::uint32_t offering_of(const Catalog& catalog, const Node& node);

// A node launching now on global offering `g` at `price`, sized by `option`: its type, zone,
// capacity type and the well-known labels they give it.
void launch_on_offering(Node& node, const Catalog& catalog, std::uint32_t g, double price,
                        const InstanceTypeOption& option, SimTime now);

class CloudProvider : public InstanceTypeSizer {
 public:
  // The instance types and offerings the provider sells (offering indices: Catalog's global
  // offering index).
  virtual const Catalog& catalog() const = 0;
  // The hourly price of an offering now.
  virtual double price(std::uint32_t global_offering) const = 0;
  // Every offering's hourly price now, by global offering.
  virtual std::span<const double> offering_prices() const = 0;
  // The hourly price of a NodeClass's EBS volumes (none: the default root volume).
  virtual double volumes_price_per_hour(std::span<const BlockDevice> volumes) const = 0;
  // What a launched node costs an hour, as the cost accounting bills it.
  virtual const NodePricing& node_pricing() const = 0;
  // Per global offering: 1 unless the provider reported it out of capacity recently.
  virtual std::span<const std::uint8_t> usable_offerings() = 0;
  // Changes whenever offering_prices() or usable_offerings() (once called) may read differently,
  // so a reader may keep what it computed from them while it stays the same; 0: not tracked.
  virtual std::uint64_t offerings_revision() const { return 0; }
  // Per reservation (Catalog::reservations()): the instances it can still launch now, which a
  // solve's claims share (SolveInput::reservation_remaining). Empty: none tracked.
  virtual std::span<const std::int64_t> reservation_remaining() { return {}; }
  // Marks an offering unavailable for a while (Karpenter's cache of insufficient capacity).
  virtual void mark_unavailable(std::uint32_t global_offering) = 0;

  // Launches the request on an offering with capacity; each offering tried without capacity is
  // marked unavailable. Returns the node, or nullopt when no offering had capacity.
  virtual std::optional<NodeId> launch(LaunchRequest request) = 0;
  // The instance stops at `at` (not before now): the node is terminated then.
  virtual void terminate(NodeId node, SimTime at) = 0;

  // Who hears the provider's notices (spot interruptions); one listener, set before the run.
  void set_notice_listener(CloudNoticeListener* listener) { listener_ = listener; }

 protected:
  void notify(const CloudNotice& notice) {
    if (listener_ != nullptr) listener_->on_cloud_notice(notice);
  }

 private:
  CloudNoticeListener* listener_ = nullptr;
};

}  // namespace fleetsim
