// Per-node billing, cost attribution to workloads and GPU time, integrated piece by piece.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/cloudprovider/node_pricing.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// EC2 bills Linux instances per second with a 60-second minimum (AWS, "Amazon EC2 per-second
// billing"); EBS volumes are billed per second without a minimum.
inline constexpr SimDuration kMinimumBilledDuration = seconds(60);

// The key of by_workload that takes what no workload requested, and the minimum-billing top-up.
inline constexpr std::string_view kUnallocatedKey = "(unallocated)";
// The key of by_workload that takes the reservations' bills.
inline constexpr std::string_view kReservationsKey = "(reservations)";

// Whether a pod's GPUs count as busy for as long as it is bound. A Job or bare Pod is batch
// work that keeps its GPUs busy; a Deployment's GPUs are busy only while serving requests, which
// the serving model measures (summed by RunRecorder from the world's services).
bool busy_while_bound(WorkloadKind kind);

// A balloon pod: one at negative priority, the overprovisioning convention for pause pods that
// hold room for others to take by preemption.
inline bool is_balloon(const PodSpec& spec) { return spec.priority < 0; }

// Accounting rules (DESIGN.md §4.6). A node's cost rate (instance price + EBS + management fee,
// as the cloud's pricing answers them) and the shares of
// it that each workload requested are constant between changes of its bound pods, so the ledger
// keeps per node the start of the current piece and its shares; on every bind, unbind,
// termination and at the run's end it credits [start, now) at the old shares and takes the new.
// A workload's share of a node is the share of the node's allocatable GPUs its bound pods
// requested, or, on a node without GPUs, the mean of its CPU share and its memory share. What no
// pod requested goes to kUnallocatedKey, so the workload costs sum to the total.
class CostLedger {
 public:
  // `pricing` must outlive the ledger.
  explicit CostLedger(const NodePricing& pricing) : pricing_(pricing) {}

  // The node started billing (NodeLaunched: billed_from is set). A management fee (EKS Auto
  // Mode's) is billed like the instance.
  void open(const Node& node, SimTime now);
  // The node's bound pods changed (or its price did): credit the piece, take the new shares.
  // Ignored for a node that is not billed.
  void rebalance(const Node& node, const Cluster& cluster, SimTime now);
  // Karpenter's last solve placed CapacityBuffer virtual pods on the node (NodeBufferPods):
  // while it holds no other pod, DaemonSets aside, its time is headroom.
  void set_buffer(const Node& node, bool holds_buffer, const Cluster& cluster, SimTime now);
  // The node stopped billing (NodeTerminated). False, and nothing done, for a node that was not
  // billed (a NodeClaim that never launched).
  bool close(const Node& node, SimTime now);
  // The run ended: every node still billed is billed until `end`.
  void close_all(const Cluster& cluster, SimTime end);

  // The run's reservations: closing a node launched into one adds its billed time inside the
  // window to reservation_seconds().
  void track_reservations(std::span<const Reservation> reservations);
  const std::vector<double>& reservation_seconds() const { return reservation_seconds_; }

  // GPU-seconds of work measured outside the ledger (the serving model's busy time).
  void add_busy_gpu_seconds(double gpu_seconds) { busy_gpu_seconds_ += gpu_seconds; }
  // Likewise on MIG instances of a profile (instance-seconds), and on shared GPUs' replicas
  // (replica-seconds).
  void add_busy_slice_seconds(std::string_view profile, double instance_seconds);
  void add_busy_replica_seconds(double replica_seconds) { shared_.busy += replica_seconds; }

  // Nodes launched and not yet closed, in launch order.
  const std::vector<NodeId>& billed_nodes() const { return billed_; }

  double instance_usd(CapacityType ct) const { return instance_usd_[static_cast<std::size_t>(ct)]; }
  double instance_usd() const;
  double ebs_usd() const { return ebs_usd_; }
  double management_fee_usd() const { return fee_usd_; }
  double total_usd() const { return instance_usd() + ebs_usd_ + fee_usd_; }
  // What the run has cost up to `now`: closed nodes, and billed nodes' pieces up to now.
  double accrued_usd(SimTime now) const;
  // Instance + EBS cost of closed nodes, by name (Karpenter's nodes by NodePool, the Cluster
  // Autoscaler's by node group).
  const std::map<std::string, double, std::less<>>& by_nodepool() const { return by_nodepool_; }
  const std::map<std::string, double, std::less<>>& by_nodegroup() const { return by_nodegroup_; }
  const std::map<std::string, double, std::less<>>& by_instance_type() const {
    return by_instance_type_;
  }
  const std::map<std::string, double, std::less<>>& by_capacity_type() const {
    return by_capacity_type_;
  }
  // By workload name (workloads that share a name share a key, as the report speaks in the
  // names users wrote), credited as the run goes so that memory stays flat in the number of
  // workloads; names that cost nothing are absent.
  std::map<std::string, double, std::less<>> by_workload() const;
  double unallocated_usd() const { return unallocated_usd_; }

