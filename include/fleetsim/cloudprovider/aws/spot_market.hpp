// The spot market: interruptions at a hazard per spot offering from its Spot Advisor band (or a
// share the scenario sets), reclaimed in waves, with rebalance recommendations before some; and
// recorded traces of availability, prices and capacity replayed over the run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "fleetsim/cloudprovider/aws/offering_traces.hpp"
#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"

namespace fleetsim {

// The month the Spot Advisor's "frequency of interruption" is measured over (its trailing
// month), as a duration: 30 days.
inline constexpr SimDuration kSpotAdvisorMonth = hours(30 * 24);

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

// Each spot offering's monthly interruption share under the settings (0 for on-demand
// offerings and for spot offerings without a band under a band rate), by global offering.
std::vector<double> monthly_shares(const Catalog& catalog, const SpotMarketSettings& settings);

class SpotMarket final : private EventHandler {
 public:
  // `shares` as monthly_shares() gives them.
  SpotMarket(Simulation& sim, const Cluster& cluster, ClusterBus& bus, Ec2Cloud& cloud,
             const SpotMarketSettings& settings, std::vector<double> shares);

  // Draws each offering's first wave, and starts the traces' replay. Every
  // offering has its own random streams, so the waves of one are the same whatever the others,
  // or the NodePools, do.
  void start();

 private:
  enum class Kind : std::uint8_t { Wave, Rebalance, Notice, Availability, Price, Capacity };
  using Tag = EventTag<Kind>;

  void on_event(SimTime now, std::uint64_t tag) override;
  void schedule_wave(std::uint32_t offering, SimTime after);
  void wave(std::uint32_t offering, SimTime now);
  std::vector<NodeId> running(std::uint32_t offering) const;
  // Applies change `index` of a trace and schedules its next.
  void replay(Kind trace, std::uint32_t index);
  void schedule_replay(Kind trace, std::uint32_t index);

  Simulation& sim_;
  const Cluster& cluster_;
  ClusterBus& bus_;
  Ec2Cloud& cloud_;
  SpotMarketSettings settings_;
  std::vector<double> wave_mean_gap_us_;  // per global offering; 0: no waves
  std::vector<RngStream> wave_times_;     // per global offering: when waves come
  std::vector<RngStream> wave_hits_;      // per global offering: whom they take, and when
};

}  // namespace fleetsim
