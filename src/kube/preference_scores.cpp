#include "fleetsim/kube/preference_scores.hpp"

#include <algorithm>

#include "fleetsim/k8s/pod_fits.hpp"
#include "fleetsim/kube/resource_scores.hpp"

namespace fleetsim {

std::int64_t intolerable_preferences(const PodSpec& pod, std::span<const Taint> taints) {
  return std::count_if(taints.begin(), taints.end(), [&](const Taint& t) {
    return t.effect == TaintEffect::PreferNoSchedule &&
           std::none_of(pod.tolerations.begin(), pod.tolerations.end(),
                        [&](const Toleration& tol) { return tol.tolerates(t); });
  });
}

std::int64_t preferred_affinity_weight(const PodSpec& pod, const Requirements& labels) {
  std::int64_t sum = 0;
  for (const PodSpec::WeightedNodeTerm& p : pod.preferred_node_terms)
    if (term_allows(p.term, labels)) sum += p.weight;
  return sum;
}

void default_normalize(std::span<std::int64_t> scores, bool reverse) {
  const std::int64_t highest = scores.empty() ? 0 : *std::max_element(scores.begin(), scores.end());
  for (std::int64_t& s : scores) {
    if (highest != 0) s = kMaxNodeScore * s / highest;
    if (reverse) s = kMaxNodeScore - s;
  }
}

}  // namespace fleetsim
