// The Cluster Autoscaler's view of a node's readiness and the cluster's health
// (processors/customresources/gpu_processor.go FilterOutNodesWithUnreadyResources,
// clusterstate/clusterstate.go updateReadinessStats, IsClusterHealthy, IsNodeGroupHealthy).
#pragma once

#include <cstdint>
#include <string_view>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/settings.hpp"

namespace fleetsim {

// The AWS cloud provider's GPULabel(): a node carrying it is expected to offer GPUs (the CA's AWS
// README asks GPU node groups to set it, so that a node whose device plugin has not advertised
// its GPUs yet is not taken for a node without them).
inline constexpr std::string_view kAwsGpuLabel = "k8s.amazonaws.com/accelerator";

// A Ready node the autoscaler copies as unready (kube_util.ResourceUnready): it carries the GPU
// label and advertises no GPU. Upstream looks at nvidia.com/gpu (and DirectX) alone, so a node
// offering only nvidia.com/mig-<profile> or nvidia.com/gpu.shared stays unready for ever
// (autoscaler#8095); the fix proposed there (PR #9673, IsGPUResource) takes any nvidia.com/
// resource.
bool gpu_resource_unready(const Node& node, const ResourceRegistry& registry,
                          GpuReadinessCheck check);

// How updateReadinessStats counts a registered node.
enum class CaNodeReadiness : std::uint8_t { Ready, NotStarted, Unready };
// `ready`: the node is Initialized and not resource-unready. A node that is not is NotStarted for
// max-node-startup-time after it was created, then Unready.
CaNodeReadiness ca_node_readiness(const Node& node, bool ready, SimTime now,
                                  const ClusterAutoscalerSettings& s);

// IsClusterHealthy: unhealthy once more than ok-total-unready-count nodes, and more than
// max-total-unready-percentage of all registered nodes, are Unready; the loop then does nothing.
bool cluster_healthy(std::int64_t unready, std::int64_t nodes, const ClusterAutoscalerSettings& s);

// IsNodeGroupHealthy: the Ready nodes a group lacks below its acceptable minimum (its target less
// the nodes a scale-up still brings) are unjustified; too many, as above, and the group is not
// scaled up ("not ready for scale-up").
bool node_group_healthy(std::int64_t ready, std::int64_t unready, std::int64_t not_started,
                        std::int64_t acceptable_min, const ClusterAutoscalerSettings& s);

}  // namespace fleetsim
