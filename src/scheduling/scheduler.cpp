#include "fleetsim/scheduling/scheduler.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <tuple>

#include "fleetsim/core/quantity.hpp"
#include "fleetsim/core/stop_flag.hpp"
#include "fleetsim/scheduling/min_values.hpp"
#include "fleetsim/scheduling/requirements_objection.hpp"
#include "fleetsim/scheduling/reservation_manager.hpp"
#include "pod_affinity.hpp"
#include "spread_groups.hpp"

namespace fleetsim {

namespace {

// Below one free claim in this many, a pod kept apart by hostname anti-affinity tries only the
// free ones (a tuning constant of fleetsim's: the order and the outcome are the same).
constexpr std::size_t kFreeClaimsShortcut = 8;
// How many of the latest distinct requirement sets a new variant is compared with (fleetsim's
// tuning: enough for the Deployments of one batch, bounded so that many distinct ones stay
// linear).
constexpr std::ptrdiff_t kRecentRequirementSets = 16;

// One reading of a pod's node requirements: which required term, and whether the preferred
// term is still honoured. Pods of one Deployment share their variants.
struct Variant {
  Requirements requirements;
  bool has_requirements = false;
  TypeSet types;  // catalog types whose labels intersect the requirements
  std::uint64_t zone_mask = 0;
  // The zones of the required term alone, without the preferred one: Karpenter's pod domains
  // for pod affinity (its StrictRequirements).
  std::uint64_t strict_zone_mask = 0;
  std::uint8_t capacity_mask = 0;
  std::vector<std::int8_t> node_compatible;  // per existing node: -1 unknown, 0 no, 1 yes
  // For pods without topology spread, by (PreferNoSchedule tolerated, from a candidate): the
  // position in node_order before which every node failed. Nodes only fill up during a solve,
  // so the next pod of the spec starts there: identical pods scan the nodes once, not each.
  std::array<std::uint32_t, 4> scan_from{};
};

// How far Karpenter has relaxed a pod's soft constraints (preferences.go order).
struct PodProgress {
  std::uint32_t term = 0;       // required node-affinity term in use
  AffinityRelaxation affinity;  // preferred pod (anti-)affinity terms dropped
  bool use_preferred = true;    // the heaviest preferred node-affinity term is treated as required
  bool honor_schedule_anyway = true;
  bool tolerate_prefer_no_schedule = false;
};

struct Claim {
  std::uint32_t pool = 0;
  std::uint32_t serial = 0;  // creation order, the tie-break when sorting by pod count
  Requirements requirements;
  std::vector<std::int32_t> merged_variants;
  std::uint64_t zone_mask = 0;
  std::uint8_t capacity_mask = 0;
  std::vector<std::uint32_t> types;
  Resources requests;  // the pods' requests, without DaemonSet overhead
  Resources headroom;  // component-wise max over types of allocatable − DaemonSet overhead
  std::vector<std::uint32_t> pods;
};

// Karpenter's offeringsToReserve outcome in strict mode (nodeclaim.go).
enum class ReserveCheck : std::uint8_t { Ok, NoneReservable, WouldLoseReserved };
// What a new claim from one pool made of a pod.
enum class NewClaim : std::uint8_t { Placed, Refused, ReservedOfferingError };

// Upstream's ReservedOfferingError for a NodeClaim that could launch into a reservation the
// solve's other claims have all taken.
constexpr std::string_view kReservedOfferingError =
    "one or more instance types with compatible reserved offerings are available, but could not "
    "be reserved";

// A pool's types by their cheapest offering within (zones, capacity types), then by name:
// claims with the same masks share one order (a solve's claims have a handful of masks).
struct PriceOrder {
  std::uint32_t pool = 0;
  std::uint64_t zones = 0;
  std::uint8_t capacity = 0;
  std::vector<std::uint32_t> types;
};

// A pool's launchable types that have a usable offering within (zones, capacity types).
struct OfferedTypes {
  std::uint32_t pool = 0;
  std::uint64_t zones = 0;
  std::uint8_t capacity = 0;
  std::vector<std::uint32_t> types;
};

}  // namespace

struct Scheduler::State {
  const SchedulingContext& ctx;
  const SchedulerOptions& options;
  const SolveInput* input = nullptr;  // the solve under way
  const std::vector<InstanceType>& types;

  std::vector<Variant> variants;
  std::map<std::tuple<const PodSpec*, std::uint32_t, bool>, std::int32_t> variant_of;
  std::vector<PodProgress> progress;
  std::vector<std::int32_t> distinct_variants;  // the first variant of each requirement set

  std::vector<std::uint32_t> node_order;
  std::vector<Resources> node_available;

  std::vector<Claim> claims;
  std::vector<std::uint32_t> claim_order;  // by pod count ascending, then serial

  std::vector<Resources> pool_remaining;
  std::vector<std::int64_t> pool_nodes_remaining;      // INT64_MAX when unlimited
  std::vector<std::vector<std::uint32_t>> pool_types;  // launchable types within limits
  std::vector<bool> pool_types_stale;

  SpreadGroups spreads;
  PodAffinityGroups affinity;
  std::uint64_t zone_universe = 0;

  std::vector<std::uint32_t> scratch;        // narrowed type sets
  std::vector<std::uint32_t> claim_scratch;  // claims to try for the pod being placed
  // Per hostname group that keeps pods apart: the places in node_order of the nodes that may
  // hold none of it (this solve), or {kUnlisted} until first asked for.
  static constexpr std::uint32_t kUnlisted = UINT32_MAX;
  std::vector<std::vector<std::uint32_t>> apart_free;
  std::vector<std::uint8_t> type_marks;  // per catalog type, all 0 between uses
  std::vector<PriceOrder> price_orders;
  std::vector<OfferedTypes> offered;
  std::vector<std::uint64_t> zone_scratch;  // zone choices for the pod being placed
  SolveResult result;

