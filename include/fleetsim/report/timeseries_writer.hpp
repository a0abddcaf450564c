// Writes timeseries.csv: a header, then one row per report interval (DESIGN.md §7).
#pragma once

#include <cstddef>
#include <ostream>
#include <span>
#include <string>

#include "fleetsim/runner/timeseries_row.hpp"

namespace fleetsim {

// An observer of a run (give it to RunOptions::timeseries_sinks); `out` must outlive it.
class TimeseriesWriter final : public TimeseriesSink {
 public:
  explicit TimeseriesWriter(std::ostream& out) : out_(out) {}

  // Writes the header, so a run without intervals still yields a valid file. Per NodePool
  // `nodes_pool_<name>`; per service `name`: svc_<name>_{rps,replicas,ready,queue,p99_ms,
  // requests,misses,dropped,kv_cache_usage} (p99 of the requests completed in the interval; the
  // Ready replicas' mean KV-cache use, empty without the engine model).
  void on_columns(std::span<const std::string> nodepools,
                  std::span<const std::string> services) override;
  void on_row(const TimeseriesRow& row) override;

 private:
  std::ostream& out_;
  std::size_t pool_count_ = 0;
  std::size_t service_count_ = 0;
  bool header_written_ = false;
  std::string line_;  // reused between rows
};

}  // namespace fleetsim
