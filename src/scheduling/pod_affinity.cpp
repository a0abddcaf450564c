#include "pod_affinity.hpp"

#include <algorithm>
#include <bit>

#include "fleetsim/k8s/pod_affinity.hpp"

namespace fleetsim {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

bool has_rules(const PodSpec& spec) {
  return !spec.pod_affinity.empty() || !spec.pod_anti_affinity.empty();
}

// Two terms written in the same namespace look at the same pods (Karpenter's TopologyGroup hash:
// key, namespaces, selector).
bool same_scope(const PodAffinityTerm& a, std::string_view a_ns, const PodAffinityTerm& b,
                std::string_view b_ns) {
  return a.topology_key == b.topology_key && a.selector == b.selector &&
         a.namespaces == b.namespaces && a.namespace_selector == b.namespace_selector &&
         a_ns == b_ns;
}

}  // namespace

bool PodAffinityGroups::modelled(const PodAffinityTerm& term) {
  // The decoder warns about other keys; the solver has no domains for them.
  return term.topology_key == label::kZone || term.topology_key == label::kHostname;
}

std::uint32_t PodAffinityGroups::group_for(Kind kind, const PodAffinityTerm& term,
                                           std::string_view owner_ns) {
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    const Group& group = groups_[g];
    if (group.kind == kind && same_scope(*group.term, group.owner_namespace, term, owner_ns))
      return g;
  }
  Group g;
  g.kind = kind;
  g.zonal = term.topology_key == label::kZone;
  g.term = &term;
  g.owner_namespace = owner_ns;
  if (g.zonal) {
    g.zone_counts.assign(ctx_->zones().size(), 0);
  } else {
    g.node_counts.assign(in_->nodes.size(), 0);
  }
  groups_.push_back(std::move(g));
  return static_cast<std::uint32_t>(groups_.size() - 1);
}

bool PodAffinityGroups::selects(const Group& g, std::string_view namespace_name,
                                const Labels* labels) const {
  return term_selects(*g.term, g.owner_namespace, namespace_name, labels);
}

void PodAffinityGroups::owned_terms(std::uint32_t pod) {
  const PendingPod& p = in_->pods[pod];
  if (pod > 0 && in_->pods[pod - 1].spec == p.spec &&
      in_->pods[pod - 1].namespace_name == p.namespace_name) {
    owned_range_[pod] = owned_range_[pod - 1];
    inverse_range_[pod] = inverse_range_[pod - 1];
    preferred_affinity_[pod] = preferred_affinity_[pod - 1];
    preferred_anti_[pod] = preferred_anti_[pod - 1];
    return;
  }
  const PodSpec& spec = *p.spec;
  const std::string_view ns = p.namespace_name;
  auto own = [&](Kind kind, const std::vector<PodAffinityTerm>& terms, bool required) {
    for (std::uint32_t i = 0; i < terms.size(); ++i)
      if (modelled(terms[i]))
        owned_.push_back(
            Owned{.group = group_for(kind, terms[i], ns), .rank = required ? kRequired : i});
  };
  owned_range_[pod].begin = static_cast<std::uint32_t>(owned_.size());
  own(Kind::Affinity, spec.pod_affinity.required, true);
  own(Kind::Affinity, spec.pod_affinity.preferred, false);
  own(Kind::AntiAffinity, spec.pod_anti_affinity.required, true);
  own(Kind::AntiAffinity, spec.pod_anti_affinity.preferred, false);
  owned_range_[pod].end = static_cast<std::uint32_t>(owned_.size());
  // Only required anti-affinity keeps other pods away (Karpenter does not track inverse
  // preferences: the pod being relaxed is not the one that holds them).
  inverse_range_[pod].begin = static_cast<std::uint32_t>(inverse_.size());
  for (const PodAffinityTerm& term : spec.pod_anti_affinity.required)
    if (modelled(term)) inverse_.push_back(group_for(Kind::Inverse, term, ns));
  inverse_range_[pod].end = static_cast<std::uint32_t>(inverse_.size());
  preferred_affinity_[pod] = static_cast<std::uint32_t>(spec.pod_affinity.preferred.size());
  preferred_anti_[pod] = static_cast<std::uint32_t>(spec.pod_anti_affinity.preferred.size());
}

