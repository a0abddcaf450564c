// A service's state at the end of one report interval (a timeseries.csv row's service columns).
#pragma once

#include <cstdint>
#include <optional>

namespace fleetsim {

struct ServiceIntervalRow {
  double rps = 0;              // arrivals in the interval ÷ its length
  std::uint64_t requests = 0;  // arrivals in the interval
  // Of the requests the SLO counts (after warmup), those missed and dropped in the interval.
  std::uint64_t misses = 0;
  std::uint64_t dropped = 0;
  std::int64_t replicas = 0;     // the Deployment's active pods
  std::int64_t ready = 0;        // of which Ready
  std::int64_t queue = 0;        // requests waiting for a slot
  std::optional<double> p99_ms;  // of the requests completed in the interval; none: nullopt
  double busy_gpus = 0;          // GPUs with work, averaged over the interval
  // Under the engine model: the mean KV-cache use (0-1) of the Ready replicas at the interval's
  // end, as an HPA averaging vllm:gpu_cache_usage_perc over the pods sees it; nullopt without
  // the engine model or a Ready replica.
  std::optional<double> kv_cache_usage;
};

}  // namespace fleetsim
