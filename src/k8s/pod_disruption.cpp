#include "fleetsim/k8s/pod_disruption.hpp"

namespace fleetsim {

std::optional<SimDuration> parse_do_not_disrupt(std::string_view value) {
  if (value == "true") return kForever;
  std::optional<SimDuration> d = parse_duration(value);
  if (!d || *d <= SimDuration{0}) return std::nullopt;
  return d;
}

bool do_not_disrupt_active(const Pod& pod, SimTime now) {
  const std::optional<SimDuration>& d = pod.spec->do_not_disrupt;
  if (!d) return false;
  if (pod.node == kNoNode) return true;  // not started: fail safe, as Karpenter does
  return now - pod.bound_at < *d;
}

}  // namespace fleetsim
