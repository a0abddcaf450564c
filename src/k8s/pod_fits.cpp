#include "fleetsim/k8s/pod_fits.hpp"

namespace fleetsim {

const Taint* blocking_taint(const PodSpec& pod, std::span<const Taint> taints,
                            PreferNoSchedule prefer) {
  return first_untolerated(taints, pod.tolerations, prefer == PreferNoSchedule::Ignore);
}

bool node_selection_allows(const PodSpec& pod, const Requirements& labels) {
  if (term_allows(pod.node_requirements, labels)) return true;
  for (const Requirements& alternative : pod.alternative_node_requirements)
    if (term_allows(alternative, labels)) return true;
  return false;
}

bool pod_fits(const PodSpec& pod, const NodeFacts& node, PreferNoSchedule prefer) {
  return pod.requests.fits_in(node.available) &&
         blocking_taint(pod, node.taints, prefer) == nullptr &&
         node_selection_allows(pod, node.labels);
}

}  // namespace fleetsim
