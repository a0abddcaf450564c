// Every traffic pattern's config in one variant, and the factory that builds a source from it.
#pragma once

#include <memory>
#include <variant>

#include "fleetsim/traffic/traffic_batch.hpp"
#include "fleetsim/traffic/traffic_config.hpp"
#include "fleetsim/traffic/traffic_constant.hpp"
#include "fleetsim/traffic/traffic_diurnal.hpp"
#include "fleetsim/traffic/traffic_mmpp.hpp"
#include "fleetsim/traffic/traffic_poisson.hpp"
#include "fleetsim/traffic/traffic_replay.hpp"
#include "fleetsim/traffic/traffic_source.hpp"
#include "fleetsim/traffic/traffic_surge.hpp"

namespace fleetsim {

// Validates `config` and builds its source, drawing from `rng` (derive it from the scenario seed
// and the service's name). Throws ConfigError for bad options and TraceError for a bad trace or
// token lengths file, both with file:line:col. Not for a ClosedConfig, which is no source: its
// arrivals follow the service's completions (the service module's ClosedLoopTraffic). Allocates
// once, here; the source then allocates nothing per request.
std::unique_ptr<TrafficSource> make_traffic_source(const TrafficConfig& config, RngStream rng);

}  // namespace fleetsim
