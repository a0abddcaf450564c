#include "spread_groups.hpp"

#include <algorithm>
#include <bit>
#include <climits>

#include "fleetsim/k8s/pod_fits.hpp"

namespace fleetsim {

namespace {

// Whether two pods' constraints count the same nodes (Karpenter's TopologyNodeFilter).
bool same_node_filter(const TopologySpread& ts, const PodSpec& a, const PodSpec& b) {
  if (&a == &b) return true;
  if (ts.node_affinity_policy == InclusionPolicy::Honor &&
      (a.node_requirements != b.node_requirements ||
       a.alternative_node_requirements != b.alternative_node_requirements))
    return false;
  return ts.node_taints_policy == InclusionPolicy::Ignore || a.tolerations == b.tolerations;
}

// TopologyNodeFilter.Matches: whether a node's pods count for the constraint.
bool counts_on(const TopologySpread& ts, const PodSpec& pod, const ExistingNode& n) {
  if (ts.node_affinity_policy == InclusionPolicy::Honor && n.labels != nullptr &&
      !node_selection_allows(pod, *n.labels))
    return false;
  return ts.node_taints_policy == InclusionPolicy::Ignore ||
         blocking_taint(pod, n.taints, PreferNoSchedule::Ignore) == nullptr;
}

}  // namespace

void SpreadGroups::build(const SchedulingContext& ctx, const SolveInput& in, std::uint64_t) {
  ctx_ = &ctx;
  in_ = &in;
  groups_.clear();
  constrained_by_.clear();
  counted_in_.clear();
  bool any = std::any_of(in.pods.begin(), in.pods.end(),
                         [](const PendingPod& p) { return !p.spec->topology_spread.empty(); });
  if (!any) return;

  constrained_by_.resize(in.pods.size());
  for (std::uint32_t p = 0; p < in.pods.size(); ++p) {
    for (const TopologySpread& ts : in.pods[p].spec->topology_spread) {
      bool zonal = ts.topology_key == label::kZone;
      if (!zonal && ts.topology_key != label::kHostname) continue;  // other keys are not modelled
      bool hard = ts.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule;
      const PodSpec& spec = *in.pods[p].spec;
      auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
        const TopologySpread& c = *g.constraint;
        return g.zonal == zonal && g.namespace_name == in.pods[p].namespace_name &&
               c.selector == ts.selector && c.max_skew == ts.max_skew && g.hard == hard &&
               c.min_domains == ts.min_domains &&
               c.node_affinity_policy == ts.node_affinity_policy &&
               c.node_taints_policy == ts.node_taints_policy &&
               same_node_filter(ts, *g.filter, spec);
      });
      if (it == groups_.end()) {
        Group g;
        g.zonal = zonal;
        g.namespace_name = in.pods[p].namespace_name;
        g.constraint = &ts;
        g.filter = &spec;
        g.max_skew = ts.max_skew;
        g.hard = hard;
        g.zone_counts.assign(ctx.zones().size(), 0);
        g.node_counts.assign(in.nodes.size(), 0);
        groups_.push_back(std::move(g));
        it = std::prev(groups_.end());
      }
      constrained_by_[p].push_back(static_cast<std::uint32_t>(it - groups_.begin()));
    }
  }
  counted_in_.resize(in.pods.size());
  for (std::uint32_t p = 0; p < in.pods.size(); ++p)
    for (std::uint32_t g = 0; g < groups_.size(); ++g)
      if (selects(groups_[g], p)) counted_in_[p].push_back(g);
  for (const BoundPod& b : in.bound_pods) {
    if (in.removed(b.node)) continue;
    for (Group& g : groups_) {
      if (b.namespace_name != g.namespace_name || !g.constraint->selects(b.labels) ||
          !counts_on(*g.constraint, *g.filter, in.nodes[b.node]))
        continue;
      ++g.node_counts[b.node];
      if (auto z = ctx.zone_index(in.nodes[b.node].zone)) ++g.zone_counts[*z];
    }
  }
}

bool SpreadGroups::selects(const Group& g, std::uint32_t pod) const {
  const PendingPod& p = in_->pods[pod];
  return p.namespace_name == g.namespace_name && g.constraint->selects(p.labels);
}

bool SpreadGroups::has_soft(std::uint32_t pod) const {
  if (groups_.empty()) return false;
  for (std::uint32_t g : constrained_by_[pod])
    if (!groups_[g].hard) return true;
  return false;
}

