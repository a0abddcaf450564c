#include "fleetsim/disruption/consolidation.hpp"

#include <algorithm>
#include <limits>

#include "fleetsim/scheduling/min_values.hpp"

namespace fleetsim {

namespace {

constexpr double kNoPrice = std::numeric_limits<double>::infinity();

// Karpenter's capacity-type precedence for the worst-case launch price.
constexpr std::array<CapacityType, 3> kLaunchPrecedence{CapacityType::Reserved, CapacityType::Spot,
                                                        CapacityType::OnDemand};

void pin_capacity_type(Requirements& r, CapacityType ct) {
  r.add(std::string(label::kCapacityType), Requirement::single(std::string(to_string(ct))));
}

}  // namespace

Consolidation::Consolidation(Inputs in)
    : cluster_(in.cluster),
      provisioner_(in.provisioner),
      cloud_(in.cloud),
      pdbs_(in.pdbs),
      settings_(in.settings),
      simulation_(in.cluster, in.provisioner, in.cloud),
      pass_(in.pass) {}

Consolidation::~Consolidation() = default;

const std::vector<Candidate>& Consolidation::candidates(SimTime now) {
  update_totals();
  if (pass_ == nullptr) {
    own_cache_.candidates(candidate_inputs(), now, own_);
    return own_;
  }
  if (const std::vector<Candidate>* kept = pass_->kept(now)) return *kept;
  std::vector<Candidate>& out = pass_->keep_in_place(now);
  pass_->cache().candidates(candidate_inputs(), now, out);
  return out;
}

void Consolidation::update_totals() {
  // Only a Balanced pool's totals are read (approves, can_pass_threshold).
  const std::vector<NodePool>& pools = provisioner_.nodepools();
  if (std::any_of(pools.begin(), pools.end(), [](const NodePool& p) {
        return p.disruption.policy == ConsolidationPolicy::Balanced;
      }))
    totals_ = pool_totals(cluster_, cloud_, pools.size());
}

ConsolidationCandidateInputs Consolidation::candidate_inputs() const {
  return {.cluster = cluster_,
          .claims = provisioner_.launcher().claims(),
          .cloud = cloud_,
          .pdbs = pdbs_,
          .pools = provisioner_.nodepools(),
          .pools_generation = provisioner_.generation(),
          .version = settings_.version};
}

double Consolidation::worst_launch_price(std::uint32_t pool, std::uint32_t type,
                                         const Requirements& r) const {
  const std::uint64_t zones = simulation_.context().zone_mask(r);
  const std::uint8_t capacity = SchedulingContext::capacity_mask(r);
  const std::span<const std::uint8_t> usable = cloud_.usable_offerings();
  for (CapacityType ct : kLaunchPrecedence) {
    if (!(capacity & capacity_bit(ct))) continue;
    double worst = -1;
    for (const OfferingRef& o : simulation_.context().offerings(type)) {
      if (o.capacity != capacity_bit(ct) || !(zones >> o.zone & 1ULL)) continue;
      if (!usable.empty() && usable[o.global] == 0) continue;
      if (!pool_offers(simulation_.context(), pool, o.global)) continue;
      worst =
          std::max(worst, simulation_.context().pool_price(pool, o.global, cloud_.price(o.global)));
    }
    if (worst >= 0) return worst;
  }
  return kNoPrice;
}

double Consolidation::cheapest_price(std::uint32_t pool, std::uint32_t type,
                                     const Requirements& r) const {
  return cheapest_offering_price(simulation_.context(), cloud_, pool, type, r);
}

bool Consolidation::keep_cheaper(NewNodeClaim& claim, double max_price) const {
  std::erase_if(claim.types, [&](std::uint32_t t) {
    return !(worst_launch_price(claim.pool, t, claim.requirements) < max_price);
  });
  return !claim.types.empty() &&
         min_values_hold(claim.requirements, claim.types, simulation_.context().catalog());
}

std::optional<NewNodeClaim> Consolidation::price_replacement(std::span<const Candidate> candidates,
                                                             NewNodeClaim claim) const {
  double candidate_price = 0;
  bool all_spot = true;
  for (const Candidate& c : candidates) {
    candidate_price += c.price;
    all_spot &= cluster_.node(c.node).capacity_type == CapacityType::Spot;
  }
  const std::uint8_t capacity = SchedulingContext::capacity_mask(claim.requirements);
  const std::uint8_t spot = capacity_bit(CapacityType::Spot);
  const std::uint8_t on_demand = capacity_bit(CapacityType::OnDemand);

  if (all_spot && (capacity & spot)) {
    // computeSpotToSpotConsolidation.
    if (!settings_.spot_to_spot) return std::nullopt;
    pin_capacity_type(claim.requirements, CapacityType::Spot);
    std::erase_if(claim.types, [&](std::uint32_t t) {
      return cheapest_price(claim.pool, t, claim.requirements) == kNoPrice;
    });
    if (!keep_cheaper(claim, candidate_price)) return std::nullopt;
    if (candidates.size() > 1) return claim;
    // Single-node: at least 15 cheaper types, and launch with the 15 cheapest (or as many as
    // minValues needs) so that the launch cannot pick a type that is consolidated again at once.
    if (claim.types.size() < kSpotToSpotMinTypes) return std::nullopt;
    std::size_t keep = kSpotToSpotMinTypes;
    if (claim.requirements.has_min_values()) {
      std::size_t needed = 1;
      while (needed < claim.types.size() &&
             !min_values_hold(claim.requirements, std::span(claim.types).first(needed),
                              simulation_.context().catalog()))
        ++needed;
      keep = std::max(keep, needed);
    }
    claim.types.resize(std::min(keep, claim.types.size()));
    return claim;
  }

  if (!keep_cheaper(claim, candidate_price)) return std::nullopt;
  // A replacement that can launch into a reservation is held to it, as Karpenter's scheduler
  // injects the reserved capacity type on a NodeClaim that reserved offerings (nodeclaim.go
  // FinalizeScheduling): it does not fall back to a dearer node.
  if (capacity & capacity_bit(CapacityType::Reserved)) {
    Requirements reserved = claim.requirements;
    pin_capacity_type(reserved, CapacityType::Reserved);
    if (std::any_of(claim.types.begin(), claim.types.end(), [&](std::uint32_t t) {
          return cheapest_price(claim.pool, t, reserved) != kNoPrice;
        })) {
      claim.requirements = std::move(reserved);
      return claim;
    }
  }
  // Filtered on the assumption that spot launches: never fall back to a dearer on-demand node.
  if ((capacity & spot) && (capacity & on_demand))
    pin_capacity_type(claim.requirements, CapacityType::Spot);
  return claim;
}

std::optional<DisruptionCommand> Consolidation::compute_consolidation(
    std::span<const Candidate> candidates, SimTime now) {
  const std::optional<std::vector<NewNodeClaim>>& claims =
      simulation_.run(candidates, keeps_off_fresh_nodes(), now);
  if (!claims || claims->size() > 1) return std::nullopt;
  DisruptionCommand command{.destinations = simulation_.destinations()};
  for (const Candidate& c : candidates) {
    command.nodes.push_back(c.node);
    command.savings_per_hour += c.price;
    command.pods += c.pods.size();
  }
  if (claims->empty()) return command;
  std::optional<NewNodeClaim> replacement = price_replacement(candidates, claims->front());
  if (!replacement) return std::nullopt;
  replacement->pods.clear();
  command.savings_per_hour -=
      cheapest_price(replacement->pool, replacement->types.front(), replacement->requirements);
  command.replacements.push_back(std::move(*replacement));
  return command;
}

bool Consolidation::approves(std::span<const Candidate> candidates,
                             const DisruptionCommand& command) const {
  return balanced_approves_command(candidates, command.savings_per_hour, provisioner_.nodepools(),
                                   totals_);
}

bool Consolidation::can_pass_threshold(const Candidate& c) const {
  if (provisioner_.nodepools()[c.pool].disruption.policy != ConsolidationPolicy::Balanced)
    return true;
  const PoolTotals& t = totals_[c.pool];
  return t.cost <= 0 || balanced_approves(c.price, c.reschedule_cost, t);
}

bool Consolidation::is_consolidated(SimTime now) const {
  return consolidated_state_ == cluster_.consolidation_state(now);
}

bool Consolidation::known_consolidated(SimTime now) const {
  const std::optional<SimTime> state = cluster_.peek_consolidation_state(now);
  return state.has_value() && consolidated_state_ == *state;
}

void Consolidation::mark_consolidated(SimTime now) {
  consolidated_state_ = cluster_.consolidation_state(now);
}

DisruptionCommand Consolidation::validate(DisruptionCommand command, SimTime now,
                                          BudgetTracker& budgets) {
  // After the validation wait, outside any pass: built anew.
  update_totals();
  const std::vector<Candidate> current = consolidation_candidates(candidate_inputs(), now);
  std::vector<Candidate> held;
  for (NodeId id : command.nodes) {
    auto it = std::find_if(current.begin(), current.end(),
                           [&](const Candidate& c) { return c.node == id; });
    if (it == current.end() || !budgets.take(it->pool)) return {};  // churn or budget
    held.push_back(*it);
  }
  const std::optional<std::vector<NewNodeClaim>>& claims =
      simulation_.run(held, keeps_off_fresh_nodes(), now);
  if (!claims || claims->size() > 1) return {};
  if (claims->size() != command.replacements.size()) return {};
  if (!claims->empty()) {
    std::vector<std::uint32_t> offered = claims->front().types;
    std::sort(offered.begin(), offered.end());
    for (std::uint32_t t : command.replacements.front().types)
      if (!std::binary_search(offered.begin(), offered.end(), t)) return {};
  }
  return command;
}

}  // namespace fleetsim
