#include "fleetsim/scenario/manifest_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/scheduler_config_decoder.hpp"

namespace fleetsim {

namespace {

constexpr std::array<DecodedKind, 17> kDecodedKinds{{
    {"NodePool", "karpenter.sh/v1", &api::NodePool},
    {"EC2NodeClass", "karpenter.k8s.aws/v1", &api::EC2NodeClass},
    {"NodeOverlay", "karpenter.sh/v1alpha1", &api::NodeOverlay},
    {"Pod", "v1", &api::Pod},
    {"Deployment", "apps/v1", &api::Deployment},
    {"Job", "batch/v1", &api::Job},
    {"DaemonSet", "apps/v1", &api::DaemonSet},
    {"PriorityClass", "scheduling.k8s.io/v1", &api::PriorityClass},
    {"PodGroup", "scheduling.k8s.io/v1alpha2", &api::PodGroup},
    {"HorizontalPodAutoscaler", "autoscaling/v2", &api::HorizontalPodAutoscaler},
    {"ScaledObject", "keda.sh/v1alpha1", &api::ScaledObject},
    {"PodDisruptionBudget", "policy/v1", &api::PodDisruptionBudget},
    {"CapacityBuffer", "autoscaling.x-k8s.io/v1beta1", &api::CapacityBuffer},
    {"ClusterConfig", "eksctl.io/v1alpha5", &api::ClusterConfig},
    {"NodeClass", "eks.amazonaws.com/v1", &api::AutoModeNodeClass},
    {"List", "v1", &api::List},
    {"KubeSchedulerConfiguration", "kubescheduler.config.k8s.io/v1",
     &api::KubeSchedulerConfiguration},
}};

// Retired versions of decoded kinds, with what changed on the way to the one fleetsim reads.
struct Migration {
  std::string_view kind;
  std::string_view api_version;
  std::string_view how;
};
constexpr auto kMigrations = std::to_array<Migration>({
    {"NodePool", "karpenter.sh/v1beta1",
     "Karpenter v1 no longer serves v1beta1 (karpenter.sh/docs/upgrading/v1-migration): "
     "nodeClassRef takes group: karpenter.k8s.aws and kind: EC2NodeClass instead of apiVersion, "
     "spec.disruption.expireAfter moves to spec.template.spec.expireAfter, consolidationPolicy "
     "WhenUnderutilized becomes WhenEmptyOrUnderutilized, and kubelet moves to the EC2NodeClass"},
    {"EC2NodeClass", "karpenter.k8s.aws/v1beta1",
     "Karpenter v1 no longer serves v1beta1 (karpenter.sh/docs/upgrading/v1-migration): "
     "amiSelectorTerms is required (amiFamily alone no longer picks an AMI: use "
     "- alias: al2023@latest), and kubelet moves here from the NodePool"},
    {"HorizontalPodAutoscaler", "autoscaling/v2beta2",
     "Kubernetes 1.26 removed v2beta2; autoscaling/v2 has the same fields"},
    {"HorizontalPodAutoscaler", "autoscaling/v2beta1",
     "Kubernetes 1.25 removed v2beta1; in autoscaling/v2 a metric's targetAverageUtilization, "
     "targetAverageValue and targetValue become target: {type, averageUtilization | "
     "averageValue | value}"},
    {"HorizontalPodAutoscaler", "autoscaling/v1",
     "autoscaling/v1's targetCPUUtilizationPercentage N is written in autoscaling/v2 as "
     "metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, "
     "averageUtilization: N}}}]"},
    {"PodDisruptionBudget", "policy/v1beta1",
     "Kubernetes 1.25 removed policy/v1beta1; policy/v1 has the same fields (an empty selector "
     "now selects every pod of the namespace)"},
    {"Deployment", "extensions/v1beta1",
     "Kubernetes 1.16 removed it; apps/v1 requires spec.selector, matching the template's labels"},
    {"Deployment", "apps/v1beta1",
     "Kubernetes 1.16 removed it; apps/v1 requires spec.selector, matching the template's labels"},
    {"Deployment", "apps/v1beta2", "Kubernetes 1.16 removed it; apps/v1 has the same fields"},
    {"DaemonSet", "extensions/v1beta1",
     "Kubernetes 1.16 removed it; apps/v1 requires spec.selector, matching the template's labels"},
    {"DaemonSet", "apps/v1beta2", "Kubernetes 1.16 removed it; apps/v1 has the same fields"},
    {"PriorityClass", "scheduling.k8s.io/v1beta1",
     "Kubernetes 1.22 removed it; scheduling.k8s.io/v1 has the same fields"},
    {"PriorityClass", "scheduling.k8s.io/v1alpha1",
     "Kubernetes 1.22 removed it; scheduling.k8s.io/v1 has the same fields"},
    {"KubeSchedulerConfiguration", "kubescheduler.config.k8s.io/v1beta3",
     "Kubernetes 1.29 removed v1beta3; v1 has the same fields"},
    {"KubeSchedulerConfiguration", "kubescheduler.config.k8s.io/v1beta2",
     "Kubernetes 1.28 removed v1beta2; v1 has the same fields (with v1's default weights)"},
    {"ScaledObject", "keda.k8s.io/v1alpha1",
     "KEDA 2 moved ScaledObject to keda.sh/v1alpha1 and renamed "
     "spec.scaleTargetRef.deploymentName to name"},
});

// Kinds that were renamed: a manifest of the old kind is refused with its successor.
struct RetiredKind {
  std::string_view kind;
  std::string_view api_version;
  std::string_view successor;
};
constexpr auto kRetiredKinds = std::to_array<RetiredKind>({
    {"Provisioner", "karpenter.sh/v1alpha5",
     "Karpenter replaced Provisioner with NodePool (karpenter.sh/v1)"},
    {"AWSNodeTemplate", "karpenter.k8s.aws/v1alpha1",
     "Karpenter replaced AWSNodeTemplate with EC2NodeClass (karpenter.k8s.aws/v1)"},
});

// Real kinds within two edits of a decoded kind of their group, which are never typos of it.
constexpr auto kRealKinds = std::to_array<std::string_view>({"Node"});

std::string_view group_of(std::string_view api_version) {
  const std::size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
}

}  // namespace

const DecodedKind* decoded_kind(std::string_view kind) {
  for (const DecodedKind& k : kDecodedKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

std::string api_version_problem(const DecodedKind& kind, std::string_view api_version) {
  const std::string_view shown = api_version.substr(0, 60);
  for (const Migration& m : kMigrations) {
    if (m.kind == kind.kind && m.api_version == api_version)
      return fmt::format("{} {} is not read: fleetsim reads {} (apiVersion: {}). {}", kind.kind,
                         shown, kind.kind, kind.api_version, m.how);
  }
  return fmt::format("apiVersion \"{}\" is not supported for {}; use {}", shown, kind.kind,
                     kind.api_version);
}

std::optional<std::string> misspelt_kind_problem(std::string_view kind,
                                                 std::string_view api_version) {
  for (const RetiredKind& r : kRetiredKinds)
    if (r.kind == kind) return fmt::format("kind {} is retired: {}", kind, r.successor);
  if (kind.size() > 64 || std::find(kRealKinds.begin(), kRealKinds.end(), kind) != kRealKinds.end())
    return std::nullopt;
  const DecodedKind* best = nullptr;
  std::size_t best_distance = 3;
  for (const DecodedKind& k : kDecodedKinds) {
    if (group_of(k.api_version) != group_of(api_version)) continue;
    const std::size_t d = edit_distance(kind, k.kind);
    if (d < best_distance) {
      best_distance = d;
      best = &k;
    }
  }
  if (best == nullptr) return std::nullopt;
  return fmt::format("unknown kind \"{}\" in {}; did you mean \"{}\"?", kind,
                     api_version.substr(0, 60), best->kind);
}

}  // namespace fleetsim
