// The spot market (issue 9, item 1): band → monthly share, waves that keep each instance's
// hazard, rebalance recommendations, and its determinism. The statistical tests run many
// simulated instance-months of a fixed fleet (the rig has no interruption handler, so an
// interrupted instance keeps running and can be taken again) and hold the estimates to five
// standard deviations of their sampling error.
#include "fleetsim/cloudprovider/aws/spot_market.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <utility>
#include <vector>

#include "unit/cloudprovider/cloud_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

constexpr int kNodes = 20;

// A fleet of kNodes running m5.large spot instances in one offering of `band`, a market over
// it, run for `months`.
struct MarketRun {
  MarketRun(std::string band, const SpotMarketSettings& settings, int months, std::uint64_t seed)
      : rig(Capacities{.spot_band = std::move(band)}, seed) {
    for (int i = 0; i < kNodes; ++i) nodes.push_back(*rig.launch({"m5.large"}, CapacityType::Spot));
    rig.sim.run_until(kReadyAt);
    SpotMarket market(rig.sim, rig.cluster, rig.bus, rig.cloud, settings,
                      monthly_shares(rig.catalog, settings));
    market.start();
    rig.sim.run_until(kReadyAt + kSpotAdvisorMonth * months);
    for (const RecordedEvent& e : rig.bus.events) {
      if (e.kind == EventKind::SpotInterruptionNotice) notices.push_back({e.time, e.node});
      if (e.kind == EventKind::SpotRebalanceRecommendation) rebalances.push_back({e.time, e.node});
    }
  }

  // The share of instance-months with at least one notice.
  double monthly_share(int months) const {
    std::set<std::pair<std::int64_t, NodeId>> hit;
    for (const auto& [time, node] : notices)
      hit.insert({(time - kReadyAt) / kSpotAdvisorMonth, node});
    return static_cast<double>(hit.size()) / (static_cast<double>(kNodes) * months);
  }

  CloudRig rig;
  std::vector<NodeId> nodes;
  std::vector<std::pair<SimTime, NodeId>> notices;
  std::vector<std::pair<SimTime, NodeId>> rebalances;
};

// Five standard deviations of the estimated monthly share: per month the waves are Poisson at
// Λ = −ln(1 − p) ÷ s, and a wave takes X ~ Binomial(N, s) of N instances, so the month's share
// has variance about Λ E[(X/N)²] = Λ (s(1 − s)/N + s²).
double tolerance(double share, double wave_share, int months) {
  const double waves = -std::log1p(-share) / wave_share;
  const double per_month =
      waves * (wave_share * (1 - wave_share) / kNodes + wave_share * wave_share);
  return 5 * std::sqrt(per_month / months);
}

SpotMarketSettings settings(SpotRate rate, double wave_share = 0.5, double rebalance_share = 0) {
  SpotMarketSettings s;
  s.rate = rate;
  s.wave_share = wave_share;
  s.rebalance_share = rebalance_share;
  return s;
}

constexpr SpotRate kMidpoint{.kind = SpotRate::Kind::BandQuantile, .value = 0.5};
constexpr SpotRate kMax{.kind = SpotRate::Kind::BandQuantile, .value = 1.0};

}  // namespace

TEST_CASE("a Spot Advisor band gives a monthly share at a quantile within it",
          "[cloudprovider][spot]") {
  CHECK(band_share("<5%", 0.5) == Approx(0.025));
  CHECK(band_share("5-10%", 0.5) == Approx(0.075));
  CHECK(band_share("10-15%", 1.0) == Approx(0.15));
  CHECK(band_share("15-20%", 0.0) == Approx(0.15));
  CHECK(band_share(">20%", 0.5) == Approx(0.25));  // the open top band is taken as 20-30%
  CHECK(band_share(">20%", 1.0) == Approx(0.30));
  CHECK_FALSE(band_share("", 0.5));
  CHECK_FALSE(band_share("20%", 0.5));
}

TEST_CASE("monthly shares: spot offerings only, by family, scaled and capped",
          "[cloudprovider][spot]") {
  const Catalog catalog = cloud_catalog({.spot_band = "10-15%"});
  const auto spot = [&](std::string_view type) {
    const OfferingPos pos = find_offering(catalog, type, "us-east-1a", CapacityType::Spot);
    return catalog.offering_index(pos.type, pos.offering);
  };
  const auto on_demand = [&](std::string_view type) {
    const OfferingPos pos = find_offering(catalog, type, "us-east-1a", CapacityType::OnDemand);
    return catalog.offering_index(pos.type, pos.offering);
  };
  SpotMarketSettings s = settings(kMidpoint);
  std::vector<double> shares = monthly_shares(catalog, s);
  CHECK(shares[spot("m5.large")] == Approx(0.125));
  CHECK(shares[on_demand("m5.large")] == 0.0);

  s.scale = 2;  // "and if it is twice as bad?"
  CHECK(monthly_shares(catalog, s)[spot("m5.large")] == Approx(0.25));
  s.scale = 10;
  CHECK(monthly_shares(catalog, s)[spot("m5.large")] == kMaxMonthlyShare);

  s.scale = 1;
  s.by_family["m5"] = SpotRate{.kind = SpotRate::Kind::PerMonth, .value = 0.4};
  CHECK(monthly_shares(catalog, s)[spot("m5.xlarge")] == Approx(0.4));

  // A band rate gives a spot offering without a band no interruptions (loading warns).
  CHECK(monthly_shares(cloud_catalog({}), settings(kMidpoint))[spot("m5.large")] == 0.0);
}

