// The spot market: interruptions at a hazard per spot offering from its Spot Advisor band (or a
// share the scenario sets), reclaimed in waves, with rebalance recommendations before some; and
// recorded traces of availability, prices and capacity replayed over the run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "fleetsim/cloudprovider/aws/offering_traces.hpp"
#include "fleetsim/cloudprovider/aws/spot_market_settings.hpp"
#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "fleetsim/engine/simulation.hpp"

namespace fleetsim {

// The month the Spot Advisor's "frequency of interruption" is measured over (its trailing
// month), as a duration: 30 days.
inline constexpr SimDuration kSpotAdvisorMonth = hours(30 * 24);

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
