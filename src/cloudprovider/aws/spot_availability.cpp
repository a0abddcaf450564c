#include "fleetsim/cloudprovider/aws/spot_availability.hpp"

#include <fmt/format.h>

#include <string>

#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

namespace {

constexpr CsvOptions kAvailabilityCsv{.noun = "availability trace",
                                      .example_header = "time_s,instance_type,zone,available"};
// A trace spanning over ten years is a unit mix-up (milliseconds read as seconds).
constexpr double kMaxTimeS = 10.0 * 365.0 * 86400.0;
// More rows than a year of changes every second is not a recorded trace.
constexpr std::size_t kMaxRows = 32'000'000;

}  // namespace

std::vector<AvailabilityChange> read_availability_trace(const std::filesystem::path& path,
                                                        const Catalog& catalog) {
  CsvReader csv(path, kAvailabilityCsv);
  const std::size_t time_col = csv.require("time_s");
  const std::size_t type_col = csv.require("instance_type");
  const std::size_t zone_col = csv.require("zone");
  const std::size_t available_col = csv.require("available");
  std::vector<AvailabilityChange> out;
  std::string last_time;
  while (csv.next_row()) {
    const double t = csv.number(time_col);
    if (t < 0 || t > kMaxTimeS) {
      csv.fail(time_col, fmt::format("must be from 0 to {} (ten years), got {}", kMaxTimeS,
                                     csv.field(time_col)));
    }
    const SimDuration at = from_seconds(t);
    if (!out.empty() && at < out.back().at) {
      csv.fail(time_col, fmt::format("times must not decrease: {} follows {}", csv.field(time_col),
                                     last_time));
    }
    const std::string_view type_name = csv.field(type_col);
    const std::optional<std::size_t> type = catalog.index_of(type_name);
    if (!type) {
      csv.fail(type_col,
               fmt::format("instance type \"{}\" is not in the catalog", type_name.substr(0, 60)));
    }
    const std::string_view zone = csv.field(zone_col);
    const std::optional<std::uint32_t> offering =
        catalog.find_offering(static_cast<std::uint32_t>(*type), zone, CapacityType::Spot);
    if (!offering) {
      csv.fail(zone_col, fmt::format("{} has no spot offering in zone \"{}\"", type_name,
                                     zone.substr(0, 60)));
    }
    const std::int64_t available = csv.integer(available_col, 0, 1'000'000);
    if (out.size() >= kMaxRows) csv.fail_at(1, "", fmt::format("more than {} rows", kMaxRows));
    out.push_back({.at = at, .offering = *offering, .available = available > 0});
    last_time = csv.field(time_col);
  }
  return out;
}

}  // namespace fleetsim
