// Karpenter's AWS node sizing: capacity, kube-reserved, eviction threshold and allocatable.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/core/resources.hpp"

namespace fleetsim {

// AMI families size nodes differently (Karpenter amifamily FeatureFlags): AL2 and AL2023 take
// kube-reserved memory from the ENI-limited pod count and honour podsPerCore; Bottlerocket
// takes it from the effective maxPods and ignores podsPerCore.
enum class AmiFamily : std::uint8_t { AL2023, AL2, Bottlerocket };

// The EC2NodeClass settings that change a node's size. Unset fields keep Karpenter's defaults.
struct KubeletSizing {
  std::optional<int> max_pods{};       // spec.kubelet.maxPods
  std::optional<int> pods_per_core{};  // spec.kubelet.podsPerCore
  AmiFamily ami_family = AmiFamily::AL2023;
  std::optional<std::int64_t> root_volume_bytes{};  // root EBS volume; 20Gi when unset
};

// What sizing needs to know about an instance type.
struct NodeSizingInput {
  int vcpu = 0;
  std::int64_t memory_mib = 0;  // EC2 memory, before any overhead
  bool arm64 = false;
  int eni_max_pods = 0;  // ENI-limited pod count (the catalog's max_pods)
  KubeletSizing kubelet{};
};

// Each part of the arithmetic, so a report can show where a node's resources went.
struct NodeSizing {
  Resources capacity;
  Resources kube_reserved;
  Resources system_reserved;  // none by default in Karpenter
  Resources eviction_threshold;
  Resources allocatable;  // capacity − kube-reserved − system-reserved − eviction threshold
};

namespace aws_sizing {
// Karpenter VM_MEMORY_OVERHEAD_PERCENT default (options.go), used while no measured value is
// cached.
inline constexpr double kVmMemoryOverheadPercent = 0.075;
// Karpenter types.go memory(): Graviton reserves 64 MiB of CMA memory the OS cannot use.
inline constexpr std::int64_t kArm64ReservedMib = 64;
// Karpenter types.go kubeReservedResources(): 11 MiB per pod plus 255 MiB.
inline constexpr std::int64_t kKubeReservedMibPerPod = 11;
inline constexpr std::int64_t kKubeReservedMibBase = 255;
// Karpenter types.go kubeReservedResources(): default kube-reserved ephemeral-storage 1Gi.
inline constexpr std::int64_t kKubeReservedEphemeralBytes = 1LL << 30;
// Karpenter types.go evictionThreshold(): memory.available 100Mi, nodefs.available 10%.
inline constexpr std::int64_t kEvictionMemoryBytes = 100LL << 20;
inline constexpr double kEvictionNodefsPercent = 10;
// Karpenter amifamily DefaultEBS: a 20Gi gp3 root volume.
inline constexpr std::int64_t kDefaultRootVolumeBytes = 20LL << 30;
}  // namespace aws_sizing

// CPU, memory, pods and ephemeral storage, exactly as Karpenter's AWS provider computes them.
NodeSizing compute_node_sizing(const NodeSizingInput& in);

// The device-plugin resources a type advertises: nvidia.com/gpu, amd.com/gpu, habana.ai/gaudi
// (by GPU manufacturer), aws.amazon.com/neuron and …/neuroncore (AWS accelerators). Nothing is
// reserved from these, so they count in both capacity and allocatable.
Resources accelerator_resources(const InstanceType& t);

// Neuron cores on one device of an AWS accelerator ("inferentia2" → 2); 0 when unknown.
int neuron_cores_per_device(std::string_view accelerator_name);

// compute_node_sizing for a catalog type, plus its accelerators.
NodeSizing size_instance_type(const InstanceType& t, const KubeletSizing& kubelet = {});

// Fills t.capacity, t.allocatable and t.requirements from t's descriptive fields and offerings.
void apply_aws_sizing(InstanceType& t, const KubeletSizing& kubelet = {});

}  // namespace fleetsim
