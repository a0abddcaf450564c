#include "fleetsim/traffic/traffic.hpp"

#include <type_traits>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

std::unique_ptr<TrafficSource> make_traffic_source(const TrafficConfig& config, RngStream rng) {
  return std::visit(
      [&](const auto& c) -> std::unique_ptr<TrafficSource> {
        using Config = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<Config, SurgeConfig>) {
          return std::make_unique<SurgeSource>(c, rng);
        } else if constexpr (std::is_same_v<Config, BatchConfig>) {
          return std::make_unique<BatchSource>(c, rng);
        } else if constexpr (std::is_same_v<Config, ClosedConfig>) {
          FLEETSIM_ASSERT(false);  // a closed loop needs completions: ClosedLoopTraffic runs it
          return nullptr;
        } else {
          return make_base_traffic_source(BaseTrafficConfig{c}, rng);
        }
      },
      config);
}

const TokenConfig* tokens_of(const TrafficConfig& config) {
  return std::visit(
      [](const auto& c) -> const TokenConfig* {
        using Config = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<Config, SurgeConfig>) {
          return std::visit(
              [](const auto& base) -> const TokenConfig* {
                if constexpr (requires { base.tokens; }) {
                  return &base.tokens;
                } else {
                  return nullptr;
                }
              },
              c.base);
        } else if constexpr (requires { c.tokens; }) {
          return &c.tokens;
        } else {
          return nullptr;
        }
      },
      config);
}

}  // namespace fleetsim
