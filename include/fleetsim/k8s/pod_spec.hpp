// What a pod asks of a node: requests, node requirements, tolerations, zone spread, pod
// (anti-)affinity, priority.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/dra.hpp"
#include "fleetsim/k8s/label_selector.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

enum class WhenUnsatisfiable { DoNotSchedule, ScheduleAnyway };

// Which nodes a spread constraint counts pods on and takes domains from.
enum class InclusionPolicy : std::uint8_t { Honor, Ignore };

// A topologySpreadConstraint. fleetsim models zone and hostname keys.
struct TopologySpread {
  std::string topology_key;
  int max_skew = 1;
  WhenUnsatisfiable when_unsatisfiable = WhenUnsatisfiable::DoNotSchedule;
  // labelSelector, with matchLabelKeys merged in as the pod's own values of those keys;
  // nullopt: no labelSelector, which selects no pod.
  std::optional<LabelSelector> selector;
  int min_domains = 1;  // fewer eligible domains than this count as a global minimum of 0
  // Honor: only nodes that satisfy the pod's node selection (affinity) or whose taints it
  // tolerates (taints) count. Kubernetes' defaults.
  InclusionPolicy node_affinity_policy = InclusionPolicy::Honor;
  InclusionPolicy node_taints_policy = InclusionPolicy::Ignore;

  bool selects(const Labels* labels) const {
    static const Labels kNone;
    return selector && selector->matches(labels == nullptr ? kNone : *labels);
  }
  friend bool operator==(const TopologySpread&, const TopologySpread&) = default;
};

// A podAffinity or podAntiAffinity term. fleetsim models zone and hostname topology keys.
struct PodAffinityTerm {
  std::string topology_key;
  // nullopt: no labelSelector, which selects no pod.
  std::optional<LabelSelector> selector;
  // Namespaces the selector looks in; with no namespace_selector, empty means the pod's own.
  std::vector<std::string> namespaces;
  // Selects namespaces by their labels; fleetsim knows only kubernetes.io/metadata.name.
  std::optional<LabelSelector> namespace_selector;
  friend bool operator==(const PodAffinityTerm&, const PodAffinityTerm&) = default;
};

// The required terms of one direction (affinity or anti-affinity) and its preferred ones, heaviest
// first (Karpenter relaxes them in that order; equal weights keep their manifest order).
struct PodAffinityRules {
  std::vector<PodAffinityTerm> required;
  std::vector<PodAffinityTerm> preferred;
  std::vector<std::int32_t> preferred_weights;  // beside `preferred`
  bool empty() const { return required.empty() && preferred.empty(); }
  friend bool operator==(const PodAffinityRules&, const PodAffinityRules&) = default;
};

// A container probe's timing (readinessProbe, startupProbe). fleetsim models the probe's handler
// as failing until the container's server is up (image pulled, model loaded) and passing after.
struct ProbeTiming {
  SimDuration initial_delay{0};      // initialDelaySeconds
  SimDuration period = seconds(10);  // periodSeconds (Kubernetes default 10)
  std::int32_t success_threshold = 1;
  friend bool operator==(const ProbeTiming&, const ProbeTiming&) = default;
};

// kube-scheduler's scoring counts a container that sets no cpu or memory (neither request nor
// limit) as asking for 100m and 200Mi (pkg/scheduler/util/pod_resources.go); filtering does not.
inline constexpr std::int64_t kDefaultScoringCpuMillis = 100;
inline constexpr std::int64_t kDefaultScoringMemoryBytes = 200LL * 1024 * 1024;

// spec.preemptionPolicy, which the Priority admission plugin sets from the pod's PriorityClass:
// whether kube-scheduler may evict lower-priority pods to make room for it.
enum class PreemptionPolicy : std::uint8_t { PreemptLowerPriority, Never };