  // Reservations, only when the input tracks them: the hot path without any skips all of it.
  bool reserving = false;
  ReservationManager reservations;
  std::vector<std::uint32_t> to_reserve;       // offeringsToReserve of the claim being tried
  std::vector<std::uint32_t> to_release;       // held ones the claim gives up
  std::vector<std::int32_t> reserved_failure;  // per pod: the pool of its last such error, or -1

  // A ring buffer over the pods to place, and each pod's no-progress mark (see solve()).
  std::vector<std::uint32_t> queue;
  std::vector<std::int64_t> last_len;
  std::vector<std::uint32_t> last_epoch;

  State(const SchedulingContext& c, const SchedulerOptions& o)
      : ctx(c), options(o), types(c.catalog().types()) {}

  const SolveInput& in() const { return *input; }

  // Forgets the last solve and keeps the buffers.
  void reset(const SolveInput& i) {
    input = &i;
    variants.clear();
    variant_of.clear();
    distinct_variants.clear();
    progress.assign(i.pods.size(), PodProgress{});
    claims.clear();
    claim_order.clear();
    zone_universe = 0;
    price_orders.clear();
    offered.clear();
    for (std::vector<std::uint32_t>& free : apart_free) free.assign(1, kUnlisted);
    result = SolveResult{};
    reserving = !i.reservation_remaining.empty() && !ctx.catalog().reservations().empty();
    if (reserving) {
      reservations.reset(i.reservation_remaining);
      reserved_failure.assign(i.pods.size(), -1);
    }
  }

  // Usable now, and by the pool: a reservation's offering only where its NodeClass selects it.
  bool offering_usable(std::uint32_t pool, const OfferingRef& o) const {
    const std::vector<std::uint8_t>& allowed = ctx.pools()[pool].offering_allowed;
    return (in().offering_usable.empty() || in().offering_usable[o.global] != 0) &&
           (allowed.empty() || allowed[o.global] != 0);
  }

  bool has_offering(std::uint32_t pool, std::uint32_t type, std::uint64_t zones,
                    std::uint8_t capacity) const {
    for (const OfferingRef& o : ctx.offerings(type))
      if ((zones >> o.zone & 1ULL) && (o.capacity & capacity) && offering_usable(pool, o))
        return true;
    return false;
  }

  // Karpenter's offeringsToReserve over the types in `scratch`: fills `to_reserve` with every
  // compatible reservation that `claim` holds or may take. `held`: what the claim holds now.
  ReserveCheck offerings_to_reserve(std::uint32_t claim, std::span<const std::uint32_t> held,
                                    std::uint32_t pool, std::uint64_t zones,
                                    std::uint8_t capacity) {
    to_reserve.clear();
    const std::uint8_t reserved = capacity_bit(CapacityType::Reserved);
    bool compatible = false;
    if (capacity & reserved) {
      for (std::uint32_t t : scratch)
        for (const OfferingRef& o : ctx.offerings(t)) {
          if (o.capacity != reserved || !(zones >> o.zone & 1ULL) || !offering_usable(pool, o))
            continue;
          compatible = true;
          auto r = static_cast<std::uint32_t>(ctx.catalog().offering(o.global).reservation);
          if (reservations.can_reserve(claim, r)) to_reserve.push_back(r);
        }
    }
    if (!options.strict_reserved_offerings || !to_reserve.empty()) return ReserveCheck::Ok;
    if (compatible) return ReserveCheck::NoneReservable;
    return held.empty() ? ReserveCheck::Ok : ReserveCheck::WouldLoseReserved;
  }

  // Out of line, so that the placement loops stay small when no reservation is tracked.
  [[gnu::noinline]] bool reserve_for_claim(std::uint32_t ci, std::uint64_t zones,
                                           std::uint8_t capacity) {
    const Claim& c = claims[ci];
    if (offerings_to_reserve(ci, reservations.held(ci), c.pool, zones, capacity) !=
        ReserveCheck::Ok)
      return false;
    commit_reservations(ci);
    return true;
  }
  [[gnu::noinline]] bool reservable_for_new_claim(std::uint32_t ci, std::uint32_t pool,
                                                  std::uint64_t zones, std::uint8_t capacity) {
    return offerings_to_reserve(ci, {}, pool, zones, capacity) == ReserveCheck::Ok;
  }

  // NodeClaim.Add's bookkeeping: take the new reservations, give back the ones dropped.
  [[gnu::noinline]] void commit_reservations(std::uint32_t ci) {
    reservations.reserve(ci, to_reserve);
    to_release.clear();
    for (std::uint32_t r : reservations.held(ci))
      if (std::find(to_reserve.begin(), to_reserve.end(), r) == to_reserve.end())
        to_release.push_back(r);
    reservations.release(ci, to_release);
  }

  // ---- setup ----

  void order_nodes() {
    if (in().node_order.size() == in().nodes.size()) {
      node_order.assign(in().node_order.begin(), in().node_order.end());
    } else {
      node_order = solver_node_order(in().nodes);
    }
    node_available.resize(in().nodes.size());
    const bool zones_known = in().node_zones.size() == in().nodes.size();
    for (std::size_t i = 0; i < in().nodes.size(); ++i) {
      node_available[i] = in().nodes[i].available;
      if (in().removed(static_cast<std::uint32_t>(i))) continue;
      if (zones_known) {
        if (in().node_zones[i] >= 0) zone_universe |= 1ULL << in().node_zones[i];
      } else if (auto z = ctx.zone_index(in().nodes[i].zone)) {
        zone_universe |= 1ULL << *z;
      }
    }
  }

