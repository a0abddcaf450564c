// Loads Kubernetes manifests — multi-document files or mappings inline in a scenario — and
// dispatches each by apiVersion and kind to its decoder.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "fleetsim/autoscaling/hpa_spec.hpp"
#include "fleetsim/autoscaling/keda_spec.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/capacity_buffer.hpp"
#include "fleetsim/k8s/karpenter_version.hpp"
#include "fleetsim/k8s/node_group.hpp"
#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/pod_disruption_budget_spec.hpp"
#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/settings.hpp"
#include "fleetsim/scenario/dra_decoder.hpp"
#include "fleetsim/scenario/overrides.hpp"
#include "fleetsim/scenario/pod_groups.hpp"
#include "fleetsim/scenario/scheduler_config_decoder.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/workload_decoder.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// The objects decoded from some manifests, in file order.
struct ManifestSet {
  std::vector<NodePool> nodepools;
  std::vector<EC2NodeClass> node_classes;
  std::vector<DecodedWorkload> workloads;  // Pods, Deployments and Jobs
  std::vector<DecodedWorkload> daemonsets;
  std::vector<PriorityClass> priority_classes;
  std::vector<PodGroupObject> pod_groups;
  std::vector<HorizontalPodAutoscalerSpec> hpas;
  std::vector<ScaledObjectSpec> scaled_objects;
  std::vector<PodDisruptionBudgetSpec> pdbs;
  std::vector<CapacityBuffer> capacity_buffers;
  std::vector<NodeGroup> node_groups;  // from eksctl ClusterConfigs
  std::vector<NodeOverlay> node_overlays;
  // A ClusterConfig's autoModeConfig.nodePools, when it enables EKS Auto Mode.
  std::optional<std::vector<std::string>> auto_mode_node_pools;
  SourceLocation auto_mode_where;
  // The priority expander's ConfigMap (kube-system/cluster-autoscaler-priority-expander).
  std::vector<ExpanderPriority> expander_priorities;
  SourceLocation expander_priorities_where;
  // Its metadata.namespace, when given: read only if it is the autoscaler's.
  std::optional<std::string> expander_priorities_namespace;
  SourceLocation expander_priorities_namespace_where;
  // Every other v1 ConfigMap, for the GPU Operator's device plugin config (gpu_operator).
  struct ConfigMapObject {
    std::string name;
    SourceLocation where;  // its kind
    std::optional<YamlValue> data;
  };
  std::vector<ConfigMapObject> config_maps;
  // resource.k8s.io DeviceClasses, ResourceClaims and ResourceClaimTemplates.
  std::vector<DeviceClassObject> device_classes;
  std::vector<ResourceClaimObject> resource_claims;  // claims and templates
  // The kube-scheduler's configuration, when a KubeSchedulerConfiguration is among them.
  std::optional<DecodedSchedulerConfig> scheduler_config;

  std::size_t object_count() const {
    return nodepools.size() + node_classes.size() + workloads.size() + daemonsets.size() +
           priority_classes.size() + hpas.size() + scaled_objects.size() + pdbs.size() +
           capacity_buffers.size() + node_groups.size() + node_overlays.size() + pod_groups.size() +
           device_classes.size() + resource_claims.size();
  }
};

class ManifestLoader {
 public:
  ManifestLoader(ResourceRegistry& resources, WarningLog& warnings)
      : resources_(resources), warnings_(warnings) {}

  // Decodes every document of the file at `path` into `out`; `referenced_from` and `field`
  // locate the reference to the file for "file not found" errors.
  void load_file(const std::filesystem::path& path, const SourceLocation& referenced_from,
                 std::string_view field, ManifestSet& out);
  // Decodes one manifest: a document of its own or a mapping inline in the scenario (then built
  // with the inline position as its prefix, e.g. "manifests[2]"). Null documents are skipped.
  // Kinds fleetsim does not model give one warning per kind.
  void load_manifest(const YamlValue& manifest, ManifestSet& out);

  // Edits applied to each manifest of their kind and name before it is decoded; `hits` counts
  // per override the manifests it edited.
  void set_overrides(std::span<const Override> overrides) {
    overrides_ = overrides;
    hits_.assign(overrides.size(), 0);
  }
  const std::vector<int>& override_hits() const { return hits_; }
  // The Karpenter release the manifests are read for (its CRDs' enums, its annotations).
  void set_karpenter_version(KarpenterVersion version) { karpenter_ = version; }

  // The manifest files read so far, in order.
  const std::vector<std::filesystem::path>& files() const { return files_; }

 private:
  ResourceRegistry& resources_;
  WarningLog& warnings_;
  std::vector<std::filesystem::path> files_;
  std::span<const Override> overrides_;
  std::vector<int> hits_;
  KarpenterVersion karpenter_;
};

// Fails on a second object of the same kind and name (and namespace, for namespaced kinds).
void check_unique_names(const ManifestSet& set);

}  // namespace fleetsim