struct PodSpec {
  // Effective requests (max of init containers, sum of app containers and sidecars), pods = 1.
  Resources requests;
  // What kube-scheduler's resource scoring adds to `requests`: the defaults of containers that
  // set no cpu or memory, through the same sum and max.
  Resources scoring_extra;
  // nodeSelector and the first required node-affinity term, intersected.
  Requirements node_requirements;
  // The nodeSelector alone: a reason names a requirement as the user wrote it.
  Requirements node_selector;
  // Further required node-affinity terms (ORed); Karpenter tries them after the first.
  std::vector<Requirements> alternative_node_requirements;
  // The heaviest preferred node-affinity term; Karpenter honours it until it relaxes preferences.
  std::optional<Requirements> preferred_node_requirements;
  // Every preferred node-affinity term with its weight, as written: kube-scheduler scores them all.
  struct WeightedNodeTerm {
    std::int32_t weight = 1;
    Requirements term;
    friend bool operator==(const WeightedNodeTerm&, const WeightedNodeTerm&) = default;
  };
  std::vector<WeightedNodeTerm> preferred_node_terms;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpread> topology_spread;
  PodAffinityRules pod_affinity;
  PodAffinityRules pod_anti_affinity;
  std::int32_t priority = 0;
  std::string priority_class_name;
  PreemptionPolicy preemption_policy = PreemptionPolicy::PreemptLowerPriority;
  // spec.schedulerName, and the index of the kube-scheduler profile of that name among the
  // scenario's, resolved at load; -1: no profile has it, so no scheduler takes the pod and no
  // provisioner sees it fail: it stays Pending.
  std::string scheduler_name{"default-scheduler"};
  std::int32_t scheduler_profile = 0;
  // spec.schedulingGroup.podGroupName: the PodGroup (scheduling.k8s.io/v1alpha2) of the pod's
  // namespace it belongs to; empty: none. gang_min_count is resolved at load from that PodGroup:
  // its schedulingPolicy.gang.minCount, 0 for the basic policy (no gang), kNoPodGroup when no
  // PodGroup has the name (kube-scheduler's GangScheduling plugin holds the pod at PreEnqueue).
  static constexpr std::int32_t kNoPodGroup = -1;
  std::string pod_group;
  std::int32_t gang_min_count = 0;
  SimDuration termination_grace = seconds(30);  // Kubernetes default
  // karpenter.sh/do-not-disrupt: kForever for "true", else how long after the pod starts it
  // protects the pod; nullopt without (or with an invalid) annotation.
  std::optional<SimDuration> do_not_disrupt;
  // cluster-autoscaler.kubernetes.io/safe-to-evict as written ("true" and "false" matter).
  std::string safe_to_evict;
  std::vector<std::string> images;       // app containers' images, in order
  std::vector<std::string> init_images;  // init containers' images, in order
  // App containers' command lines (command, then args), as written, with their image: where an
  // inference server's own flags are read (service/server_args.hpp). Containers without any are
  // left out.
  struct CommandLine {
    std::string image;
    std::vector<std::string> argv;
    friend bool operator==(const CommandLine&, const CommandLine&) = default;
  };
  std::vector<CommandLine> command_lines;
  // Of the first app container that has one; nullopt: Ready once the server is up.
  std::optional<ProbeTiming> readiness_probe;
  std::optional<ProbeTiming> startup_probe;
  // spec.resourceClaims, resolved against the scenario's ResourceClaims, ResourceClaimTemplates
  // and DeviceClasses; empty for almost every pod, which the scheduler's DRA check then skips.
  std::vector<PodResourceClaim> resource_claims;
  friend bool operator==(const PodSpec&, const PodSpec&) = default;

  Resources scoring_requests() const { return requests + scoring_extra; }

  // No container requests anything (Kubernetes' BestEffort class, as scheduling sees it): any
  // number of such pods fit on a node, so none ever makes a provisioner buy one.
  bool requests_nothing() const {
    Resources r = requests;
    r[resource::kPods] = 0;
    return r.is_zero();
  }
};

// A pod template as found in a Pod, Deployment, Job or DaemonSet manifest.
struct PodTemplate {
  Labels labels;
  Labels annotations;
  PodSpec spec;
  SourceLocation where;
  std::vector<PodClaimRef> claim_refs;  // spec.resourceClaims as written, until resolved
};

}  // namespace fleetsim