  void init_pools() {
    const auto& pools = ctx.pools();
    pool_remaining.assign(pools.size(), Resources{});
    pool_nodes_remaining.assign(pools.size(), INT64_MAX);
    pool_types.resize(pools.size());  // refilled: every pool starts stale
    pool_types_stale.assign(pools.size(), true);
    for (std::size_t p = 0; p < pools.size(); ++p) {
      const NodePoolLimits& limits = pools[p].pool->limits;
      if (limits.resources) {
        pool_remaining[p] = *limits.resources;
        if (p < in().pool_usage.size()) pool_remaining[p] -= in().pool_usage[p];
      }
      if (limits.nodes) {
        std::int64_t used = p < in().pool_node_count.size() ? in().pool_node_count[p] : 0;
        pool_nodes_remaining[p] = *limits.nodes - used;
      }
      zone_universe |= pools[p].zone_mask;
    }
  }

  bool within_limits(std::uint32_t pool, const Resources& capacity) const {
    const NodePoolLimits& limits = ctx.pools()[pool].pool->limits;
    if (!limits.resources) return true;
    for (ResourceIndex r = 0; r < resource::kMaxResources; ++r)
      if (limits.set_mask[r] && capacity[r] > pool_remaining[pool][r]) return false;
    return true;
  }

  const std::vector<std::uint32_t>& launchable_types(std::uint32_t pool) {
    if (pool_types_stale[pool]) {
      const PoolTemplate& tpl = ctx.pools()[pool];
      auto& out = pool_types[pool];
      out.clear();
      tpl.types.for_each([&](std::size_t t) {
        auto type = static_cast<std::uint32_t>(t);
        // A type whose DaemonSets alone overflow it hosts no pod; leaving it out lets narrow()
        // compare only the resources a claim's pods request.
        if (within_limits(pool, tpl.capacity[t]) && Resources{}.fits_in(tpl.room[t]) &&
            has_offering(pool, type, tpl.zone_mask, tpl.capacity_mask))
          out.push_back(type);
      });
      pool_types_stale[pool] = false;
      std::erase_if(offered, [&](const OfferedTypes& o) { return o.pool == pool; });
    }
    return pool_types[pool];
  }

  // The launchable types with a usable offering within (zones, capacity types): new claims of
  // a solve ask for a handful of such masks, each filtered once.
  const std::vector<std::uint32_t>& offered_types(std::uint32_t pool, std::uint64_t zones,
                                                  std::uint8_t capacity) {
    const auto& launchable = launchable_types(pool);
    for (const OfferedTypes& o : offered)
      if (o.pool == pool && o.zones == zones && o.capacity == capacity) return o.types;
    OfferedTypes& o = offered.emplace_back(
        OfferedTypes{.pool = pool, .zones = zones, .capacity = capacity, .types = {}});
    for (std::uint32_t t : launchable)
      if (has_offering(pool, t, zones, capacity)) o.types.push_back(t);
    return o.types;
  }

  std::int32_t variant_for(std::uint32_t pod) {
    const PodSpec* spec = in().pods[pod].spec;
    const PodProgress& pr = progress[pod];
    bool use_preferred = pr.use_preferred && spec->preferred_node_requirements.has_value();
    auto key = std::make_tuple(spec, pr.term, use_preferred);
    auto it = variant_of.find(key);
    if (it != variant_of.end()) return it->second;
    Variant v;
    if (pr.term == 0) {
      v.requirements = spec->node_requirements;
    } else {
      v.requirements = spec->alternative_node_requirements[pr.term - 1];
    }
    if (use_preferred) v.requirements.add(*spec->preferred_node_requirements);
    v.has_requirements = !v.requirements.empty();
    // Pods of different specs often ask the same (one Deployment's pods, or the same
    // preference): the catalog is matched once per requirement set among the recent ones.
    auto recent = std::ssize(distinct_variants) > kRecentRequirementSets
                      ? distinct_variants.end() - kRecentRequirementSets
                      : distinct_variants.begin();
    auto same = std::find_if(recent, distinct_variants.end(), [&](std::int32_t d) {
      return variants[d].requirements == v.requirements;
    });
    if (same != distinct_variants.end()) {
      const Variant& d = variants[*same];
      v.types = d.types;
      v.zone_mask = d.zone_mask;
      v.capacity_mask = d.capacity_mask;
    } else {
      v.types =
          v.has_requirements ? ctx.compatible_types(v.requirements) : TypeSet(types.size(), true);
      v.zone_mask = ctx.zone_mask(v.requirements);
      v.capacity_mask = SchedulingContext::capacity_mask(v.requirements);
      distinct_variants.push_back(static_cast<std::int32_t>(variants.size()));
    }
    v.strict_zone_mask =
        use_preferred
            ? ctx.zone_mask(pr.term == 0 ? spec->node_requirements
                                         : spec->alternative_node_requirements[pr.term - 1])
            : v.zone_mask;
    variants.push_back(std::move(v));
    auto index = static_cast<std::int32_t>(variants.size() - 1);
    variant_of.emplace(key, index);
    return index;
  }

