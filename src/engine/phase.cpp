#include "fleetsim/engine/phase.hpp"

namespace fleetsim {

std::string_view to_string(Phase phase) {
  switch (phase) {
    case Phase::CloudAndNodes:
      return "cloud-and-nodes";
    case Phase::PodLifecycle:
      return "pod-lifecycle";
    case Phase::Workload:
      return "workload";
    case Phase::MetricsScrape:
      return "metrics-scrape";
    case Phase::ScalerPolls:
      return "scaler-polls";
    case Phase::Autoscalers:
      return "autoscalers";
    case Phase::Provisioning:
      return "provisioning";
    case Phase::Disruption:
      return "disruption";
    case Phase::Reporting:
      return "reporting";
  }
  return "unknown";
}

}  // namespace fleetsim
