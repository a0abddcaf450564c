#include "fleetsim/cloudprovider/node_latency.hpp"

#include <cmath>

namespace fleetsim {

NodeLatency draw_node_latency(const NodeLatency& median, double z) {
  const double factor = std::exp(median.sigma * z);
  auto phase = [&](SimDuration d, bool fixed) {
    if (fixed || median.sigma == 0) return d;
    return from_seconds(to_seconds(d) * factor);
  };
  return NodeLatency{.launch = phase(median.launch, median.launch_fixed),
                     .registration = phase(median.registration, median.registration_fixed),
                     .initialization = phase(median.initialization, median.initialization_fixed)};
}

}  // namespace fleetsim
