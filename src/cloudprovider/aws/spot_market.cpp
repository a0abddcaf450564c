#include "fleetsim/cloudprovider/aws/spot_market.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "fleetsim/cloudprovider/aws/rebalance_action.hpp"

namespace fleetsim {

namespace {

struct Band {
  std::string_view label;
  double low;
  double high;
};

// The Spot Advisor's bands of "frequency of interruption" (the share of instances EC2
// reclaimed over the trailing month). Its feed gives no upper edge for the top band.
constexpr std::array<Band, 5> kBands{{{"<5%", 0.00, 0.05},
                                      {"5-10%", 0.05, 0.10},
                                      {"10-15%", 0.10, 0.15},
                                      {"15-20%", 0.15, 0.20},
                                      {">20%", 0.20, 0.30}}};

// A Poisson hazard with monthly share p interrupts an instance within a month with probability
// p: λ = −ln(1 − p) per month.
double hazard_per_us(double monthly_share) {
  return -std::log1p(-monthly_share) / static_cast<double>(kSpotAdvisorMonth.count());
}

}  // namespace

std::optional<double> band_share(std::string_view band, double quantile) {
  for (const Band& b : kBands) {
    if (b.label == band) return b.low + quantile * (b.high - b.low);
  }
  return std::nullopt;
}

std::vector<double> monthly_shares(const Catalog& catalog, const SpotMarketSettings& settings) {
  std::vector<double> out(catalog.offering_count(), 0.0);
  for (std::uint32_t t = 0; t < catalog.types().size(); ++t) {
    const InstanceType& type = catalog.types()[t];
    const auto family = settings.by_family.find(type.family);
    const SpotRate* rate = family != settings.by_family.end() ? &family->second
                           : settings.rate                    ? &*settings.rate
                                                              : nullptr;
    if (rate == nullptr) continue;
    for (std::size_t i = 0; i < type.offerings.size(); ++i) {
      const Offering& o = type.offerings[i];
      if (o.capacity_type != CapacityType::Spot) continue;
      const std::optional<double> share = rate->kind == SpotRate::Kind::PerMonth
                                              ? std::optional<double>(rate->value)
                                              : band_share(o.interruption_bucket, rate->value);
      if (share) {
        out[catalog.offering_index(t, i)] = std::min(*share * settings.scale, kMaxMonthlyShare);
      }
    }
  }
  return out;
}

SpotMarket::SpotMarket(Simulation& sim, const Cluster& cluster, ClusterBus& bus, Ec2Cloud& cloud,
                       const SpotMarketSettings& settings, std::vector<double> shares)
    : sim_(sim), cluster_(cluster), bus_(bus), cloud_(cloud), settings_(settings) {
  const Catalog& catalog = cloud.catalog();
  FLEETSIM_ASSERT(shares.size() == catalog.offering_count());
  FLEETSIM_ASSERT(settings.wave_share > 0 && settings.wave_share <= 1);
  wave_mean_gap_us_.assign(shares.size(), 0.0);
  for (std::uint32_t t = 0; t < catalog.types().size(); ++t) {
    const InstanceType& type = catalog.types()[t];
    for (std::size_t i = 0; i < type.offerings.size(); ++i) {
      const std::uint32_t g = catalog.offering_index(t, i);
      const std::string name = type.name + "/" + type.offerings[i].zone;
      wave_times_.push_back(sim.rng("spot-market/waves/" + name));
      wave_hits_.push_back(sim.rng("spot-market/hits/" + name));
      if (shares[g] > 0) wave_mean_gap_us_[g] = settings.wave_share / hazard_per_us(shares[g]);
    }
  }
}

void SpotMarket::start() {
  for (std::uint32_t g = 0; g < wave_mean_gap_us_.size(); ++g) schedule_wave(g, sim_.now());
  for (Kind trace : {Kind::Availability, Kind::Price, Kind::Capacity}) schedule_replay(trace, 0);
}

void SpotMarket::schedule_replay(Kind trace, std::uint32_t index) {
  std::optional<SimDuration> when;
  if (trace == Kind::Availability && index < settings_.availability.size())
    when = settings_.availability[index].at;
  if (trace == Kind::Price && index < settings_.prices.size()) when = settings_.prices[index].at;
  if (trace == Kind::Capacity && index < settings_.capacity.size())
    when = settings_.capacity[index].at;
  if (!when) return;
  sim_.schedule_at(std::max(sim_.now(), at(*when)), Phase::CloudAndNodes, *this,
                   Tag{trace, index}.pack());
}

void SpotMarket::replay(Kind trace, std::uint32_t index) {
  const Catalog& catalog = cloud_.catalog();
  if (trace == Kind::Availability) {
    // The offering goes: no capacity, and every instance of it running is interrupted (in node
    // order); or it comes back with the catalog's capacity.
    const AvailabilityChange& change = settings_.availability[index];
    if (change.available) {
      cloud_.set_capacity(change.offering, catalog.offering(change.offering).capacity);
    } else {
      cloud_.set_capacity(change.offering, 0);
      for (NodeId id : running(change.offering)) cloud_.interrupt_spot(id);
    }
  } else if (trace == Kind::Price) {
    cloud_.set_price(settings_.prices[index].offering, settings_.prices[index].price);
  } else {
    const CapacityChange& change = settings_.capacity[index];
    cloud_.set_capacity(change.offering,
                        change.count ? change.count : catalog.offering(change.offering).capacity);
  }
  schedule_replay(trace, index + 1);
}

// The live spot instances of the offering that have launched, in node order.
std::vector<NodeId> SpotMarket::running(std::uint32_t g) const {
  std::vector<NodeId> out;
  for (NodeId id : cluster_.active_nodes()) {
    const Node& n = cluster_.node(id);
    if (n.phase != NodePhase::Launching && n.is_live() && n.capacity_type == CapacityType::Spot &&
        offering_of(cloud_.catalog(), n) == g) {
      out.push_back(id);
    }
  }
  return out;
}

void SpotMarket::schedule_wave(std::uint32_t g, SimTime after) {
  if (wave_mean_gap_us_[g] == 0) return;
  const double gap_us = wave_times_[g].exponential(wave_mean_gap_us_[g]);
  // A gap beyond the clock's range is a wave that never comes.
  if (!(gap_us < static_cast<double>((SimTime::max() - after).count()))) return;
  sim_.schedule_at(after + SimDuration{static_cast<std::int64_t>(gap_us)}, Phase::CloudAndNodes,
                   *this, Tag{Kind::Wave, g}.pack());
}

// The wave takes each running instance of the offering with probability wave_share, in node
// order; each taken one gets its notice at a uniform point of the spread, or, with probability
// rebalance_share, a rebalance recommendation there and its notice rebalance_lead later.
void SpotMarket::wave(std::uint32_t g, SimTime now) {
  schedule_wave(g, now);
  RngStream& rng = wave_hits_[g];
  for (NodeId id : running(g)) {
    if (rng.uniform() >= settings_.wave_share) continue;
    const double spread_us = static_cast<double>(settings_.wave_spread.count());
    const SimTime point = now + SimDuration{static_cast<std::int64_t>(rng.uniform() * spread_us)};
    if (rng.uniform() < settings_.rebalance_share) {
      sim_.schedule_at(point, Phase::CloudAndNodes, *this, Tag{Kind::Rebalance, id}.pack());
      sim_.schedule_at(point + settings_.rebalance_lead, Phase::CloudAndNodes, *this,
                       Tag{Kind::Notice, id}.pack());
    } else {
      sim_.schedule_at(point, Phase::CloudAndNodes, *this, Tag{Kind::Notice, id}.pack());
    }
  }
}

void SpotMarket::on_event(SimTime now, std::uint64_t t) {
  const Tag tag = Tag::unpack(t);
  switch (tag.kind) {
    case Kind::Wave:
      wave(tag.subject, now);
      return;
    case Kind::Rebalance:
      // Karpenter takes no action on a rebalance recommendation (aws:pkg/controllers/
      // interruption/controller.go, actionForMessage: NoAction); the event says so.
      if (cluster_.node(tag.subject).is_live()) {
        bus_.emit(SimEvent{.time = now,
                           .kind = EventKind::SpotRebalanceRecommendation,
                           .node = tag.subject,
                           .reason = RebalanceAction::NoAction});
      }
      return;
    case Kind::Notice:
      cloud_.interrupt_spot(tag.subject);  // leaves a node that has gone meanwhile alone
      return;
    case Kind::Availability:
    case Kind::Price:
    case Kind::Capacity:
      replay(tag.kind, tag.subject);
      return;
  }
}

}  // namespace fleetsim
