// How often Prometheus scrapes pod metrics unless the scenario says otherwise.
#pragma once

#include "fleetsim/core/time.hpp"

namespace fleetsim {

// DESIGN.md §4.5; the usual kube-prometheus-stack / DCGM exporter ServiceMonitor interval.
inline constexpr SimDuration kDefaultScrapeInterval = seconds(15);

}  // namespace fleetsim
