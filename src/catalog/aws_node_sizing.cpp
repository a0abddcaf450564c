#include "fleetsim/catalog/aws_node_sizing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "fleetsim/catalog/instance_labels.hpp"
#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

// Karpenter types.go memory(): EC2 MiB (less Graviton's CMA) minus the VM overhead. The overhead
// is computed in float64 exactly as Go does (bytes × percent / 1024 / 1024, then ceil), so that
// our result matches Karpenter's bit for bit rather than only in exact rational arithmetic.
std::int64_t memory_capacity_mib(std::int64_t memory_mib, bool arm64) {
  std::int64_t mib = memory_mib - (arm64 ? aws_sizing::kArm64ReservedMib : 0);
  double overhead = std::ceil(static_cast<double>(mib * kMib) *
                              aws_sizing::kVmMemoryOverheadPercent / 1024 / 1024);
  return mib - static_cast<std::int64_t>(overhead);
}

// Karpenter types.go kubeReservedResources(), taken from Bottlerocket's table: a falling share
// of each successive range of millicores, each range's share truncated to whole millicores.
std::int64_t kube_reserved_cpu_millis(std::int64_t cpu_millis) {
  struct Range {
    std::int64_t start, end;
    double percentage;
  };
  static constexpr std::array<Range, 4> kRanges{{
      {0, 1000, 0.06},
      {1000, 2000, 0.01},
      {2000, 4000, 0.005},
      {4000, 1LL << 31, 0.0025},
  }};
  std::int64_t reserved = 0;
  for (const auto& range : kRanges) {
    if (cpu_millis < range.start) continue;
    double span = static_cast<double>(std::min(cpu_millis, range.end) - range.start);
    reserved += static_cast<std::int64_t>(span * range.percentage);
  }
  return reserved;
}

struct FamilyFlags {
  bool uses_eni_limited_memory_overhead;
  bool pods_per_core_enabled;
};

// Karpenter amifamily FeatureFlags: AL2 and AL2023 inherit DefaultFamily's; Bottlerocket's differ.
FamilyFlags flags_of(AmiFamily family) {
  switch (family) {
    case AmiFamily::AL2023:
    case AmiFamily::AL2:
      return {.uses_eni_limited_memory_overhead = true, .pods_per_core_enabled = true};
    case AmiFamily::Bottlerocket:
      return {.uses_eni_limited_memory_overhead = false, .pods_per_core_enabled = false};
  }
  return {true, true};
}

// Karpenter types.go pods(): maxPods if set, else the ENI limit; then capped by podsPerCore.
std::int64_t pod_count(const NodeSizingInput& in, const FamilyFlags& flags) {
  std::int64_t count = in.kubelet.max_pods ? *in.kubelet.max_pods : in.eni_max_pods;
  if (in.kubelet.pods_per_core.value_or(0) > 0 && flags.pods_per_core_enabled)
    count = std::min<std::int64_t>(count, std::int64_t{*in.kubelet.pods_per_core} * in.vcpu);
  return count;
}

}  // namespace

NodeSizing compute_node_sizing(const NodeSizingInput& in) {
  FamilyFlags flags = flags_of(in.kubelet.ami_family);
  NodeSizing s;

  std::int64_t cpu_millis = std::int64_t{in.vcpu} * 1000;
  std::int64_t pods = pod_count(in, flags);
  std::int64_t storage = in.kubelet.root_volume_bytes.value_or(aws_sizing::kDefaultRootVolumeBytes);
  s.capacity[resource::kCpu] = cpu_millis;
  s.capacity[resource::kMemory] = memory_capacity_mib(in.memory_mib, in.arm64) * kMib;
  s.capacity[resource::kPods] = pods;
  s.capacity[resource::kEphemeralStorage] = storage;

  // AL2/AL2023 bootstrap scripts size kube-reserved memory for the ENI-limited pod count even when
  // maxPods is overridden.
  std::int64_t reserved_for_pods = flags.uses_eni_limited_memory_overhead ? in.eni_max_pods : pods;
  s.kube_reserved[resource::kCpu] = kube_reserved_cpu_millis(cpu_millis);
  s.kube_reserved[resource::kMemory] =
      (aws_sizing::kKubeReservedMibPerPod * reserved_for_pods + aws_sizing::kKubeReservedMibBase) *
      kMib;
  s.kube_reserved[resource::kEphemeralStorage] = aws_sizing::kKubeReservedEphemeralBytes;

  s.eviction_threshold[resource::kMemory] = aws_sizing::kEvictionMemoryBytes;
  // Karpenter: ceil(float64(storage) / 100 * 10), again in float64 as Go computes it.
  s.eviction_threshold[resource::kEphemeralStorage] = static_cast<std::int64_t>(
      std::ceil(static_cast<double>(storage) / 100 * aws_sizing::kEvictionNodefsPercent));

  s.allocatable = s.capacity - s.kube_reserved - s.system_reserved - s.eviction_threshold;
  return s;
}

int neuron_cores_per_device(std::string_view accelerator_name) {
  // AWS Neuron documentation (NeuronCores per device); matches EC2 NeuronInfo and Karpenter's
  // published aws.amazon.com/neuroncore figures. Longest names first: prefixes overlap.
  static constexpr std::array<std::pair<std::string_view, int>, 4> kCores{{
      {"inferentia2", 2},
      {"inferentia", 4},
      {"trainium2", 8},
      {"trainium", 2},
  }};
  std::string name = lower_kebab_case(accelerator_name);
  for (auto [prefix, cores] : kCores)
    if (name == prefix) return cores;
  return 0;
}

Resources accelerator_resources(const InstanceType& t) {
  Resources r;
  if (t.gpu_count > 0) {
    std::string maker = lower_kebab_case(t.gpu_manufacturer);
    // Karpenter types.go nvidiaGPUs/amdGPUs/habanaGaudis: the device plugin's resource by maker.
    if (maker == "nvidia") r[resource::kNvidiaGpu] = t.gpu_count;
    if (maker == "amd") r[resource::kAmdGpu] = t.gpu_count;
    if (maker == "habana") r[resource::kGaudi] = t.gpu_count;
  }
  if (t.accelerator_count > 0) {
    std::string maker = t.accelerator_manufacturer.empty()
                            ? std::string(accelerator_manufacturer_for(t.accelerator_name))
                            : lower_kebab_case(t.accelerator_manufacturer);
    // Only AWS's own accelerators run the Neuron device plugin (dl2q's Qualcomm cards do not).
    if (maker == "aws") {
      r[resource::kNeuron] = t.accelerator_count;
      r[resource::kNeuronCore] =
          std::int64_t{t.accelerator_count} * neuron_cores_per_device(t.accelerator_name);
    }
  }
  return r;
}

NodeSizing size_instance_type(const InstanceType& t, const KubeletSizing& kubelet) {
  NodeSizing s = compute_node_sizing({
      .vcpu = t.vcpu,
      .memory_mib = t.memory_mib,
      .arm64 = t.arch == "arm64",
      .eni_max_pods = t.max_pods,
      .kubelet = kubelet,
  });
  Resources devices = accelerator_resources(t);
  s.capacity += devices;
  s.allocatable += devices;
  return s;
}

void apply_aws_sizing(InstanceType& t, const KubeletSizing& kubelet) {
  NodeSizing s = size_instance_type(t, kubelet);
  t.capacity = s.capacity;
  t.allocatable = s.allocatable;
  t.requirements = compute_requirements(t);
}

}  // namespace fleetsim
