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

}  // namespace fleetsim