  // GPUs × billed seconds (launch to termination, no minimum), of nodes whose GPUs are whole
  // (no MIG layout, not shared by time-slicing or MPS).
  double provisioned_gpu_seconds() const { return provisioned_gpu_seconds_; }
  // Bound pods' GPU requests × bound seconds.
  double allocated_gpu_seconds() const { return allocated_gpu_seconds_; }
  double busy_gpu_seconds() const { return busy_gpu_seconds_; }

  // Nodes with a MIG layout, by profile: instances offered × billed seconds (no minimum; from
  // launch, as the node is bought for them), instances bound pods hold × bound seconds, instances
  // busy × seconds (Jobs and bare Pods while bound, services as they serve), and what the
  // instances cost: each node's cost split over its GPUs' instances by compute slices.
  struct SliceSeconds {
    double offered = 0.0;
    double allocated = 0.0;
    double busy = 0.0;
    double usd = 0.0;
  };
  const std::map<std::string, SliceSeconds, std::less<>>& slice_seconds() const { return slices_; }
  // Physical GPUs × billed seconds of nodes with a MIG layout.
  double mig_gpu_seconds() const { return mig_gpu_seconds_; }
  // Nodes whose whole GPUs the device plugin shares (time-slicing or MPS), as slices_ counts MIG
  // instances, in replicas (devices); and their physical GPUs × billed seconds.
  const SliceSeconds& replica_seconds() const { return shared_; }
  double shared_gpu_seconds() const { return shared_gpu_seconds_; }

  // Headroom: billed seconds (no minimum) of nodes whose only pods, DaemonSets aside, are
  // balloon pods (is_balloon), or that hold only CapacityBuffer virtual pods, and what those
  // seconds cost at the node's rate.
  double headroom_seconds() const { return headroom_seconds_; }
  double headroom_usd() const { return headroom_usd_; }

 private:
  struct Window {
    SimTime start, end;
  };
  std::vector<Window> reservation_windows_;
  std::vector<double> reservation_seconds_;

  struct Share {
    WorkloadId workload;
    std::uint32_t name;  // index into workload_names_
    double fraction;     // of the node's cost rate
  };
  // One node's current piece and what it has cost so far.
  struct NodeAccount {
    bool billed = false;
    SimTime since{};  // start of the current piece
    double instance_per_hour = 0.0;
    double ebs_per_hour = 0.0;
    double fee_per_hour = 0.0;
    std::int64_t gpus_allocated = 0;
    std::int64_t gpus_busy = 0;
    bool headroom = false;      // it holds balloon pods or buffer capacity and no other pod
    bool buffer = false;        // Karpenter placed virtual buffer pods on it
    std::vector<Share> shares;  // by workload, in first-bound order
    // With a MIG layout: per profile of the node's layout (NodeGpuSetup::mig's order). With
    // shared whole GPUs: one, the replicas.
    bool shared = false;
    struct Slices {
      SliceSeconds* totals = nullptr;  // into slices_ (std::map nodes stay put) or shared_
      double offered = 0.0;            // instances (replicas) on the node
      double weight = 0.0;             // the profile's share of the node's cost
      double allocated = 0.0;
      double busy = 0.0;
    };
    std::vector<Slices> slices;
    double instance_usd = 0.0;
    double ebs_usd = 0.0;
    double fee_usd = 0.0;
  };

  NodeAccount* account(NodeId id);
  // `now`, or when EC2 stopped billing the node if earlier (never before what is credited).
  static SimTime billed_until(const Node& node, const NodeAccount& a, SimTime now);
  void credit(NodeAccount& a, SimTime now);
  void take_shares(NodeAccount& a, const Node& node, const Cluster& cluster);

  const NodePricing& pricing_;
  std::vector<NodeAccount> accounts_;  // indexed by NodeId
  std::vector<NodeId> billed_;

  // One slot per CapacityType (OnDemand, Spot, Reserved).
  static constexpr std::size_t kCapacityTypes = 3;
  std::array<double, kCapacityTypes> instance_usd_{};
  double ebs_usd_ = 0.0;
  double fee_usd_ = 0.0;
  std::map<std::string, double, std::less<>> by_nodepool_;
  std::map<std::string, double, std::less<>> by_nodegroup_;
  std::map<std::string, double, std::less<>> by_instance_type_;
  std::map<std::string, double, std::less<>> by_capacity_type_;
  std::uint32_t name_index(const std::string& name);
  std::map<std::string, std::uint32_t, std::less<>> name_index_;
  std::vector<double> by_workload_;  // by name index
  double unallocated_usd_ = 0.0;
  double provisioned_gpu_seconds_ = 0.0;
  double allocated_gpu_seconds_ = 0.0;
  double busy_gpu_seconds_ = 0.0;
  std::map<std::string, SliceSeconds, std::less<>> slices_;
  double mig_gpu_seconds_ = 0.0;
  SliceSeconds shared_;
  double shared_gpu_seconds_ = 0.0;
  double headroom_seconds_ = 0.0;
  double headroom_usd_ = 0.0;
};

}  // namespace fleetsim
