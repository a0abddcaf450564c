// `spot:` in a scenario: how the spot market interrupts instances, and the recorded traces of
// the EC2 market it replays. Plain data, read by the scenario and by SpotMarket.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/cloudprovider/aws/offering_traces.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// How an offering's monthly interruption share is chosen: a point within its Spot Advisor band
// (0.5 its midpoint, 1 its upper edge), or a share given outright.
struct SpotRate {
  enum class Kind : std::uint8_t { BandQuantile, PerMonth };
  Kind kind = Kind::BandQuantile;
  double value = 0.5;
  friend bool operator==(const SpotRate&, const SpotRate&) = default;
};

// `spot:` in a scenario. Waves: EC2 reclaims an offering's capacity in waves, each taking
// `wave_share` of the offering's running instances, their notices spread uniformly over
// `wave_spread`; waves come as a Poisson process at hazard ÷ share, so each instance keeps the
// offering's hazard. Of the instances a wave takes, `rebalance_share` get a rebalance
// recommendation at their point of the spread and their notice `rebalance_lead` after it.
struct SpotMarketSettings {
  std::optional<SpotRate> rate;                            // nullopt: no hazard but the families'
  std::map<std::string, SpotRate, std::less<>> by_family;  // instance family → its rate
  // Multiplies every monthly share ("twice as bad": 2); a share is capped at kMaxMonthlyShare.
  double scale = 1.0;
  double wave_share = 0.5;
  SimDuration wave_spread = minutes(3);
  double rebalance_share = 0.5;
  SimDuration rebalance_lead = minutes(10);
  // A recorded availability trace, in time order: while an offering is unavailable it has no
  // capacity, and the instances running when it went were interrupted.
  std::vector<AvailabilityChange> availability;
  std::filesystem::path availability_trace;  // where it was read from
  // Recorded spot prices: billing and every launch or consolidation choice use the price in force.
  std::vector<PriceChange> prices;
  std::filesystem::path price_trace;
  // Recorded capacity limits, spot or on-demand: launches beyond one fail with insufficient
  // capacity; instances already running stay.
  std::vector<CapacityChange> capacity;
  std::filesystem::path capacity_trace;
};

// The monthly share of instances a Spot Advisor band ("<5%", "5-10%", "10-15%", "15-20%",
// ">20%") interrupts, at `quantile` within it; nullopt for anything else. The open top band is
// taken as 20-30%.
std::optional<double> band_share(std::string_view band, double quantile);

// The largest monthly share a scaled rate may reach: a share of 1 would be an infinite hazard.
inline constexpr double kMaxMonthlyShare = 0.99;

}  // namespace fleetsim
