// Lint rules on GPU sharing. Karpenter sizes NodeClaims from EC2's instance types, which list
// whole GPUs only; MIG slices and time-sliced replicas exist once the GPU Operator or the device
// plugin has configured a running node. Only a NodeOverlay tells Karpenter beforehand. The
// Cluster Autoscaler judges a GPU node's readiness by nvidia.com/gpu alone.
#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/provisioning/cluster_autoscaler/gpu_readiness.hpp"
#include "lint_view.hpp"

namespace fleetsim::lint {

namespace {

constexpr std::string_view kMigPrefix = "nvidia.com/mig-";
constexpr std::string_view kSharedGpu = "nvidia.com/gpu.shared";

// The first MIG or shared-GPU resource the pod asks for, or empty.
std::string sliced_request(const PodSpec& spec, const ResourceRegistry& registry) {
  for (std::size_t i = 0; i < registry.size(); ++i) {
    const auto slot = static_cast<ResourceIndex>(i);
    const std::string& name = registry.name(slot);
    if (spec.requests[slot] > 0 && (name.starts_with(kMigPrefix) || name == kSharedGpu))
      return name;
  }
  return {};
}

// Pods asking for slices that no NodePool's instance types offer stay pending: Karpenter never
// launches for them.
void gpu_slices_invisible(const LintView& view, std::vector<LintFinding>& out) {
  for (std::size_t w = 0; w < view.workloads.size(); ++w) {
    if (!view.lands_on[w].empty()) continue;
    const Workload& wl = *view.workloads[w];
    const std::string resource = sliced_request(wl.pod.spec, view.config.resources);
    if (resource.empty()) continue;
    out.push_back(finding(
        "gpu-slices-invisible", wl.where, workload_subject(wl),
        fmt::format("its pods ask for {}, which no instance type lists: Karpenter sees EC2's "
                    "physical GPU count only (slices appear once the GPU Operator or the device "
                    "plugin has configured a running node), so it never launches a node for "
                    "them and they stay pending",
                    resource),
        fmt::format("tell Karpenter what a node will offer with a NodeOverlay "
                    "(karpenter.sh/v1alpha1, with karpenter.feature_gates.node_overlay: true): "
                    "requirements selecting the pool's GPU types and capacity {{{}: N}}, N the "
                    "slices per node of the layout its nodes get",
                    resource)));
  }
}

// A time-sliced pool's nodes offer replicas × GPUs, but Karpenter plans with the physical count:
// N one-GPU pods get N nodes, which consolidation packs later (karpenter-provider-aws#3376).
void time_sliced_pool(const LintView& view, std::vector<LintFinding>& out) {
  const auto& types = view.config.catalog->types();
  for (std::size_t p = 0; p < view.pools.size() && p < view.context->pools().size(); ++p) {
    const NodePool& pool = view.pools[p];
    // The config its nodes run (their label's, or the default): one that replicates whole GPUs
    // under their own name. A renamed resource (nvidia.com/gpu.shared) is gpu-slices-invisible's.
    const DevicePluginConfig* config = device_plugin_config(view.config.gpu_operator, pool.labels);
    if (config == nullptr || config->sharing == GpuSharingKind::None || config->rename_by_default)
      continue;
    const PoolTemplate& tpl = view.context->pools()[p];
    bool gpus = false, overlaid = false;
    tpl.types.for_each([&](std::size_t t) {
      if (types[t].gpu_count == 0) return;
      gpus = true;
      overlaid |= tpl.allocatable[t][resource::kNvidiaGpu] != types[t].gpu_count;
    });
    if (!gpus || overlaid) continue;
    out.push_back(finding(
        "time-sliced-pool-overprovisions", pool.where, fmt::format("NodePool {}", pool.name),
        fmt::format("its nodes share GPUs by the device plugin's configuration \"{}\" ({}), but "
                    "Karpenter counts each GPU once: for N one-GPU pods it launches N nodes where "
                    "fewer would do, and consolidation packs them later "
                    "(karpenter-provider-aws#3376)",
                    config->name,
                    pool.labels.contains(kDevicePluginConfigLabel)
                        ? std::string(kDevicePluginConfigLabel)
                        : std::string("gpu_operator.device_plugin_default")),
        "give Karpenter the shared count with a NodeOverlay (karpenter.sh/v1alpha1, with "
        "karpenter.feature_gates.node_overlay: true): requirements on karpenter.sh/nodepool and "
        "capacity {nvidia.com/gpu: replicas × GPUs per node}"));
  }
}

// A node group labelled as a GPU group whose nodes advertise MIG devices or renamed replicas and
// no nvidia.com/gpu: the Cluster Autoscaler copies each for unready for ever (autoscaler#8095).
void gpu_node_never_ready(const LintView& view, std::vector<LintFinding>& out) {
  if (view.config.cluster_autoscaler.gpu_readiness != GpuReadinessCheck::ResourceName) return;
  const auto& types = view.config.catalog->types();
  for (std::size_t p = 0; p < view.pools.size() && p < view.context->pools().size(); ++p) {
    const NodePool& group = view.pools[p];
    if (!group.labels.contains(kAwsGpuLabel)) continue;
    std::string offered;  // the first device of a type that offers no nvidia.com/gpu
    view.context->pools()[p].types.for_each([&](std::size_t t) {
      if (!offered.empty() || types[t].gpu_count == 0) return;
      std::vector<GpuDevice> devices;
      try {
        devices = gpu_devices(types[t], group.labels, view.config.gpu_operator);
      } catch (const InputError&) {
        return;  // a setup the device plugin refuses: the load's checks report it
      }
      const bool whole = std::any_of(devices.begin(), devices.end(), [](const GpuDevice& d) {
        return d.resource == "nvidia.com/gpu";
      });
      if (!whole && !devices.empty()) offered = devices.front().resource;
    });
    if (offered.empty()) continue;
    out.push_back(finding(
        "gpu-node-never-ready", group.where, fmt::format("node group {}", group.name),
        fmt::format("its nodes carry {} and will offer {} but no nvidia.com/gpu, so the Cluster "
                    "Autoscaler takes each for a node whose GPUs are not ready yet, for ever "
                    "(FilterOutNodesWithUnreadyResources, autoscaler#8095): the group's "
                    "scale-ups time out and back it off, and past --ok-total-unready-count such "
                    "nodes stop all scaling",
                    kAwsGpuLabel, offered),
        "advertise MIG devices as nvidia.com/gpu (gpu_operator.mig_strategy: single) or shared "
        "GPUs under their own name (renameByDefault: false); fleetsim's cluster_autoscaler."
        "gpu_readiness: any-nvidia-resource models the fix proposed upstream (PR #9673)"));
  }
}

// Karpenter's --ignore-dra-requests (true upstream; karpenter pkg/operator/options/options.go):
// its scheduler fails a pod with ResourceClaims with a DRAError before looking at any node, so no
// NodeClaim is ever launched for it; only nodes already running that publish the devices (a node
// group's, under the NVIDIA DRA driver) take it.
void dra_pods_ignored(const LintView& view, std::vector<LintFinding>& out) {
  if (view.config.provisioner == ProvisionerKind::ClusterAutoscaler) return;
  std::string groups;  // node groups beside the NodePools whose nodes run the DRA driver
  for (std::size_t h = view.pools.size(); h < view.hosts.size(); ++h) {
    const auto label = view.hosts[h].labels.find(std::string(kDraKubeletPluginLabel));
    if (label == view.hosts[h].labels.end() || label->second != "true") continue;
    groups += (groups.empty() ? "" : ", ") + view.hosts[h].name;
  }
  for (const Workload* wl : view.workloads) {
    if (wl->pod.spec.resource_claims.empty()) continue;
    out.push_back(finding(
        "dra-pods-ignored", wl->where, workload_subject(*wl),
        fmt::format("its pods take devices through ResourceClaims, and Karpenter runs with "
                    "--ignore-dra-requests (true upstream): it never launches a node for them, "
                    "so they run only where a node already running publishes the devices ({})",
                    groups.empty() ? std::string("none does here: they stay pending")
                                   : "node groups " + groups + ", at their fixed size"),
        "ask for nvidia.com/gpu (or a MIG resource) through the device plugin so that Karpenter "
        "provisions for the pods, or run them on node groups labelled "
        "nvidia.com/dra-kubelet-plugin: \"true\" under the Cluster Autoscaler, which scales a "
        "group up for claims once it has learned the group's devices"));
  }
}

}  // namespace

void ca_gpu_rules(const LintView& view, std::vector<LintFinding>& out) {
  gpu_node_never_ready(view, out);
}

void gpu_sharing_rules(const LintView& view, std::vector<LintFinding>& out) {
  gpu_slices_invisible(view, out);
  time_sliced_pool(view, out);
  dra_pods_ignored(view, out);
}

}  // namespace fleetsim::lint