  // Karpenter's Relax(): drop one soft constraint; false when nothing is left to drop.
  bool relax(std::uint32_t pod) {
    const PodSpec& spec = *in().pods[pod].spec;
    PodProgress& pr = progress[pod];
    if (pr.term < spec.alternative_node_requirements.size()) {
      ++pr.term;
      return true;
    }
    if (pr.affinity.affinity_dropped < affinity.preferred_affinity_count(pod)) {
      ++pr.affinity.affinity_dropped;
      return true;
    }
    if (pr.affinity.anti_dropped < affinity.preferred_anti_count(pod)) {
      ++pr.affinity.anti_dropped;
      return true;
    }
    if (pr.use_preferred && spec.preferred_node_requirements) {
      pr.use_preferred = false;
      return true;
    }
    if (pr.honor_schedule_anyway && spreads.has_soft(pod)) {
      pr.honor_schedule_anyway = false;
      return true;
    }
    // Upstream always adds the toleration; it changes nothing where no node or pool has such
    // a taint, so the pod is spared a useless round there.
    auto prefer_taint = [](std::span<const Taint> taints) {
      return std::any_of(taints.begin(), taints.end(),
                         [](const Taint& t) { return t.effect == TaintEffect::PreferNoSchedule; });
    };
    if (!pr.tolerate_prefer_no_schedule &&
        (std::any_of(ctx.pools().begin(), ctx.pools().end(),
                     [](const PoolTemplate& tpl) { return tpl.has_prefer_no_schedule; }) ||
         std::any_of(in().nodes.begin(), in().nodes.end(),
                     [&](const ExistingNode& n) { return prefer_taint(n.taints); }))) {
      pr.tolerate_prefer_no_schedule = true;
      return true;
    }
    return false;
  }

  // ---- placement ----

  PreferNoSchedule prefer_no_schedule(std::uint32_t pod) const {
    return progress[pod].tolerate_prefer_no_schedule ? PreferNoSchedule::Ignore
                                                     : PreferNoSchedule::Honour;
  }

  bool fits_existing(std::uint32_t pod, std::uint32_t node, std::int32_t vi) {
    const ExistingNode& n = in().nodes[node];
    const PodSpec& spec = *in().pods[pod].spec;
    if (!spec.requests.fits_in(node_available[node])) return false;
    if (in().removed(node) || (n.under_consolidate_after && in().pods[pod].from_candidate))
      return false;
    if (blocking_taint(spec, n.taints, prefer_no_schedule(pod))) return false;
    Variant& v = variants[vi];
    if (v.has_requirements) {
      if (v.node_compatible.empty()) v.node_compatible.assign(in().nodes.size(), -1);
      std::int8_t& known = v.node_compatible[node];
      if (known < 0)
        known = (n.labels == nullptr || term_allows(v.requirements, *n.labels)) ? 1 : 0;
      if (known == 0) return false;
    }
    return spreads.allows_node(pod, node, n.zone, progress[pod].honor_schedule_anyway,
                               v.zone_mask & zone_universe) &&
           affinity.allows_node(pod, node, v.strict_zone_mask, progress[pod].affinity);
  }

  // Narrows `candidates` to those that can take `need` (+ DaemonSet overhead) within the masks.
  // Writes survivors to `scratch`; returns the new headroom, the component-wise max of their
  // room. `previous`: the candidates' headroom when known, kept unless a type that reached it
  // is dropped (claims lose their smallest types as they fill, which never reach it).
  Resources narrow(std::uint32_t pool, const std::vector<std::uint32_t>& candidates,
                   const Resources& need, const Variant* v, std::uint64_t zones,
                   std::uint8_t capacity, bool check_offerings,
                   const Resources* previous = nullptr) {
    scratch.clear();
    const PoolTemplate& tpl = ctx.pools()[pool];
    // Candidates have no negative room (launchable_types), so only the resources `need` asks
    // for can rule a type out: usually cpu, memory and pods of the sixteen.
    std::array<ResourceIndex, resource::kMaxResources> asked{};
    std::size_t asked_count = 0;
    for (ResourceIndex r = 0; r < resource::kMaxResources; ++r)
      if (need[r] != 0) asked[asked_count++] = r;
    bool recompute = previous == nullptr;
    for (std::uint32_t t : candidates) {
      const Resources& room = tpl.room[t];
      bool keep = v == nullptr || v->types.test(t);
      for (std::size_t i = 0; i < asked_count && keep; ++i) keep = need[asked[i]] <= room[asked[i]];
      if (keep && check_offerings) keep = has_offering(pool, t, zones, capacity);
      if (keep) {
        scratch.push_back(t);
      } else if (!recompute) {
        // Zero everywhere stays zero: the survivors' room is never negative.
        for (ResourceIndex r = 0; r < resource::kMaxResources; ++r)
          recompute = recompute || (room[r] == (*previous)[r] && room[r] != 0);
      }
    }
    if (!recompute) return *previous;
    Resources headroom;
    for (std::uint32_t t : scratch) headroom = Resources::max(headroom, tpl.room[t]);
    return headroom;
  }

  // Whether the types in `scratch` still offer `minValues` distinct values for each key.
  bool min_values_hold(const Requirements& r) const {
    return options.min_values_best_effort || fleetsim::min_values_hold(r, scratch, ctx.catalog());
  }

  // Zone candidates for a claim, most preferred first: one zone when a zonal spread applies.
  void zone_choices(std::uint32_t pod, std::uint64_t zones, std::vector<std::uint64_t>& out) {
    out.clear();
    if (!spreads.has_zonal(pod, progress[pod].honor_schedule_anyway)) {
      out.push_back(zones);
      return;
    }
    spreads.zones_by_preference(pod, zones, progress[pod].honor_schedule_anyway, zone_universe,
                                out);
  }

