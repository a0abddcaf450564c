// A kube-scheduler profile as a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) sets
// it: the score plugins' weights, NodeResourcesFit's scoring strategy, BalancedAllocation's
// resources, PodTopologySpread's default constraints, InterPodAffinity's hardPodAffinityWeight
// and percentageOfNodesToScore. Plain data; the defaults are upstream's default profile
// (apis/config/v1/default_plugins.go, defaults.go).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/pod_spec.hpp"

namespace fleetsim {

inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";

enum class ScoringStrategyType { LeastAllocated, MostAllocated, RequestedToCapacityRatio };

struct ResourceWeight {
  ResourceIndex resource = resource::kCpu;
  std::int64_t weight = 1;
  friend bool operator==(const ResourceWeight&, const ResourceWeight&) = default;
};

// A point of RequestedToCapacityRatio's shape: utilization 0–100, score 0–10 as written.
struct ShapePoint {
  std::int64_t utilization = 0;
  std::int64_t score = 0;
  friend bool operator==(const ShapePoint&, const ShapePoint&) = default;
};

// NodeResourcesFitArgs.scoringStrategy.
struct FitScoring {
  ScoringStrategyType type = ScoringStrategyType::LeastAllocated;
  std::vector<ResourceWeight> resources{{resource::kCpu, 1}, {resource::kMemory, 1}};
  std::vector<ShapePoint> shape;  // RequestedToCapacityRatio only
  friend bool operator==(const FitScoring&, const FitScoring&) = default;
};

// The score plugins' weights; 0: the plugin does not score.
struct ScoreWeights {
  std::int64_t taint_toleration = 3;
  std::int64_t node_affinity = 2;
  std::int64_t node_resources_fit = 1;
  std::int64_t pod_topology_spread = 2;
  std::int64_t inter_pod_affinity = 2;
  std::int64_t balanced_allocation = 1;
  std::int64_t image_locality = 1;
  friend bool operator==(const ScoreWeights&, const ScoreWeights&) = default;
};

// PodTopologySpreadArgs: defaultingType System (hostname maxSkew 3, zone maxSkew 5,
// ScheduleAnyway) or List (these constraints; none when empty).
struct SpreadDefaults {
  bool system = true;
  std::vector<TopologySpread> list;
  friend bool operator==(const SpreadDefaults&, const SpreadDefaults&) = default;
};

struct SchedulerProfile {
  std::string scheduler_name{kDefaultSchedulerName};
  ScoreWeights weights;
  FitScoring fit;
  std::vector<ResourceIndex> balanced_resources{resource::kCpu, resource::kMemory};
  SpreadDefaults spread_defaults;
  std::int64_t hard_pod_affinity_weight = 1;
  std::int32_t percentage_of_nodes_to_score = 0;  // 0: adaptive (50 − nodes/125, at least 5)
  // DefaultPreemption: on unless the profile disables it (postFilter or multiPoint), with its
  // DefaultPreemptionArgs.
  bool preemption = true;
  std::int32_t min_candidate_nodes_percentage = 10;
  std::int32_t min_candidate_nodes_absolute = 100;
  friend bool operator==(const SchedulerProfile&, const SchedulerProfile&) = default;
};

}  // namespace fleetsim
