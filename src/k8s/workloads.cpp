#include "fleetsim/k8s/workloads.hpp"

namespace fleetsim {

std::string_view to_string(WorkloadKind k) {
  switch (k) {
    case WorkloadKind::Pod:
      return "Pod";
    case WorkloadKind::Deployment:
      return "Deployment";
    case WorkloadKind::Job:
      return "Job";
    case WorkloadKind::DaemonSet:
      return "DaemonSet";
  }
  return "?";
}

Fenceposts resolve_fenceposts(const DeploymentStrategy& strategy, std::int64_t replicas) {
  Fenceposts f{.max_surge = scaled_value(strategy.max_surge, replicas, true),
               .max_unavailable = scaled_value(strategy.max_unavailable, replicas, false)};
  if (f.max_surge == 0 && f.max_unavailable == 0) f.max_unavailable = 1;
  return f;
}

}  // namespace fleetsim