void PodAffinityGroups::selecting_groups(std::uint32_t pod) {
  const PendingPod& p = in_->pods[pod];
  if (pod > 0 && in_->pods[pod - 1].labels == p.labels &&
      in_->pods[pod - 1].namespace_name == p.namespace_name) {
    counted_range_[pod] = counted_range_[pod - 1];
    blocked_range_[pod] = blocked_range_[pod - 1];
    return;
  }
  counted_range_[pod].begin = static_cast<std::uint32_t>(counted_.size());
  for (std::uint32_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].kind != Kind::Inverse && selects(groups_[g], p.namespace_name, p.labels))
      counted_.push_back(g);
  counted_range_[pod].end = static_cast<std::uint32_t>(counted_.size());
  blocked_range_[pod].begin = static_cast<std::uint32_t>(blocked_.size());
  for (std::uint32_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].kind == Kind::Inverse && selects(groups_[g], p.namespace_name, p.labels))
      blocked_.push_back(g);
  blocked_range_[pod].end = static_cast<std::uint32_t>(blocked_.size());
}

void PodAffinityGroups::build(const SchedulingContext& ctx, const SolveInput& in) {
  ctx_ = &ctx;
  in_ = &in;
  groups_.clear();
  owned_.clear();
  counted_.clear();
  blocked_.clear();
  inverse_.clear();
  owned_range_.clear();
  counted_range_.clear();
  blocked_range_.clear();
  inverse_range_.clear();
  preferred_affinity_.clear();
  preferred_anti_.clear();
  auto bound_anti = [&](const BoundPod& b) {
    return b.spec != nullptr && !b.spec->pod_anti_affinity.required.empty() && !in.removed(b.node);
  };
  const bool any = std::any_of(in.pods.begin(), in.pods.end(),
                               [](const PendingPod& p) { return has_rules(*p.spec); }) ||
                   std::any_of(in.bound_pods.begin(), in.bound_pods.end(), bound_anti);
  if (!any) return;

  node_zone_.assign(in.nodes.size(), -1);
  for (std::size_t n = 0; n < in.nodes.size(); ++n)
    if (auto z = ctx.zone_index(in.nodes[n].zone)) node_zone_[n] = *z;
  const std::size_t pods = in.pods.size();
  owned_range_.resize(pods);
  inverse_range_.resize(pods);
  counted_range_.resize(pods);
  blocked_range_.resize(pods);
  preferred_affinity_.resize(pods);
  preferred_anti_.resize(pods);
  for (std::uint32_t p = 0; p < pods; ++p) owned_terms(p);
  // Running pods' required anti-affinity keeps the pods it selects out of their domains
  // (Karpenter's updateInverseAffinities).
  for (const BoundPod& b : in.bound_pods) {
    if (!bound_anti(b)) continue;
    for (const PodAffinityTerm& term : b.spec->pod_anti_affinity.required) {
      if (!modelled(term)) continue;
      const std::uint32_t g = group_for(Kind::Inverse, term, b.namespace_name);
      const int z = node_zone_[b.node];
      record(groups_[g], z < 0 ? 0 : 1ULL << z, b.node, kNone);
    }
  }
  for (std::uint32_t p = 0; p < pods; ++p) selecting_groups(p);
  // Running pods count in the groups that select them (Karpenter's countDomains).
  for (const BoundPod& b : in.bound_pods) {
    if (in.removed(b.node)) continue;
    const int z = node_zone_[b.node];
    for (Group& g : groups_)
      if (g.kind != Kind::Inverse && selects(g, b.namespace_name, b.labels))
        record(g, z < 0 ? 0 : 1ULL << z, b.node, kNone);
  }
}

bool PodAffinityGroups::constrains(std::uint32_t pod) const {
  if (groups_.empty()) return false;
  return !owned_range_[pod].empty() || !blocked_range_[pod].empty();
}

bool PodAffinityGroups::active(const Group& g, const Owned& o, const AffinityRelaxation& r) const {
  if (o.rank == kRequired) return true;
  return o.rank >= (g.kind == Kind::Affinity ? r.affinity_dropped : r.anti_dropped);
}