  bool try_claim(std::uint32_t pod, std::uint32_t ci, std::int32_t vi) {
    Claim& c = claims[ci];
    const PodSpec& spec = *in().pods[pod].spec;
    Resources need = c.requests + spec.requests;
    if (!need.fits_in(c.headroom)) return false;
    const Variant& v = variants[vi];
    // Pod (anti-)affinity first: it is cheap, and for pods that must be apart it refuses most
    // claims.
    const std::uint64_t allowed = affinity.claim_zones(pod, ci, c.zone_mask & v.zone_mask,
                                                       v.strict_zone_mask, progress[pod].affinity);
    if (allowed == 0) return false;
    const PoolTemplate& tpl = ctx.pools()[c.pool];
    if (blocking_taint(spec, tpl.pool->taints, prefer_no_schedule(pod))) return false;
    bool merged =
        !v.has_requirements || std::find(c.merged_variants.begin(), c.merged_variants.end(), vi) !=
                                   c.merged_variants.end();
    if (!merged && c.requirements.incompatibility(v.requirements)) return false;
    if (!spreads.allows_claim(pod, ci, progress[pod].honor_schedule_anyway)) return false;
    std::uint8_t capacity = c.capacity_mask & v.capacity_mask;
    if (capacity == 0) return false;
    zone_choices(pod, allowed, zone_scratch);
    for (std::uint64_t zones : zone_scratch) {
      if (zones == 0) continue;
      bool check_offerings = zones != c.zone_mask || capacity != c.capacity_mask;
      Resources headroom = narrow(c.pool, c.types, need, merged ? nullptr : &v, zones, capacity,
                                  check_offerings, &c.headroom);
      if (scratch.empty()) continue;
      Requirements combined;
      if (!merged) {
        combined = c.requirements;
        combined.add(v.requirements);
        if (!min_values_hold(combined)) continue;
      } else if (c.requirements.has_min_values() && !min_values_hold(c.requirements)) {
        continue;
      }
      if (reserving && !reserve_for_claim(ci, zones, capacity)) continue;
      if (!merged) {
        c.requirements = std::move(combined);
        c.merged_variants.push_back(vi);
      }
      if (zones != c.zone_mask) narrow_zone_requirement(c.requirements, zones);
      c.zone_mask = zones;
      c.capacity_mask = capacity;
      c.types.swap(scratch);
      c.headroom = headroom;
      c.requests = need;
      c.pods.push_back(pod);
      spreads.record_claim(pod, ci, zones);
      affinity.record_claim(pod, ci, zones);
      return true;
    }
    return false;
  }

  void narrow_zone_requirement(Requirements& r, std::uint64_t zones) const {
    std::vector<std::string> names;
    for (std::size_t z = 0; z < ctx.zones().size(); ++z)
      if (zones >> z & 1ULL) names.push_back(ctx.zones()[z]);
    r.add(std::string(label::kZone), Requirement::make(Operator::In, std::move(names)));
  }

  NewClaim try_new_claim(std::uint32_t pod, std::uint32_t pool, std::int32_t vi) {
    const PoolTemplate& tpl = ctx.pools()[pool];
    const PodSpec& spec = *in().pods[pod].spec;
    if (pool_nodes_remaining[pool] <= 0) return NewClaim::Refused;
    if (blocking_taint(spec, tpl.pool->taints, prefer_no_schedule(pod))) return NewClaim::Refused;
    const Variant& v = variants[vi];
    if (v.has_requirements && tpl.requirements.incompatibility(v.requirements))
      return NewClaim::Refused;
    std::uint8_t capacity = tpl.capacity_mask & v.capacity_mask;
    if (capacity == 0) return NewClaim::Refused;
    const auto& candidates = launchable_types(pool);
    if (candidates.empty()) return NewClaim::Refused;
    const std::uint64_t allowed =
        affinity.claim_zones(pod, PodAffinityGroups::kNewClaim, tpl.zone_mask & v.zone_mask,
                             v.strict_zone_mask, progress[pod].affinity);
    if (allowed == 0) return NewClaim::Refused;
    bool reserved_error = false;
    Requirements combined = tpl.requirements;
    if (v.has_requirements) combined.add(v.requirements);
    zone_choices(pod, allowed, zone_scratch);
    for (std::uint64_t zones : zone_scratch) {
      if (zones == 0) continue;
      Resources headroom = narrow(pool, offered_types(pool, zones, capacity), spec.requests,
                                  v.has_requirements ? &v : nullptr, zones, capacity, false);
      if (scratch.empty() || !min_values_hold(combined)) continue;
      const auto next = static_cast<std::uint32_t>(claims.size());
      if (reserving && !reservable_for_new_claim(next, pool, zones, capacity)) {
        reserved_error = true;
        continue;
      }
      Claim c;
      c.pool = pool;
      c.serial = static_cast<std::uint32_t>(claims.size());
      c.requirements = std::move(combined);
      if (zones != tpl.zone_mask) narrow_zone_requirement(c.requirements, zones);
      if (v.has_requirements) c.merged_variants.push_back(vi);
      c.zone_mask = zones;
      c.capacity_mask = capacity;
      c.types = scratch;
      c.headroom = headroom;
      c.requests = spec.requests;
      c.pods.push_back(pod);
      charge_limits(pool, c.types);
      claims.push_back(std::move(c));
      auto ci = static_cast<std::uint32_t>(claims.size() - 1);
      // One pod and the newest: after every claim with one pod, before fuller ones.
      auto fuller =
          std::partition_point(claim_order.begin(), claim_order.end(),
                               [&](std::uint32_t c) { return claims[c].pods.size() <= 1; });
      claim_order.insert(fuller, ci);
      spreads.add_claim();
      spreads.record_claim(pod, ci, zones);
      affinity.add_claim();
      affinity.record_claim(pod, ci, zones);
      if (reserving) commit_reservations(ci);
      return NewClaim::Placed;
    }
    return reserved_error ? NewClaim::ReservedOfferingError : NewClaim::Refused;
  }

  // Limits are charged pessimistically: the largest capacity the claim might launch.
  void charge_limits(std::uint32_t pool, const std::vector<std::uint32_t>& claim_types) {
    if (pool_nodes_remaining[pool] != INT64_MAX) --pool_nodes_remaining[pool];
    const NodePoolLimits& limits = ctx.pools()[pool].pool->limits;
    if (limits.resources) {
      Resources worst;
      for (std::uint32_t t : claim_types)
        worst = Resources::max(worst, ctx.pools()[pool].capacity[t]);
      pool_remaining[pool] -= worst;
    }
    if (limits.any()) pool_types_stale[pool] = true;
  }