bool SpreadGroups::has_zonal(std::uint32_t pod, bool honor_soft) const {
  if (groups_.empty()) return false;
  for (std::uint32_t g : constrained_by_[pod])
    if (groups_[g].zonal && applies(groups_[g], honor_soft)) return true;
  return false;
}

std::uint64_t SpreadGroups::allowed_zones(std::uint32_t pod, bool honor_soft,
                                          std::uint64_t pod_zones) const {
  std::uint64_t allowed = ~0ULL;
  for (std::uint32_t gi : constrained_by_[pod]) {
    const Group& g = groups_[gi];
    if (!g.zonal || !applies(g, honor_soft)) continue;
    // The minimum is taken over the zones the pod could land in at all (domainMinCount), and is
    // 0 while they are fewer than minDomains.
    int min = INT_MAX, domains = 0;
    for (std::size_t z = 0; z < g.zone_counts.size(); ++z) {
      if ((pod_zones >> z & 1ULL) == 0) continue;
      min = std::min(min, g.zone_counts[z]);
      ++domains;
    }
    if (min == INT_MAX) return 0;
    if (domains < g.constraint->min_domains) min = 0;
    int self = selects(g, pod) ? 1 : 0;
    std::uint64_t mask = 0;
    for (std::size_t z = 0; z < g.zone_counts.size(); ++z)
      if ((pod_zones >> z & 1ULL) && g.zone_counts[z] + self - min <= g.max_skew) mask |= 1ULL << z;
    allowed &= mask;
  }
  return allowed;
}

bool SpreadGroups::allows_node(std::uint32_t pod, std::uint32_t node, std::string_view zone,
                               bool honor_soft, std::uint64_t pod_zones) const {
  if (groups_.empty() || constrained_by_[pod].empty()) return true;
  for (std::uint32_t gi : constrained_by_[pod]) {
    const Group& g = groups_[gi];
    if (!applies(g, honor_soft)) continue;
    int self = selects(g, pod) ? 1 : 0;
    // A new node is always a hostname domain with no pods, so the minimum is 0.
    if (!g.zonal && g.node_counts[node] + self > g.max_skew) return false;
  }
  if (has_zonal(pod, honor_soft)) {
    auto z = ctx_->zone_index(zone);
    if (!z || !(allowed_zones(pod, honor_soft, pod_zones) >> *z & 1ULL)) return false;
  }
  return true;
}

bool SpreadGroups::allows_claim(std::uint32_t pod, std::uint32_t claim, bool honor_soft) const {
  if (groups_.empty()) return true;
  for (std::uint32_t gi : constrained_by_[pod]) {
    const Group& g = groups_[gi];
    if (g.zonal || !applies(g, honor_soft)) continue;
    if (g.claim_counts[claim] + (selects(g, pod) ? 1 : 0) > g.max_skew) return false;
  }
  return true;
}

void SpreadGroups::zones_by_preference(std::uint32_t pod, std::uint64_t zones, bool honor_soft,
                                       std::uint64_t pod_zones,
                                       std::vector<std::uint64_t>& out) const {
  std::uint64_t allowed = zones & allowed_zones(pod, honor_soft, pod_zones);
  std::vector<std::pair<int, std::uint64_t>> ranked;
  for (std::uint64_t bits = allowed; bits; bits &= bits - 1) {
    int z = std::countr_zero(bits);
    int load = 0;
    for (std::uint32_t gi : constrained_by_[pod])
      if (groups_[gi].zonal) load += groups_[gi].zone_counts[static_cast<std::size_t>(z)];
    ranked.emplace_back(load, 1ULL << z);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [load, mask] : ranked) out.push_back(mask);
}

void SpreadGroups::add_claim() {
  for (Group& g : groups_) g.claim_counts.push_back(0);
}

void SpreadGroups::record_node(std::uint32_t pod, std::uint32_t node, std::string_view zone) {
  if (groups_.empty()) return;
  auto z = ctx_->zone_index(zone);
  for (std::uint32_t gi : counted_in_[pod]) {
    ++groups_[gi].node_counts[node];
    if (z) ++groups_[gi].zone_counts[*z];
  }
}

void SpreadGroups::record_claim(std::uint32_t pod, std::uint32_t claim, std::uint64_t zones) {
  if (groups_.empty()) return;
  for (std::uint32_t gi : counted_in_[pod]) {
    ++groups_[gi].claim_counts[claim];
    // Only a claim pinned to one zone tells which zone domain the pod lands in.
    if (std::popcount(zones) == 1)
      ++groups_[gi].zone_counts[static_cast<std::size_t>(std::countr_zero(zones))];
  }
}

}  // namespace fleetsim
