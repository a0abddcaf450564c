// The rows of `fleetsim catalog`: one summary line per instance type, and their text table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"

namespace fleetsim {

struct CatalogRow {
  std::string name;
  int vcpu = 0;
  std::int64_t memory_mib = 0;        // EC2 memory, as the instance-memory label gives it
  std::int64_t alloc_cpu_millis = 0;  // allocatable, after kube-reserved and eviction
  std::int64_t alloc_memory_mib = 0;  // allocatable, after VM overhead, kube-reserved, eviction
  std::int64_t max_pods = 0;
  int gpu_count = 0;                        // GPUs, else accelerators
  std::string gpu_name;                     // empty without GPUs or accelerators
  std::optional<double> on_demand_price;    // cheapest on-demand offering, USD/h
  std::optional<double> spot_price;         // cheapest spot offering, USD/h
  std::string spot_zone;                    // that offering's zone (first zone on a tie)
  std::string interruption_bucket;          // that offering's Spot Advisor band
  std::optional<GpuHardware> gpu_hardware;  // per GPU, when the catalog has its figures
  Interconnect gpu_interconnect;            // None for one GPU or when the catalog has no row
};

enum class CatalogOrder : std::uint8_t { Name, OnDemandPrice, SpotPrice };

// One row per type, in `order` (prices ascending, types without that price last, ties by name).
std::vector<CatalogRow> catalog_rows(const std::vector<const InstanceType*>& types,
                                     CatalogOrder order = CatalogOrder::Name);

// An aligned text table with a header line, numbers right-aligned; "-" for an absent value.
// Memory in GiB: the EC2 figure as it is ("0.5", "16"), allocatable to one decimal.
std::string format_catalog_table(const std::vector<CatalogRow>& rows);

// `catalog --gpu`: per type its GPUs, their usable memory (GiB per GPU), memory bandwidth and
// dense tensor peaks, and the link between them. "-" where the catalog has no figures (or, for
// the link, one GPU), "no" for a number format the GPU has no tensor unit for.
std::string format_gpu_table(const std::vector<CatalogRow>& rows);

}  // namespace fleetsim
