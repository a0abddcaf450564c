// What makes a node a scale-down candidate for the Cluster Autoscaler: its utilization
// (simulator/utilization/info.go) and the pods that keep it (simulator/drainability/rules).
#pragma once

#include <optional>
#include <string>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/pod_disruption_budget.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/settings.hpp"

namespace fleetsim {

// A kube-system pod without a PodDisruptionBudget blocks scale-down only while it is younger
// than this (--blocking-system-pod-distruption-timeout).
inline constexpr SimDuration kBlockingSystemPodTimeout = hours(1);

struct NodeUtilization {
  double value = 0.0;
  bool gpu = false;  // judged on GPUs (and against the GPU threshold)
};

// A node with GPUs (NVIDIA, AMD or Gaudi: upstream's GPUVendorResourceNames, not Neuron) is
// judged on the share of its GPUs requested alone; another on the larger of its CPU and memory
// shares. DaemonSet pods count (--ignore-daemonsets-utilization=false).
// `extra` adds requests of pods the autoscaler placed there this loop.
NodeUtilization node_utilization(const Node& node, const Catalog& catalog,
                                 const Resources& extra = {});

// The first rule that decides, in upstream's order: safe-to-evict "true" lets any pod go; a pod
// without a controller (a bare Pod), a young kube-system pod without a PDB (when
// skip_nodes_with_system_pods), safe-to-evict "false", and a PDB that allows no disruption keep
// the node. Returns why the pod keeps its node, or nullopt when it can move.
std::optional<std::string> blocks_scale_down(const Pod& pod, WorkloadKind kind,
                                             const PodDisruptionBudgets& pdbs,
                                             const ClusterAutoscalerSettings& settings,
                                             SimTime now);

}  // namespace fleetsim
