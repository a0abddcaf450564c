// The Cluster Autoscaler's flags fleetsim models, with upstream's defaults
// (cluster-autoscaler/config/flags/flags.go).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// --expander: how a scale-up picks among the node groups that can help.
enum class Expander : std::uint8_t { Random, MostPods, LeastWaste, LeastNodes, Price, Priority };

// The priority expander's ConfigMap (kube-system/cluster-autoscaler-priority-expander,
// data.priorities): node groups whose name matches one of a priority's regular expressions
// get that priority; the highest wins.
struct ExpanderPriority {
  int priority = 0;
  std::vector<std::string> patterns;
};

// Which resources tell the autoscaler a GPU node's GPUs are ready (gpu_readiness.hpp).
enum class GpuReadinessCheck : std::uint8_t {
  ResourceName,       // upstream: nvidia.com/gpu only (autoscaler#8095, open)
  AnyNvidiaResource,  // the proposed fix (autoscaler PR #9673): any nvidia.com/ resource
};

struct ClusterAutoscalerSettings {
  SimDuration scan_interval = seconds(10);
  // Applied in order, each narrowing the options; what remains is chosen among at random.
  std::vector<Expander> expanders{Expander::LeastWaste};
  std::vector<ExpanderPriority> priorities;  // highest first
  // --namespace: where the autoscaler runs, and so reads the priority ConfigMap from.
  std::string config_namespace = "kube-system";
  std::int64_t max_nodes_total = 0;  // 0: no limit
  SimDuration max_node_provision_time = minutes(15);
  bool balance_similar_node_groups = false;
  SimDuration new_pod_scale_up_delay{0};
  // --expendable-pods-priority-cutoff: pods below it are expendable (cluster_autoscaler.hpp).
  std::int32_t expendable_pods_priority_cutoff = -10;
  SimDuration max_node_startup_time = minutes(15);  // a registered node not Ready is NotStarted
  // --ok-total-unready-count and --max-total-unready-percentage: past both, the cluster (or a
  // group) is unhealthy.
  std::int64_t ok_total_unready_count = 3;
  double max_total_unready_percentage = 45;
  GpuReadinessCheck gpu_readiness = GpuReadinessCheck::ResourceName;
  // --enable-dynamic-resource-allocation: pods' ResourceClaims count in the simulations (only
  // node groups whose template publishes the devices are scaled up for them); off, claims are
  // not read and such pods are packed by their requests alone.
  bool dynamic_resource_allocation = true;
  SimDuration initial_node_group_backoff = minutes(5);
  SimDuration max_node_group_backoff = minutes(30);
  // --node-info-cache-expire-time: how long a template learned from a group's node outlives
  // the group's last good node (10 years: for ever).
  SimDuration node_info_cache_expire_time = hours(87600);

  bool scale_down_enabled = true;
  double scale_down_utilization_threshold = 0.5;
  double scale_down_gpu_utilization_threshold = 0.5;
  SimDuration scale_down_unneeded_time = minutes(10);
  SimDuration scale_down_unready_time = minutes(20);
  SimDuration scale_down_delay_after_add = minutes(10);
  SimDuration scale_down_delay_after_delete{0};
  SimDuration scale_down_delay_after_failure = minutes(3);
  SimDuration max_graceful_termination = seconds(600);  // caps each evicted pod's grace
  // Deletions in flight at once (empty and drained), and drains among them: with the defaults
  // empty nodes go in bulk, others one at a time.
  int max_scale_down_parallelism = 10;
  int max_drain_parallelism = 1;
  bool skip_nodes_with_system_pods = true;
  // --capacity-buffer-controller-enabled (computes the buffers' status.replicas) and
  // --capacity-buffer-pod-injection-enabled (injects their fake pods each loop): both are needed
  // for a CapacityBuffer to take effect.
  bool capacity_buffer_controller_enabled = false;
  bool capacity_buffer_pod_injection_enabled = false;
};

}  // namespace fleetsim