  // Keeps claim_order sorted by pod count after claim `ci` gained a pod (Karpenter re-sorts
  // its new NodeClaims by pod count before every pod; this moves one entry instead).
  void resort_claim(std::size_t position) {
    auto it = claim_order.begin() + static_cast<std::ptrdiff_t>(position);
    const Claim& self = claims[*it];
    // The order after `it` is by (pod count, serial): find the first claim that stays behind.
    auto behind = std::partition_point(std::next(it), claim_order.end(), [&](std::uint32_t c) {
      const Claim& other = claims[c];
      return other.pods.size() < self.pods.size() ||
             (other.pods.size() == self.pods.size() && other.serial < self.serial);
    });
    std::rotate(it, std::next(it), behind);
  }

  void place_on_node(std::uint32_t pod, std::uint32_t node) {
    node_available[node] -= in().pods[pod].spec->requests;
    result.placements.push_back(Placement{.pod = pod, .node = node});
    spreads.record_node(pod, node, in().nodes[node].zone);
    affinity.record_node(pod, node);
  }

  bool add(std::uint32_t pod) {
    if (reserving) reserved_failure[pod] = -1;
    std::int32_t vi = variant_for(pod);
    const PodSpec& spec = *in().pods[pod].spec;
    // Nodes only fill up, so a node that refused a pod refuses the next of its spec; not so with
    // spreads and pod affinity, where other pods' places change the answer.
    const bool memo = spec.topology_spread.empty() && !affinity.constrains(pod);
    if (!memo) {
      const std::uint32_t g = affinity.hostname_exclusion(pod, progress[pod].affinity);
      if (g != PodAffinityGroups::kNoGroup) return add_apart(pod, vi, g) || add_to_claim(pod, vi);
    }
    std::uint32_t& scan_from =
        variants[vi].scan_from[(progress[pod].tolerate_prefer_no_schedule ? 2 : 0) +
                               (in().pods[pod].from_candidate ? 1 : 0)];
    const auto node_count = static_cast<std::uint32_t>(node_order.size());
    for (std::uint32_t k = memo ? scan_from : 0; k < node_count; ++k) {
      const std::uint32_t node = node_order[k];
      if (fits_existing(pod, node, vi)) {
        place_on_node(pod, node);
        if (memo) scan_from = k;
        return true;
      }
    }
    if (memo) scan_from = node_count;
    return add_to_claim(pod, vi);
  }

  // A pod that hostname group `g` keeps apart tries, in node order, only the nodes that hold
  // none of the group: a list made once per solve and shortened as nodes take one, instead of a
  // walk over every node per pod (3,000 pods apart took minutes over thousands of solves).
  bool add_apart(std::uint32_t pod, std::int32_t vi, std::uint32_t g) {
    if (g >= apart_free.size()) apart_free.resize(g + 1, {kUnlisted});
    std::vector<std::uint32_t>& free = apart_free[g];
    if (!free.empty() && free.front() == kUnlisted) {
      free.clear();
      for (std::uint32_t k = 0; k < node_order.size(); ++k)
        if (!affinity.counts_on_node(g, node_order[k])) free.push_back(k);
    }
    std::size_t kept = 0, next = 0;
    bool placed = false;
    for (; next < free.size() && !placed; ++next) {
      const std::uint32_t k = free[next];
      if (affinity.counts_on_node(g, node_order[k])) continue;  // counts only grow in a solve
      free[kept++] = k;
      if (fits_existing(pod, node_order[k], vi)) {
        place_on_node(pod, node_order[k]);
        placed = true;
      }
    }
    free.erase(free.begin() + static_cast<std::ptrdiff_t>(kept),
               free.begin() + static_cast<std::ptrdiff_t>(next));
    return placed;
  }

  bool add_to_claim(std::uint32_t pod, std::int32_t vi) {
    if (try_claims(pod, vi)) return true;
    for (std::uint32_t pool : ctx.pool_order()) {
      const NewClaim outcome = try_new_claim(pod, pool, vi);
      if (outcome == NewClaim::Placed) return true;
      // Upstream does not fall back to a lower-weight NodePool past a reservation it could
      // have used (scheduler.go addToNewNodeClaim).
      if (outcome == NewClaim::ReservedOfferingError) {
        reserved_failure[pod] = static_cast<std::int32_t>(pool);
        return false;
      }
    }
    return false;
  }

  // The pod's last attempt failed on a reservation taken by this solve's other claims: it is
  // not relaxed, and waits for a later solve (or a release within this one).
  bool reserved_offering_failure(std::uint32_t pod) const {
    return reserving && reserved_failure[pod] >= 0;
  }

