// Writes timeseries.csv: a header, then one row per report interval (DESIGN.md §7).
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/world/service_runtime.hpp"

namespace fleetsim {

// The cluster at one report instant. Node counts are billed nodes (launched and not yet
// terminated, draining ones included): a node costs until EC2 terminates it.
struct TimeseriesRow {
  SimTime t{};
  std::int64_t nodes = 0;
  std::int64_t nodes_on_demand = 0;
  std::int64_t nodes_spot = 0;
  std::int64_t gpus_provisioned = 0;
  std::int64_t gpus_allocated = 0;
  double gpus_busy = 0.0;  // serving GPUs count with their busy share over the interval
  double cost_rate_usd_per_hour = 0.0;
  std::int64_t pods_pending = 0;
  std::int64_t pods_running = 0;
  std::span<const std::int64_t> nodes_by_pool{};  // one per NodePool, in the header's order
  std::span<const ServiceIntervalRow> services{};  // one per service, in the header's order
};

class TimeseriesWriter {
 public:
  // Writes the header at once, so a run without intervals still yields a valid file.
  // Per service `name`: svc_<name>_{rps,replicas,ready,queue,p99_ms} (p99 of the requests
  // completed in the interval).
  TimeseriesWriter(std::ostream& out, const std::vector<std::string>& nodepools,
                   const std::vector<std::string>& services = {});

  void write(const TimeseriesRow& row);

 private:
  std::ostream& out_;
  std::size_t pool_count_ = 0;
  std::size_t service_count_ = 0;
  std::string line_;  // reused between rows
};

}  // namespace fleetsim
