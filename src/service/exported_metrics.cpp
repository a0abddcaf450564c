#include "fleetsim/service/exported_metrics.hpp"

#include <algorithm>

namespace fleetsim {

bool is_simulated_metric(std::string_view name) {
  return std::find(kSimulatedMetrics.begin(), kSimulatedMetrics.end(), name) !=
         kSimulatedMetrics.end();
}

}  // namespace fleetsim