std::uint32_t PodAffinityGroups::preferred_affinity_count(std::uint32_t pod) const {
  return preferred_affinity_.empty() ? 0 : preferred_affinity_[pod];
}

std::uint32_t PodAffinityGroups::preferred_anti_count(std::uint32_t pod) const {
  return preferred_anti_.empty() ? 0 : preferred_anti_[pod];
}

bool PodAffinityGroups::counted_in(std::uint32_t pod, std::uint32_t group) const {
  const Range r = counted_range_[pod];
  return std::find(counted_.begin() + r.begin, counted_.begin() + r.end, group) !=
         counted_.begin() + r.end;
}

bool PodAffinityGroups::allows_node(std::uint32_t pod, std::uint32_t node, std::uint64_t pod_zones,
                                    const AffinityRelaxation& r) const {
  if (groups_.empty()) return true;
  const int z = node_zone_[node];
  // A node without the key is in no domain: no pod is with it there, and none is against it.
  auto count_at = [&](const Group& g) {
    if (g.zonal) return z < 0 ? -1 : g.zone_counts[static_cast<std::size_t>(z)];
    return g.node_counts[node];
  };
  for (std::uint32_t i = owned_range_[pod].begin; i < owned_range_[pod].end; ++i) {
    const Owned& o = owned_[i];
    const Group& g = groups_[o.group];
    if (!active(g, o, r)) continue;
    const int count = count_at(g);
    if (g.kind == Kind::AntiAffinity) {
      if (count > 0) return false;
      continue;
    }
    if (count > 0) continue;
    if (count < 0) return false;
    // The first pod of a group with affinity to itself goes where it can, as long as no pod it
    // selects runs anywhere it could go (nextDomainAffinity).
    const bool elsewhere = g.zonal ? (g.occupied_zones & pod_zones) != 0 : g.recorded > 0;
    if (elsewhere || !counted_in(pod, o.group)) return false;
  }
  for (std::uint32_t i = blocked_range_[pod].begin; i < blocked_range_[pod].end; ++i)
    if (count_at(groups_[blocked_[i]]) > 0) return false;
  return true;
}

std::uint64_t PodAffinityGroups::claim_zones(std::uint32_t pod, std::uint32_t claim,
                                             std::uint64_t zones, std::uint64_t pod_zones,
                                             const AffinityRelaxation& r) const {
  if (groups_.empty()) return zones;
  auto host_count = [&](const Group& g) { return claim == kNewClaim ? 0 : g.claim_counts[claim]; };
  for (std::uint32_t i = owned_range_[pod].begin; i < owned_range_[pod].end && zones != 0; ++i) {
    const Owned& o = owned_[i];
    const Group& g = groups_[o.group];
    if (!active(g, o, r)) continue;
    if (g.kind == Kind::AntiAffinity) {
      if (g.zonal) {
        zones &= ~g.occupied_zones;
      } else if (host_count(g) > 0) {
        return 0;
      }
      continue;
    }
    const bool self = counted_in(pod, o.group);
    if (g.zonal) {
      if (const std::uint64_t with = zones & g.occupied_zones & pod_zones; with != 0) {
        zones = with;
      } else if (self && (g.occupied_zones & pod_zones) == 0) {
        // Bootstrapping a self-affine group: Karpenter picks one domain at random; fleetsim
        // picks the first zone the claim allows, so the claim is pinned and the group counted.
        zones &= ~zones + 1;
      } else {
        return 0;
      }
    } else if (host_count(g) == 0 && !(self && g.recorded == 0)) {
      return 0;
    }
  }
  for (std::uint32_t i = blocked_range_[pod].begin; i < blocked_range_[pod].end; ++i) {
    const Group& g = groups_[blocked_[i]];
    if (g.zonal) {
      zones &= ~g.occupied_zones;
    } else if (host_count(g) > 0) {
      return 0;
    }
  }
  return zones;
}

