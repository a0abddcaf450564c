#include "fleetsim/cloudprovider/aws/offering_traces.hpp"

#include <fmt/format.h>

#include <array>
#include <string>
#include <string_view>

#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

namespace {

// A trace spanning over ten years is a unit mix-up (milliseconds read as seconds).
constexpr double kMaxTimeS = 10.0 * 365.0 * 86400.0;
// More rows than a year of changes every second is not a recorded trace.
constexpr std::size_t kMaxRows = 32'000'000;
// Dollars an hour: the dearest EC2 instance costs a few hundred; more is a price in cents.
constexpr double kMaxPricePerHour = 1000.0;
// Instances an offering may be limited to: far beyond any offering's real capacity.
constexpr std::int64_t kMaxCapacity = 1'000'000;

// The columns every offering trace starts with, read row by row: the time (in order) and the
// offering the row names.
class OfferingRows {
 public:
  // Without a capacity_type column, rows name spot offerings.
  OfferingRows(CsvReader& csv, const Catalog& catalog, bool capacity_type_column)
      : csv_(csv),
        catalog_(catalog),
        time_(csv.require("time_s")),
        type_(csv.require("instance_type")),
        zone_(csv.require("zone")),
        capacity_type_(capacity_type_column ? csv.require("capacity_type") : 0),
        has_capacity_type_(capacity_type_column) {}

  // Reads the next row; false at the end.
  bool next(std::size_t rows_so_far) {
    if (!csv_.next_row()) return false;
    if (rows_so_far >= kMaxRows) csv_.fail_at(1, "", fmt::format("more than {} rows", kMaxRows));
    const double t = csv_.number(time_);
    if (t < 0 || t > kMaxTimeS) {
      csv_.fail(time_, fmt::format("must be from 0 to {} (ten years), got {}", kMaxTimeS,
                                   csv_.field(time_)));
    }
    const SimDuration at = from_seconds(t);
    if (rows_so_far > 0 && at < at_) {
      csv_.fail(time_, fmt::format("times must not decrease: {} follows {}", csv_.field(time_),
                                   last_time_));
    }
    at_ = at;
    last_time_ = csv_.field(time_);

    CapacityType ct = CapacityType::Spot;
    if (has_capacity_type_) {
      const std::string_view text = csv_.field(capacity_type_);
      if (text == "on-demand") {
        ct = CapacityType::OnDemand;
      } else if (text != "spot") {
        csv_.fail(capacity_type_, fmt::format("unknown capacity type \"{}\"; expected spot or "
                                              "on-demand",
                                              text.substr(0, 40)));
      }
    }
    const std::string_view type_name = csv_.field(type_);
    const std::optional<std::size_t> type = catalog_.index_of(type_name);
    if (!type) {
      csv_.fail(type_,
                fmt::format("instance type \"{}\" is not in the catalog", type_name.substr(0, 60)));
    }
    const std::string_view zone = csv_.field(zone_);
    const std::optional<std::uint32_t> offering =
        catalog_.find_offering(static_cast<std::uint32_t>(*type), zone, ct);
    if (!offering) {
      csv_.fail(zone_, fmt::format("{} has no {} offering in zone \"{}\"", type_name, to_string(ct),
                                   zone.substr(0, 60)));
    }
    offering_ = *offering;
    return true;
  }

  SimDuration at() const { return at_; }
  std::uint32_t offering() const { return offering_; }

 private:
  CsvReader& csv_;
  const Catalog& catalog_;
  std::size_t time_, type_, zone_, capacity_type_;
  bool has_capacity_type_;
  SimDuration at_{};
  std::uint32_t offering_ = 0;
  std::string last_time_;
};

}  // namespace

std::vector<AvailabilityChange> read_availability_trace(const std::filesystem::path& path,
                                                        const Catalog& catalog) {
  CsvReader csv(path, {.noun = "availability trace",
                       .example_header = "time_s,instance_type,zone,available"});
  csv.check_columns(
      std::array<std::string_view, 4>{"time_s", "instance_type", "zone", "available"});
  OfferingRows rows(csv, catalog, /*capacity_type_column=*/false);
  const std::size_t available_col = csv.require("available");
  std::vector<AvailabilityChange> out;
  while (rows.next(out.size())) {
    const std::int64_t available = csv.integer(available_col, 0, kMaxCapacity);
    out.push_back({.at = rows.at(),
                   .offering = rows.offering(),
                   .available = available > 0,
                   .line = csv.line()});
  }
  return out;
}

std::vector<PriceChange> read_price_trace(const std::filesystem::path& path,
                                          const Catalog& catalog) {
  CsvReader csv(path, {.noun = "price trace", .example_header = "time_s,instance_type,zone,price"});
  csv.check_columns(std::array<std::string_view, 4>{"time_s", "instance_type", "zone", "price"});
  OfferingRows rows(csv, catalog, /*capacity_type_column=*/false);
  const std::size_t price_col = csv.require("price");
  std::vector<PriceChange> out;
  while (rows.next(out.size())) {
    const double price = csv.number(price_col);
    if (!(price > 0 && price <= kMaxPricePerHour)) {
      csv.fail(price_col, fmt::format("a price is above 0 and at most {} dollars an hour, got {}",
                                      kMaxPricePerHour, csv.field(price_col)));
    }
    out.push_back(
        {.at = rows.at(), .offering = rows.offering(), .price = price, .line = csv.line()});
  }
  return out;
}

std::vector<CapacityChange> read_capacity_trace(const std::filesystem::path& path,
                                                const Catalog& catalog) {
  CsvReader csv(path, {.noun = "capacity trace",
                       .example_header = "time_s,instance_type,zone,capacity_type,count"});
  csv.check_columns(
      std::array<std::string_view, 5>{"time_s", "instance_type", "zone", "capacity_type", "count"});
  OfferingRows rows(csv, catalog, /*capacity_type_column=*/true);
  const std::size_t count_col = csv.require("count");
  std::vector<CapacityChange> out;
  while (rows.next(out.size())) {
    std::optional<std::int64_t> count;
    if (csv.field(count_col) != "unlimited") count = csv.integer(count_col, 0, kMaxCapacity);
    out.push_back(
        {.at = rows.at(), .offering = rows.offering(), .count = count, .line = csv.line()});
  }
  return out;
}

}  // namespace fleetsim