TEST_CASE("over many instance-months each band interrupts its share of instances",
          "[cloudprovider][spot]") {
  constexpr int kMonths = 24'000;
  for (const auto& [band, share] : std::vector<std::pair<std::string, double>>{{"<5%", 0.025},
                                                                               {"5-10%", 0.075},
                                                                               {"10-15%", 0.125},
                                                                               {"15-20%", 0.175},
                                                                               {">20%", 0.25}}) {
    INFO(band);
    const MarketRun run(band, settings(kMidpoint), kMonths, 5);
    CHECK(std::abs(run.monthly_share(kMonths) - share) <= tolerance(share, 0.5, kMonths));
  }
  // band_max: the band's upper edge.
  const MarketRun run("15-20%", settings(kMax), kMonths, 6);
  CHECK(std::abs(run.monthly_share(kMonths) - 0.20) <= tolerance(0.20, 0.5, kMonths));
}

TEST_CASE("waves keep the per-instance rate and cluster the notices as they claim",
          "[cloudprovider][spot]") {
  constexpr int kMonths = 4'000;
  constexpr SimDuration kWindow = minutes(3);  // the 2026 study: 92% within 3 min of another
  const SpotRate rate{.kind = SpotRate::Kind::PerMonth, .value = 0.125};
  for (double wave_share : {0.05, 0.5, 1.0}) {
    INFO("wave share " << wave_share);
    const MarketRun run("", settings(rate, wave_share), kMonths, 7);
    CHECK(std::abs(run.monthly_share(kMonths) - 0.125) <= tolerance(0.125, wave_share, kMonths));
    // A notice has another within 3 minutes when the wave took any of the other 19 instances:
    // 1 − (1 − s)^19.
    std::size_t clustered = 0;
    for (std::size_t i = 0; i < run.notices.size(); ++i) {
      const bool before = i > 0 && run.notices[i].first - run.notices[i - 1].first <= kWindow;
      const bool after =
          i + 1 < run.notices.size() && run.notices[i + 1].first - run.notices[i].first <= kWindow;
      clustered += before || after;
    }
    const double expected = 1 - std::pow(1 - wave_share, kNodes - 1);
    const double observed = static_cast<double>(clustered) / run.notices.size();
    CHECK(std::abs(observed - expected) <= 0.04);
  }
}

TEST_CASE("a rebalance recommendation comes exactly its lead before the notice it warns of",
          "[cloudprovider][spot]") {
  constexpr int kMonths = 2'000;
  const MarketRun run("10-15%", settings(kMidpoint, 0.5, 0.3), kMonths, 8);
  REQUIRE_FALSE(run.rebalances.empty());
  const std::set<std::pair<SimTime, NodeId>> notices(run.notices.begin(), run.notices.end());
  for (const auto& [time, node] : run.rebalances) {
    CHECK(notices.contains({time + minutes(10), node}));
  }
  const double share = static_cast<double>(run.rebalances.size()) / run.notices.size();
  CHECK(std::abs(share - 0.3) <= 5 * std::sqrt(0.3 * 0.7 / run.notices.size()) * 3);
}

TEST_CASE("the same seed draws the same interruptions, another seed, others",
          "[cloudprovider][spot]") {
  const MarketRun a("5-10%", settings(kMidpoint), 200, 11);
  const MarketRun b("5-10%", settings(kMidpoint), 200, 11);
  const MarketRun c("5-10%", settings(kMidpoint), 200, 12);
  REQUIRE_FALSE(a.notices.empty());
  CHECK(a.notices == b.notices);
  CHECK(a.notices != c.notices);
}

TEST_CASE("an instance that is gone before its notice is left alone", "[cloudprovider][spot]") {
  // Every wave takes the one instance with a rebalance recommendation first; it is terminated
  // in the ten minutes between, so its notice finds nothing to interrupt.
  CloudRig rig(Capacities{.spot_band = ">20%"});
  const NodeId node = *rig.launch({"m5.large"}, CapacityType::Spot);
  rig.sim.run_until(kReadyAt);
  const SpotMarketSettings s = settings(kMax, 1.0, 1.0);
  SpotMarket market(rig.sim, rig.cluster, rig.bus, rig.cloud, s, monthly_shares(rig.catalog, s));
  market.start();
  const auto rebalanced = [&] {
    return std::any_of(rig.bus.events.begin(), rig.bus.events.end(), [](const RecordedEvent& e) {
      return e.kind == EventKind::SpotRebalanceRecommendation;
    });
  };
  while (!rebalanced()) rig.sim.run_until(rig.sim.now() + minutes(5));
  rig.cloud.terminate(node, rig.sim.now());
  rig.sim.run_until(rig.sim.now() + kSpotAdvisorMonth * 12);
  for (const RecordedEvent& e : rig.bus.events) {
    CHECK(e.kind != EventKind::SpotInterruptionNotice);
  }
  CHECK(rig.cluster.node(node).phase == NodePhase::Terminated);
}
