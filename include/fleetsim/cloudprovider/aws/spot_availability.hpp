// Spot availability over time, replayed from a recorded trace (SkyPilot's probes): when an
// offering has no spot capacity at all, and when it comes back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// From `at` on, the spot offering (a global offering index) is available or not.
struct AvailabilityChange {
  SimDuration at;
  std::uint32_t offering = 0;
  bool available = true;
  friend bool operator==(const AvailabilityChange&, const AvailabilityChange&) = default;
};

// Reads `time_s,instance_type,zone,available` (available: 0, or a count of instances a probe
// could have, read as "available"), times not decreasing. Each row names a spot offering of the
// catalog. Bad rows throw TraceError with file:line:col and the column.
std::vector<AvailabilityChange> read_availability_trace(const std::filesystem::path& path,
                                                        const Catalog& catalog);

}  // namespace fleetsim
