#include "fleetsim/traffic/traffic.hpp"

#include <type_traits>

namespace fleetsim {

std::unique_ptr<TrafficSource> make_traffic_source(const TrafficConfig& config, RngStream rng) {
  return std::visit(
      [&](const auto& c) -> std::unique_ptr<TrafficSource> {
        using Config = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<Config, SurgeConfig>) {
          return std::make_unique<SurgeSource>(c, rng);
        } else {
          return make_base_traffic_source(BaseTrafficConfig{c}, rng);
        }
      },
      config);
}

}  // namespace fleetsim
