// The closed loop's config checks; the loop itself is the service module's ClosedLoopTraffic.
#include <fmt/format.h>

#include "fleetsim/traffic/traffic_config.hpp"
#include "traffic_checks.hpp"

namespace fleetsim {

void validate(const ClosedConfig& config) {
  if (config.users < 1 || config.users > kMaxClosedUsers) {
    traffic_checks::fail(
        config.where, "users",
        fmt::format("must be between 1 and {}, got {}", kMaxClosedUsers, config.users));
  }
  traffic_checks::time_offset(config.think_time, "think_time", config.where);
  if (config.requests && *config.requests < 1) {
    traffic_checks::fail(config.where, "requests",
                         fmt::format("must be at least 1, got {}", *config.requests));
  }
  validate(config.tokens, config.where);
}

}  // namespace fleetsim
