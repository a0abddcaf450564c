#include "fleetsim/report/timeseries_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "fleetsim/core/error.hpp"
#include "fleetsim/report/number_format.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kFixedColumns =
    "t_s,nodes,nodes_on_demand,nodes_spot,gpus_provisioned,gpus_allocated,gpus_busy,"
    "cost_rate_usd_per_hour,cost_usd_cumulative,pods_pending,pods_running";

// A column name from a Deployment reference: "serving/llm" reads as "serving.llm".
std::string column_name(std::string_view service) {
  std::string out(service);
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

}  // namespace

void TimeseriesWriter::on_columns(std::span<const std::string> nodepools,
                                  std::span<const std::string> services) {
  FLEETSIM_ASSERT(!header_written_);
  header_written_ = true;
  pool_count_ = nodepools.size();
  service_count_ = services.size();
  // NodePool names are DNS subdomain names (validated by scenario/), so they need no CSV quoting.
  line_ = kFixedColumns;
  for (const std::string& pool : nodepools) line_ += ",nodes_pool_" + pool;
  for (const std::string& pool : nodepools) line_ += ",cost_rate_pool_" + pool + "_usd_per_hour";
  // Deployment references are DNS names, with at most a '/' before the name: no quoting needed.
  for (const std::string& service : services) {
    for (std::string_view column : {"rps", "replicas", "ready", "queue", "p99_ms", "requests",
                                    "misses", "dropped", "kv_cache_usage"})
      fmt::format_to(std::back_inserter(line_), ",svc_{}_{}", column_name(service), column);
  }
  line_ += '\n';
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

void TimeseriesWriter::on_row(const TimeseriesRow& row) {
  FLEETSIM_ASSERT(header_written_);
  FLEETSIM_ASSERT(row.nodes_by_pool.size() == pool_count_);
  FLEETSIM_ASSERT(row.services.size() == service_count_);
  line_.clear();
  auto it = std::back_inserter(line_);
  append_seconds(line_, row.t, /*keep_point=*/false);
  fmt::format_to(it, ",{},{},{},{},{},", row.nodes, row.nodes_on_demand, row.nodes_spot,
                 row.gpus_provisioned, row.gpus_allocated);
  append_decimal(line_, row.gpus_busy, /*keep_point=*/false);
  line_.push_back(',');
  append_decimal(line_, row.cost_rate_usd_per_hour, /*keep_point=*/false);
  line_.push_back(',');
  append_decimal(line_, row.cost_usd_cumulative, /*keep_point=*/false);
  fmt::format_to(it, ",{},{}", row.pods_pending, row.pods_running);
  for (std::int64_t n : row.nodes_by_pool) fmt::format_to(it, ",{}", n);
  for (double rate : row.cost_rate_by_pool) {
    line_.push_back(',');
    append_decimal(line_, rate, /*keep_point=*/false);
  }
  for (const ServiceIntervalRow& s : row.services) {
    line_.push_back(',');
    append_decimal(line_, s.rps, /*keep_point=*/false);
    fmt::format_to(it, ",{},{},{},", s.replicas, s.ready, s.queue);
    // An empty cell, not 0, when nothing completed in the interval.
    if (s.p99_ms) append_decimal(line_, *s.p99_ms, /*keep_point=*/false);
    fmt::format_to(it, ",{},{},{},", s.requests, s.misses, s.dropped);
    // Empty without the engine model or a Ready replica.
    if (s.kv_cache_usage) append_decimal(line_, *s.kv_cache_usage, /*keep_point=*/false);
  }
  line_.push_back('\n');
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
}

}  // namespace fleetsim
