// Recorded traces of the EC2 market over time, per offering: spot availability (SkyPilot's
// probes), spot prices, and capacity limits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// From `at` on, the spot offering (a global offering index) is available or not.
struct AvailabilityChange {
  SimDuration at;
  std::uint32_t offering = 0;
  bool available = true;
  int line = 0;  // the row's line in the trace, for messages
  friend bool operator==(const AvailabilityChange&, const AvailabilityChange&) = default;
};

// From `at` on, the spot offering costs `price` dollars an hour.
struct PriceChange {
  SimDuration at;
  std::uint32_t offering = 0;
  double price = 0.0;
  int line = 0;  // the row's line in the trace, for messages
  friend bool operator==(const PriceChange&, const PriceChange&) = default;
};

// From `at` on, the offering has at most `count` instances running (nullopt: the catalog's
// capacity).
struct CapacityChange {
  SimDuration at;
  std::uint32_t offering = 0;
  std::optional<std::int64_t> count;
  int line = 0;  // the row's line in the trace, for messages
  friend bool operator==(const CapacityChange&, const CapacityChange&) = default;
};

// Every trace has times not decreasing, in seconds from the run's start, and rows naming an
// offering of the catalog; bad rows throw TraceError with file:line:col and the column.

// `time_s,instance_type,zone,available` (available: 0, or a count of instances a probe could
// have, read as "available"), spot offerings.
std::vector<AvailabilityChange> read_availability_trace(const std::filesystem::path& path,
                                                        const Catalog& catalog);

// `time_s,instance_type,zone,price` (dollars an hour, above 0), spot offerings.
std::vector<PriceChange> read_price_trace(const std::filesystem::path& path,
                                          const Catalog& catalog);

// `time_s,instance_type,zone,capacity_type,count` (capacity_type spot or on-demand; count a
// whole number, or `unlimited` for the catalog's capacity).
std::vector<CapacityChange> read_capacity_trace(const std::filesystem::path& path,
                                                const Catalog& catalog);

}  // namespace fleetsim