  // The claims of this solve in claim_order (emptiest first), first fit.
  bool try_claims(std::uint32_t pod, std::int32_t vi) {
    const std::uint32_t g = affinity.hostname_exclusion(pod, progress[pod].affinity);
    // Claims outside these zones refuse the pod; pods with zone affinity skip them cheaply.
    const std::uint64_t zones = affinity.zone_filter(
        pod, variants[vi].zone_mask, variants[vi].strict_zone_mask, progress[pod].affinity);
    // Pods that must be apart (the benchmark's hostname anti-affinity) would walk every claim:
    // when few are free of their group, try only those, in the same order.
    if (g != PodAffinityGroups::kNoGroup &&
        affinity.free_claim_count(g) * kFreeClaimsShortcut < claim_order.size()) {
      claim_scratch = affinity.free_claims(g);
      auto key = [&](std::uint32_t c) {
        return std::pair(claims[c].pods.size(), claims[c].serial);
      };
      std::sort(claim_scratch.begin(), claim_scratch.end(),
                [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
      for (std::uint32_t ci : claim_scratch) {
        if ((claims[ci].zone_mask & zones) == 0) continue;
        auto at = std::lower_bound(claim_order.begin(), claim_order.end(), key(ci),
                                   [&](std::uint32_t c, const auto& k) { return key(c) < k; });
        if (try_claim(pod, ci, vi)) {
          resort_claim(static_cast<std::size_t>(at - claim_order.begin()));
          return true;
        }
      }
      return false;
    }
    for (std::size_t k = 0; k < claim_order.size(); ++k) {
      if ((claims[claim_order[k]].zone_mask & zones) == 0) continue;
      if (try_claim(pod, claim_order[k], vi)) {
        resort_claim(k);
        return true;
      }
    }
    return false;
  }

  // ---- results ----

  // Why a pod that found no place failed, pool by pool (only computed for failed pods).
  std::string explain(std::uint32_t pod) {
    const PodSpec& spec = *in().pods[pod].spec;
    const Variant& v = variants[variant_for(pod)];
    if (ctx.pools().empty()) return "no NodePool";
    if (reserved_offering_failure(pod))
      return fmt::format("nodepool {}: {}",
                         ctx.pools()[static_cast<std::size_t>(reserved_failure[pod])].pool->name,
                         kReservedOfferingError);
    std::vector<std::string> parts;
    for (std::uint32_t p : ctx.pool_order()) {
      const PoolTemplate& tpl = ctx.pools()[p];
      std::string why;
      // Karpenter's order (nodeclaim.go CanAdd): taints, then requirements against the pool and
      // its instance types, and only then resources, on the types the requirements leave.
      if (const Taint* t = blocking_taint(spec, tpl.pool->taints, PreferNoSchedule::Ignore)) {
        why = fmt::format("did not tolerate {}={}:{}", t->key, t->value, to_string(t->effect));
      } else if (auto objection = requirements_objection(ctx, p, spec, v.requirements, &v.types)) {
        why = *objection;
      } else if (pool_nodes_remaining[p] <= 0) {
        why = "nodes limit reached";
      } else {
        bool fits_any = false, fits_limits = false, offered = false;
        tpl.types.for_each([&](std::size_t t) {
          if (!v.types.test(t) ||
              !(spec.requests + tpl.daemon_overhead[t]).fits_in(tpl.allocatable[t]))
            return;
          fits_any = true;
          if (!within_limits(p, tpl.capacity[t])) return;
          fits_limits = true;
          offered |= has_offering(p, static_cast<std::uint32_t>(t), tpl.zone_mask & v.zone_mask,
                                  tpl.capacity_mask & v.capacity_mask);
        });
        if (!fits_any) {
          why = fmt::format(
              "no instance type has room for cpu={} memory={} gpus={} plus daemonset overhead",
              format_millicores(spec.requests.cpu_millis()),
              format_bytes(spec.requests.memory_bytes()), spec.requests.gpus());
        } else if (!fits_limits) {
          why = "limits exhausted";
        } else if (!offered) {
          why = "no available offering (insufficient capacity)";
        } else {
          why = affinity.constrains(pod)
                    ? "pod affinity, topology spread or batch packing left no room"
                    : "topology spread or batch packing left no room";
        }
      }
      parts.push_back(fmt::format("{} {}: {}", tpl.pool->node_group ? "node group" : "nodepool",
                                  tpl.pool->name, why));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
  }

  // The cheapest usable offering of `t` within the masks, as the pool's NodeOverlays price it,
  // or -1.
  double cheapest_offering(std::uint32_t pool, std::uint32_t t, std::uint64_t zones,
                           std::uint8_t capacity) const {
    double best = -1;
    for (const OfferingRef& o : ctx.offerings(t)) {
      if (!(zones >> o.zone & 1ULL) || !(o.capacity & capacity) || !offering_usable(pool, o))
        continue;
      const double price = ctx.pool_price(
          pool, o.global, in().offering_prices.empty() ? o.price : in().offering_prices[o.global]);
      if (best < 0 || price < best) best = price;
    }
    return best;
  }

  // The pool's types by price within the masks (PriceOrder), computed once per solve.
  const std::vector<std::uint32_t>& price_order(std::uint32_t pool, std::uint64_t zones,
                                                std::uint8_t capacity) {
    for (const PriceOrder& o : price_orders)
      if (o.pool == pool && o.zones == zones && o.capacity == capacity) return o.types;
    std::vector<std::pair<double, std::uint32_t>> priced;
    ctx.pools()[pool].types.for_each([&](std::size_t t) {
      auto type = static_cast<std::uint32_t>(t);
      priced.emplace_back(cheapest_offering(pool, type, zones, capacity), type);
    });
    std::sort(priced.begin(), priced.end(), [&](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first < b.first;
      return types[a.second].name < types[b.second].name;
    });
    PriceOrder& o = price_orders.emplace_back(
        PriceOrder{.pool = pool, .zones = zones, .capacity = capacity, .types = {}});
    o.types.reserve(priced.size());
    for (const auto& [price, t] : priced) o.types.push_back(t);
    return o.types;
  }

  // FinalizeScheduling: a claim holding reservations launches into one of them only, so one batch
  // never launches more instances than a reservation has left.
  void hold_to_reservations(Claim& c, std::span<const std::uint32_t> held) {
    const std::uint8_t reserved = capacity_bit(CapacityType::Reserved);
    std::erase_if(c.types, [&](std::uint32_t t) {
      for (const OfferingRef& o : ctx.offerings(t))
        if (o.capacity == reserved &&
            std::find(held.begin(), held.end(),
                      static_cast<std::uint32_t>(ctx.catalog().offering(o.global).reservation)) !=
                held.end())
          return false;
      return true;
    });
    c.capacity_mask = reserved;
    c.requirements.add(
        std::string(label::kCapacityType),
        Requirement::make(Operator::In, {std::string(to_string(CapacityType::Reserved))}));
    std::vector<std::string> ids;
    for (std::uint32_t r : held) ids.push_back(ctx.catalog().reservations()[r].id);
    std::sort(ids.begin(), ids.end());
    c.requirements.add(std::string(label::kCapacityReservationId),
                       Requirement::make(Operator::In, std::move(ids)));
  }

  NewNodeClaim finish_claim(Claim& c, std::uint32_t ci) {
    if (reserving && !reservations.held(ci).empty()) hold_to_reservations(c, reservations.held(ci));
    NewNodeClaim out;
    out.pool = c.pool;
    out.pods = std::move(c.pods);
    // Karpenter orders a claim's options by price and keeps MaxInstanceTypes of them.
    type_marks.resize(types.size());
    for (std::uint32_t t : c.types) type_marks[t] = 1;
    const std::size_t keep = std::min(c.types.size(), options.max_instance_types);
    out.types.reserve(keep);
    for (std::uint32_t t : price_order(c.pool, c.zone_mask, c.capacity_mask)) {
      if (type_marks[t] == 0) continue;
      if (out.types.size() < keep) out.types.push_back(t);
      type_marks[t] = 0;
    }
    Resources min_overhead;
    const PoolTemplate& tpl = ctx.pools()[c.pool];
    if (tpl.uniform_overhead) {
      if (!out.types.empty()) min_overhead = tpl.daemon_overhead[out.types.front()];
    } else {
      bool first = true;
      for (std::uint32_t t : out.types) {
        const Resources& o = tpl.daemon_overhead[t];
        min_overhead = first ? o : Resources::min(min_overhead, o);
        first = false;
      }
    }
    out.requirements = std::move(c.requirements);
    out.requests = c.requests + min_overhead;
    return out;
  }
};

std::vector<std::uint32_t> solver_node_order(std::span<const ExistingNode> nodes) {
  std::vector<std::uint32_t> order(nodes.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const ExistingNode& na = nodes[a];
    const ExistingNode& nb = nodes[b];
    if (na.initialized != nb.initialized) return na.initialized;
    return na.name < nb.name;
  });
  return order;
}

std::vector<std::int8_t> solver_node_zones(const SchedulingContext& context,
                                           std::span<const ExistingNode> nodes) {
  std::vector<std::int8_t> zones(nodes.size(), -1);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (auto z = context.zone_index(nodes[i].zone)) zones[i] = static_cast<std::int8_t>(*z);
  return zones;
}

Scheduler::Scheduler(const SchedulingContext& context, SchedulerOptions options)
    : context_(&context), options_(options), state_(std::make_unique<State>(*context_, options_)) {}

Scheduler::~Scheduler() = default;

SolveResult Scheduler::solve(const SolveInput& input) {
  State& s = *state_;
  s.reset(input);
  const auto pod_count = static_cast<std::uint32_t>(input.pods.size());
  s.order_nodes();
  s.init_pools();
  s.spreads.build(*context_, input, s.zone_universe);
  s.affinity.build(*context_, input);

  // Karpenter's queue: CPU then memory descending, then creation time, then UID.
  std::vector<std::uint32_t>& queue = s.queue;
  queue.resize(pod_count);
  for (std::uint32_t i = 0; i < pod_count; ++i) queue[i] = i;
  std::sort(queue.begin(), queue.end(), [&](std::uint32_t a, std::uint32_t b) {
    const PendingPod& pa = input.pods[a];
    const PendingPod& pb = input.pods[b];
    if (pa.spec->requests.cpu_millis() != pb.spec->requests.cpu_millis())
      return pa.spec->requests.cpu_millis() > pb.spec->requests.cpu_millis();
    if (pa.spec->requests.memory_bytes() != pb.spec->requests.memory_bytes())
      return pa.spec->requests.memory_bytes() > pb.spec->requests.memory_bytes();
    if (pa.created_us != pb.created_us) return pa.created_us < pb.created_us;
    return pa.uid < pb.uid;
  });

  // A ring buffer over the queue; a pod popped with the queue at the same length as when it
  // was last pushed back means a full cycle without progress: stop.
  // A relaxation is progress and forgets every pod's mark: marks carry the relaxation count
  // they were made at, so forgetting costs nothing.
  s.last_len.assign(pod_count, -1);
  s.last_epoch.assign(pod_count, 0);
  std::uint32_t epoch = 0;
  std::size_t head = 0;
  while (head < queue.size()) {
    throw_if_stop_requested();  // a solve of thousands of pods apart takes a while
    std::uint32_t pod = queue[head];
    auto length = static_cast<std::int64_t>(queue.size() - head);
    if (s.last_epoch[pod] == epoch && s.last_len[pod] == length) break;
    ++head;
    if (s.add(pod)) continue;
    // A reserved offering error is not relaxed (scheduler.go trySchedule).
    bool relaxed = !s.reserved_offering_failure(pod) && s.relax(pod);
    queue.push_back(pod);
    if (relaxed) {
      ++epoch;
    } else {
      s.last_len[pod] = static_cast<std::int64_t>(queue.size() - head);
      s.last_epoch[pod] = epoch;
    }
  }

  SolveResult& result = s.result;
  for (std::uint32_t ci = 0; ci < s.claims.size(); ++ci)
    result.claims.push_back(s.finish_claim(s.claims[ci], ci));
  for (std::size_t k = head; k < queue.size(); ++k) {
    std::uint32_t pod = queue[k];
    result.failures.push_back(PodFailure{.pod = pod, .reason = s.explain(pod)});
  }
  std::sort(result.failures.begin(), result.failures.end(),
            [](const PodFailure& a, const PodFailure& b) { return a.pod < b.pod; });
  return std::move(result);
}

}  // namespace fleetsim
