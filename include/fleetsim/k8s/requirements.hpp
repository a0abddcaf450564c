// Node selector requirements with Karpenter's set semantics (In, NotIn, Exists, DoesNotExist,
// Gt, Lt, Gte, Lte, minValues), used for NodePools, pods, instance types and NodeClaims.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

enum class Operator { In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte };

std::optional<Operator> parse_operator(std::string_view text);
std::string_view to_string(Operator op);

using Labels = std::map<std::string, std::string, std::less<>>;

// The set of values a label key may take. Either an explicit set (In; empty = DoesNotExist) or
// the complement of one (NotIn; empty complement = Exists), optionally cut by integer bounds.
class Requirement {
 public:
  static Requirement make(Operator op, std::vector<std::string> values);
  static Requirement single(std::string value);
  static Requirement exists() { return Requirement(true, {}); }
  static Requirement does_not_exist() { return Requirement(false, {}); }

  bool allows(std::string_view value) const;
  Requirement intersection(const Requirement& other) const;
  // The number of values allowed; "unbounded" for complements.
  std::size_t size() const;
  bool empty() const { return size() == 0; }
  bool is_complement() const { return complement_; }
  // The operator this set reads as (In, NotIn, Exists or DoesNotExist), as Karpenter derives it.
  Operator effective_operator() const;
  const std::vector<std::string>& values() const { return values_; }
  std::optional<int> min_values() const { return min_values_; }
  void set_min_values(std::optional<int> n) { min_values_ = n; }
  // A value of the set, when it is a single explicit value.
  std::optional<std::string_view> single_value() const;

  std::string to_string() const;
  // For messages: "In [a, b, c, d, e, …]" (at most `shown` values), "NotIn [a]", "Exists",
  // "DoesNotExist", and bounds as ">=N" / "<=N" (Karpenter's Requirement.String, with "…").
  std::string describe(std::size_t shown = 5) const;
  friend bool operator==(const Requirement&, const Requirement&) = default;

  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();

 private:
  Requirement(bool complement, std::vector<std::string> values)
      : complement_(complement), values_(std::move(values)) {}
  void apply_bounds();

  bool complement_ = false;
  std::vector<std::string> values_;  // sorted, unique
  std::optional<std::int64_t> gte_;
  std::optional<std::int64_t> lte_;
  std::optional<int> min_values_;
};

// Requirements on several keys, combined by intersection.
class Requirements {
 public:
  Requirements() = default;
  static Requirements from_labels(const Labels& labels);

  // Intersects `r` into the requirement on `key`.
  void add(const std::string& key, const Requirement& r);
  void add(const Requirements& other);
  bool has(std::string_view key) const { return by_key_.find(key) != by_key_.end(); }
  const Requirement* get(std::string_view key) const;
  const std::map<std::string, Requirement, std::less<>>& entries() const { return by_key_; }
  bool empty() const { return by_key_.empty(); }
  // Whether any key carries minValues (it changes the launch filters and the solver's checks).
  bool has_min_values() const;

  // Karpenter's Intersects: every shared key must leave some value, except that two
  // negative requirements (NotIn/DoesNotExist) on a key never conflict.
  // Returns the first conflicting key, or nullopt when compatible.
  std::optional<std::string> first_conflict(const Requirements& incoming) const;
  // Karpenter's Compatible: Intersects, and a custom (not well-known) label that `incoming`
  // asks for positively must be defined here. Returns a reason, or nullopt when compatible.
  std::optional<std::string> incompatibility(const Requirements& incoming) const;

  // Labels that a node built from these requirements carries: keys with a single value.
  Labels single_valued_labels() const;

  friend bool operator==(const Requirements&, const Requirements&) = default;

 private:
  std::map<std::string, Requirement, std::less<>> by_key_;
};

// Labels Karpenter treats as well known: undefined on a NodePool, they are still allowed.
bool is_well_known_label(std::string_view key);

namespace label {
inline constexpr std::string_view kZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kInstanceType = "node.kubernetes.io/instance-type";
inline constexpr std::string_view kArch = "kubernetes.io/arch";
inline constexpr std::string_view kOs = "kubernetes.io/os";
inline constexpr std::string_view kHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kCapacityType = "karpenter.sh/capacity-type";
inline constexpr std::string_view kNodePool = "karpenter.sh/nodepool";
inline constexpr std::string_view kInstanceCategory = "karpenter.k8s.aws/instance-category";
inline constexpr std::string_view kInstanceFamily = "karpenter.k8s.aws/instance-family";
inline constexpr std::string_view kInstanceGeneration = "karpenter.k8s.aws/instance-generation";
inline constexpr std::string_view kInstanceSize = "karpenter.k8s.aws/instance-size";
inline constexpr std::string_view kInstanceCpu = "karpenter.k8s.aws/instance-cpu";
inline constexpr std::string_view kInstanceMemory = "karpenter.k8s.aws/instance-memory";
inline constexpr std::string_view kInstanceNetworkBandwidth =
    "karpenter.k8s.aws/instance-network-bandwidth";
inline constexpr std::string_view kInstanceHypervisor = "karpenter.k8s.aws/instance-hypervisor";
inline constexpr std::string_view kInstanceCpuManufacturer =
    "karpenter.k8s.aws/instance-cpu-manufacturer";
inline constexpr std::string_view kInstanceLocalNvme = "karpenter.k8s.aws/instance-local-nvme";
inline constexpr std::string_view kGpuName = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr std::string_view kGpuManufacturer = "karpenter.k8s.aws/instance-gpu-manufacturer";
inline constexpr std::string_view kGpuCount = "karpenter.k8s.aws/instance-gpu-count";
inline constexpr std::string_view kGpuMemory = "karpenter.k8s.aws/instance-gpu-memory";
inline constexpr std::string_view kAcceleratorName = "karpenter.k8s.aws/instance-accelerator-name";
inline constexpr std::string_view kAcceleratorManufacturer =
    "karpenter.k8s.aws/instance-accelerator-manufacturer";
inline constexpr std::string_view kAcceleratorCount =
    "karpenter.k8s.aws/instance-accelerator-count";
inline constexpr std::string_view kCapacityReservationId =
    "karpenter.k8s.aws/capacity-reservation-id";
inline constexpr std::string_view kCapacityReservationType =
    "karpenter.k8s.aws/capacity-reservation-type";
inline constexpr std::string_view kCapacityReservationInterruptible =
    "karpenter.k8s.aws/capacity-reservation-interruptible";
inline constexpr std::string_view kCapacityTypeSpot = "spot";
inline constexpr std::string_view kCapacityTypeOnDemand = "on-demand";
}  // namespace label

}  // namespace fleetsim
