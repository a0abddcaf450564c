// A Kubernetes API client's rate limit, as a scenario sets it (kube_controller_manager:).
#pragma once

#include <cstdint>

namespace fleetsim {

// --kube-api-qps and --kube-api-burst (kube-controller-manager's defaults).
struct ApiLimits {
  double qps = 20;
  std::int32_t burst = 30;
};

}  // namespace fleetsim
