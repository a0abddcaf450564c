// The scenario's `api_latency:` key.
#pragma once

#include "fleetsim/kube/api_latency.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// `zero` (every API call instant), `default` (kDefaultApiLatency) or `{median: D, p99: D}`
// with 0 < median <= p99 <= 1 min; fails with the field's file:line:col otherwise.
ApiLatency decode_api_latency(const YamlValue& v);

}  // namespace fleetsim