std::uint32_t PodAffinityGroups::hostname_exclusion(std::uint32_t pod,
                                                    const AffinityRelaxation& r) const {
  if (groups_.empty()) return kNoGroup;
  std::uint32_t best = kNoGroup;
  auto consider = [&](std::uint32_t g) {
    if (!groups_[g].zonal && (best == kNoGroup || groups_[g].free_count < groups_[best].free_count))
      best = g;
  };
  for (std::uint32_t i = owned_range_[pod].begin; i < owned_range_[pod].end; ++i) {
    const Owned& o = owned_[i];
    if (groups_[o.group].kind == Kind::AntiAffinity && active(groups_[o.group], o, r))
      consider(o.group);
  }
  for (std::uint32_t i = blocked_range_[pod].begin; i < blocked_range_[pod].end; ++i)
    consider(blocked_[i]);
  return best;
}

const std::vector<std::uint32_t>& PodAffinityGroups::free_claims(std::uint32_t group) {
  Group& g = groups_[group];
  std::erase_if(g.free, [&](std::uint32_t c) { return g.claim_counts[c] != 0; });
  return g.free;
}

std::uint64_t PodAffinityGroups::zone_filter(std::uint32_t pod, std::uint64_t zones,
                                             std::uint64_t pod_zones,
                                             const AffinityRelaxation& r) const {
  std::uint64_t filter = zones;
  if (groups_.empty()) return filter;
  for (std::uint32_t i = owned_range_[pod].begin; i < owned_range_[pod].end; ++i) {
    const Owned& o = owned_[i];
    const Group& g = groups_[o.group];
    if (!g.zonal || !active(g, o, r)) continue;
    if (g.kind == Kind::AntiAffinity) {
      filter &= ~g.occupied_zones;
    } else if ((g.occupied_zones & pod_zones) != 0) {
      filter &= g.occupied_zones & pod_zones;  // no bootstrap: only zones with a selected pod
    }
  }
  for (std::uint32_t i = blocked_range_[pod].begin; i < blocked_range_[pod].end; ++i)
    if (groups_[blocked_[i]].zonal) filter &= ~groups_[blocked_[i]].occupied_zones;
  return filter;
}

void PodAffinityGroups::add_claim() {
  for (Group& g : groups_) {
    if (g.zonal) continue;
    g.free.push_back(static_cast<std::uint32_t>(g.claim_counts.size()));
    ++g.free_count;
    g.claim_counts.push_back(0);
  }
}

void PodAffinityGroups::record(Group& g, std::uint64_t zones, std::uint32_t node,
                               std::uint32_t claim) {
  if (g.zonal) {
    if (zones == 0) return;
    for (std::uint64_t bits = zones; bits; bits &= bits - 1)
      ++g.zone_counts[static_cast<std::size_t>(std::countr_zero(bits))];
    g.occupied_zones |= zones;
  } else if (node != kNone) {
    ++g.node_counts[node];
  } else if (g.claim_counts[claim]++ == 0) {
    --g.free_count;
  }
  ++g.recorded;
}

void PodAffinityGroups::record_node(std::uint32_t pod, std::uint32_t node) {
  if (groups_.empty()) return;
  const int z = node_zone_[node];
  const std::uint64_t zones = z < 0 ? 0 : 1ULL << z;
  for (std::uint32_t i = counted_range_[pod].begin; i < counted_range_[pod].end; ++i)
    record(groups_[counted_[i]], zones, node, kNone);
  for (std::uint32_t i = inverse_range_[pod].begin; i < inverse_range_[pod].end; ++i)
    record(groups_[inverse_[i]], zones, node, kNone);
}

void PodAffinityGroups::record_claim(std::uint32_t pod, std::uint32_t claim, std::uint64_t zones) {
  if (groups_.empty()) return;
  for (std::uint32_t i = counted_range_[pod].begin; i < counted_range_[pod].end; ++i) {
    Group& g = groups_[counted_[i]];
    // Affinity learns a zone only once the claim is pinned to one; anti-affinity blocks every
    // zone the pod could land in.
    const bool known = g.kind == Kind::AntiAffinity || std::popcount(zones) == 1;
    record(g, known ? zones : 0, kNone, claim);
  }
  for (std::uint32_t i = inverse_range_[pod].begin; i < inverse_range_[pod].end; ++i)
    record(groups_[inverse_[i]], zones, kNone, claim);
}

}  // namespace fleetsim
