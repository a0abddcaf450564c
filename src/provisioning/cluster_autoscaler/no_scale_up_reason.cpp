// NotTriggerScaleUp's message: why no node group's scale-up would help a pod, group by group, as
// upstream's event lists the predicate that failed on each group's template node ("didn't match
// Pod's node affinity/selector", "Insufficient nvidia.com/gpu", "max node group size reached").
#include <fmt/format.h>

#include "fleetsim/provisioning/cluster_autoscaler/cluster_autoscaler.hpp"
#include "fleetsim/scheduling/requirements_objection.hpp"

namespace fleetsim {

namespace {

// Why the group's template node refuses the pod, in the scheduler's order: taints, node
// selection, resources.
std::string template_objection(const PodSpec& pod, const Requirements& labels,
                               std::span<const Taint> taints, const Resources& room,
                               const ResourceRegistry& names) {
  if (const Taint* t = blocking_taint(pod, taints, PreferNoSchedule::Ignore))
    return fmt::format("did not tolerate {}={}:{}", t->key, t->value, to_string(t->effect));
  if (!node_selection_allows(pod, labels)) {
    if (auto why = node_labels_objection(pod, pod.node_requirements, labels, "the node group"))
      return *why;
    return "its node affinity matches no label of the node group's nodes";
  }
  std::string short_of;
  for (ResourceIndex r = 0; r < resource::kMaxResources; ++r) {
    if (pod.requests[r] <= room[r]) continue;
    short_of += fmt::format("{}{}", short_of.empty() ? "" : ", ",
                            r < names.size() ? names.name(r) : "an extended resource");
  }
  if (!short_of.empty()) return "Insufficient " + short_of;
  return "pod affinity or topology spread left no room on its template nodes";
}

}  // namespace

std::string ClusterAutoscaler::no_scale_up_reason(
    const PodSpec& pod, std::span<const std::string_view> skipped,
    std::vector<std::optional<GroupTemplate>>& templates) const {
  std::string out = "cluster-autoscaler: pod didn't trigger scale-up (NotTriggerScaleUp):";
  if (asgs_.empty()) return out + " no node group";
  for (std::uint32_t g = 0; g < asgs_.size(); ++g) {
    std::string why;
    if (!skipped[g].empty()) {
      why = skipped[g];
    } else {
      if (!templates[g]) templates[g] = group_template(g);
      why = template_objection(pod, templates[g]->labels, templates[g]->taints, templates[g]->room,
                               *resources_);
    }
    out += fmt::format("{} node group {}: {}", g == 0 ? "" : ";", asgs_[g]->group().name, why);
  }
  return out;
}

}  // namespace fleetsim
