// One row of the run's time series (timeseries.csv), and the observer that receives the rows.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "fleetsim/core/time.hpp"
#include "fleetsim/service/service_interval_row.hpp"

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
  double cost_usd_cumulative = 0.0;  // billed from t = 0 to t
  std::int64_t pods_pending = 0;
  std::int64_t pods_running = 0;
  std::span<const std::int64_t> nodes_by_pool{};   // one per NodePool, in on_columns' order
  std::span<const double> cost_rate_by_pool{};     // likewise, USD per hour
  std::span<const ServiceIntervalRow> services{};  // one per service, in on_columns' order
};

// Receives the time series as the run goes; the spans are valid only during the call.
class TimeseriesSink {
 public:
  virtual ~TimeseriesSink() = default;
  // Once, before any row (also for a run without intervals): every NodePool of the run, scripted
  // ones included, and the scenario's services, in the order of each row's spans.
  virtual void on_columns(std::span<const std::string> nodepools,
                          std::span<const std::string> services) = 0;
  // Every report interval (t = interval, 2×interval, …), after all controllers acted.
  virtual void on_row(const TimeseriesRow& row) = 0;
};

}  // namespace fleetsim
