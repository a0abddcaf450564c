// karpenter.sh/v1 NodePool and karpenter.k8s.aws/v1 EC2NodeClass, as fleetsim models them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

// Balanced (Karpenter v1.14) consolidates underutilized nodes only when a move's share of the
// pool's savings is at least half its share of the pool's disruption.
enum class ConsolidationPolicy { WhenEmpty, WhenEmptyOrUnderutilized, Balanced };

// A disruption budget's reasons (karpenter.sh/v1 DisruptionReason).
enum class DisruptionReason : std::uint8_t { Empty, Underutilized, Drifted };
// As the NodePool API spells it ("Empty", …).
std::string_view to_string(DisruptionReason reason);
std::optional<DisruptionReason> parse_disruption_reason(std::string_view text);

// spec.disruption.budgets[]: parsed now, enforced by the disruption controller.
struct DisruptionBudget {
  bool percent = true;
  int nodes = 10;                         // a count, or a percentage when `percent`
  std::vector<DisruptionReason> reasons;  // empty = all
  std::string schedule;                   // cron, UTC; empty = always active
  std::optional<SimDuration> duration;    // with schedule
  friend bool operator==(const DisruptionBudget&, const DisruptionBudget&) = default;
};

struct NodePoolDisruption {
  ConsolidationPolicy policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
  std::optional<SimDuration> consolidate_after = SimDuration{0};  // nullopt = Never
  std::vector<DisruptionBudget> budgets{DisruptionBudget{}};      // default: 10% of nodes
  friend bool operator==(const NodePoolDisruption&, const NodePoolDisruption&) = default;
};

// spec.limits: resources counted by capacity, plus an optional node count.
struct NodePoolLimits {
  std::optional<Resources> resources;  // set components are limits; absent components are unlimited
  Resources set_mask;                  // 1 where the component is limited
  std::optional<std::int64_t> nodes;
  bool any() const { return resources.has_value() || nodes.has_value(); }
  friend bool operator==(const NodePoolLimits&, const NodePoolLimits&) = default;
};

struct NodePool {
  std::string name;
  int weight = 0;  // 1..100, unset = 0
  Requirements requirements;
  Labels labels;       // template metadata.labels
  Labels annotations;  // template metadata.annotations: its nodes carry them
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  NodePoolLimits limits;
  std::optional<SimDuration> expire_after = hours(720);  // nullopt = Never
  bool expire_after_given = false;                       // written, not Karpenter's default
  std::optional<SimDuration> termination_grace_period;
  std::string node_class;  // nodeClassRef.name
  bool auto_mode_node_class = false;
  bool built_in = false;  // one of EKS Auto Mode's, which the user cannot change  // nodeClassRef
                          // is EKS Auto Mode's eks.amazonaws.com NodeClass
  NodePoolDisruption disruption;
  SourceLocation where;
  SourceLocation node_class_where;  // where nodeClassRef.name is written
  bool node_group = false;          // an eksctl node group read as a pool: messages say so
};

// Karpenter's NodePool hash (NodePool.Hash): the template's static fields (labels, annotations,
// taints,
// startup taints, nodeClassRef, expireAfter, terminationGracePeriod; not requirements). A node
// whose pool's hash changed since its launch is drifted.
std::uint64_t template_hash(const NodePool& pool);

enum class EbsVolumeType { gp2, gp3, io1, io2, st1, sc1, standard };

struct BlockDevice {
  std::string device_name;
  std::int64_t size_bytes = 0;
  EbsVolumeType type = EbsVolumeType::gp3;
  std::int64_t iops = 0;              // 0 = the type's baseline
  std::int64_t throughput_mibps = 0;  // gp3 only; 0 = baseline 125
};

// spec.capacityReservationSelectorTerms[]: a term selects by `id`, or by `tags` and
// `instanceMatchCriteria` (each optional, at least one given) within `ownerID` when given
// (Karpenter AWS capacityreservation QueriesFromSelectorTerms).
struct CapacityReservationSelectorTerm {
  std::string id;
  std::map<std::string, std::string, std::less<>> tags;  // "*" matches any value of the key
  std::string owner_id;
  std::string instance_match_criteria;  // "open", "targeted" or empty
  friend bool operator==(const CapacityReservationSelectorTerm&,
                         const CapacityReservationSelectorTerm&) = default;
};

// Bottlerocket's MIG settings in an EC2NodeClass's userData (TOML):
// settings.kubelet-device-plugins.nvidia.device-partitioning-strategy = "mig" and
// [settings.kubelet-device-plugins.nvidia.mig.profile], a value per GPU model ("a100.80gb") that
// is a profile ("3g.40gb") or a count of partitions ("2").
struct BottlerocketMig {
  struct Entry {
    std::string gpu;    // "a100.80gb"
    std::string value;  // "3g.40gb" or "2"
    SourceLocation where;
  };
  std::vector<Entry> profiles;
  SourceLocation where;  // the userData
};

struct EC2NodeClass {
  std::string name;
  // A Bottlerocket class whose userData partitions its GPUs with MIG (nvidia-migmanager).
  std::optional<BottlerocketMig> bottlerocket_mig;
  bool auto_mode = false;  // an EKS Auto Mode NodeClass (eks.amazonaws.com/v1), not an EC2NodeClass
  std::vector<BlockDevice> block_devices;  // empty = the AMI default (a 20 GiB gp3 root)
  std::optional<std::int64_t> max_pods;    // kubelet.maxPods
  std::vector<CapacityReservationSelectorTerm> capacity_reservation_terms;
  // The scenario's reservations the terms select (indices into Catalog::reservations()),
  // resolved by the scenario loader.
  std::vector<std::int32_t> reservations;
  // The whole spec, hashed with map keys in order: a NodeClaim whose EC2NodeClass changed since
  // its launch is drifted (Karpenter AWS compares its static-field hash and resolved AMIs,
  // subnets and security groups; any spec change stands for them here).
  std::uint64_t spec_hash = 0;
  SourceLocation where;
};

}  // namespace fleetsim
