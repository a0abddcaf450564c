#include "fleetsim/kube/topology_spread.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "fleetsim/k8s/pod_fits.hpp"
#include "fleetsim/kube/resource_scores.hpp"

namespace fleetsim {

namespace {

// System defaults (podtopologyspread/plugin.go systemDefaultConstraints).
const std::vector<TopologySpread> kSystemDefaults{
    {.topology_key = std::string(label::kHostname),
     .max_skew = 3,
     .when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway},
    {.topology_key = std::string(label::kZone),
     .max_skew = 5,
     .when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway},
};

bool zonal(const TopologySpread& c) { return c.topology_key == label::kZone; }

bool has_key(const TopologySpread& c, const Node& n) { return !zonal(c) || !n.zone.empty(); }

// A node the API server knows: registered, and not gone.
bool registered(const Node& n) {
  return n.phase >= NodePhase::Registered && n.phase != NodePhase::Terminated;
}

// matchNodeInclusionPolicies: whether the node's pods and domain count for the constraint.
bool includes(const TopologySpread& c, const PodSpec& pod, const Node& n) {
  if (c.node_affinity_policy == InclusionPolicy::Honor && !node_selection_allows(pod, n.labels))
    return false;
  return c.node_taints_policy == InclusionPolicy::Ignore ||
         blocking_taint(pod, n.taints, PreferNoSchedule::Ignore) == nullptr;
}

// countPodsMatchSelector: the node's pods the constraint counts.
struct Counter {
  const Cluster& cluster;
  const Pod& pod;
  bool defaulted;

  bool selects(const TopologySpread& c, const Pod& q) const {
    if (defaulted) return q.workload == pod.workload;
    return q.namespace_name == pod.namespace_name && c.selects(q.labels);
  }
  std::int64_t on(const TopologySpread& c, const Node& n) const {
    return std::count_if(n.pods.begin(), n.pods.end(), [&](PodId id) {
      const Pod& q = cluster.pod(id);
      return !q.terminating && selects(c, q);
    });
  }
};

// Matching pods per zone, over the zones registered.
struct ZoneCounts {
  std::vector<std::string_view> zones;
  std::vector<std::int64_t> counts;
  std::int64_t* find(std::string_view zone) {
    auto it = std::find(zones.begin(), zones.end(), zone);
    return it == zones.end() ? nullptr : &counts[static_cast<std::size_t>(it - zones.begin())];
  }
  void add_zone(std::string_view zone) {
    if (find(zone) != nullptr) return;
    zones.push_back(zone);
    counts.push_back(0);
  }
};

}  // namespace

SpreadConstraints spread_constraints(const Cluster& cluster, const Pod& pod,
                                     const SpreadDefaults& defaults) {
  SpreadConstraints out;
  auto add = [&](const TopologySpread& c) {
    (c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule ? out.hard : out.soft).push_back(&c);
  };
  for (const TopologySpread& c : pod.spec->topology_spread) add(c);
  if (pod.spec->topology_spread.empty()) {
    auto w = cluster.workloads().find(pod.workload);
    if (w != cluster.workloads().end() && w->second.kind == WorkloadKind::Deployment) {
      for (const TopologySpread& c : defaults.system ? kSystemDefaults : defaults.list) add(c);
      out.defaulted = !out.hard.empty() || !out.soft.empty();
      out.system_default = defaults.system;
    }
  }
  return out;
}

void topology_spread_filter(const Cluster& cluster, const Pod& pod,
                            const SpreadConstraints& constraints,
                            std::vector<std::uint8_t>& allowed) {
  const std::vector<const TopologySpread*>& hard = constraints.hard;
  const Counter counter{cluster, pod, constraints.defaulted};
  std::vector<std::int64_t> host_counts;
  for (const TopologySpread* constraint : hard) {
    const TopologySpread& c = *constraint;
    // Domains and their matching pods, over every registered node the policies include.
    ZoneCounts zones;
    host_counts.assign(cluster.nodes().size(), 0);
    std::int64_t fewest = std::numeric_limits<std::int64_t>::max();
    std::size_t domains = 0;
    for (NodeId id : cluster.active_nodes()) {
      const Node& n = cluster.node(id);
      if (!registered(n) || !has_key(c, n) || !includes(c, *pod.spec, n)) continue;
      const std::int64_t count = counter.on(c, n);
      if (zonal(c)) {
        zones.add_zone(n.zone);
        *zones.find(n.zone) += count;
      } else {
        host_counts[id] = count;
        fewest = std::min(fewest, count);
        ++domains;
      }
    }
    if (zonal(c)) {
      for (std::int64_t count : zones.counts) fewest = std::min(fewest, count);
      domains = zones.zones.size();
    }
    // Fewer domains than minDomains (at least 1): the fewest counts as 0.
    if (domains < static_cast<std::size_t>(c.min_domains)) fewest = 0;
    const std::int64_t self = counter.selects(c, pod) ? 1 : 0;
    for (NodeId id : cluster.active_nodes()) {
      if (allowed[id] == 0) continue;
      const Node& n = cluster.node(id);
      if (!has_key(c, n)) {
        allowed[id] = 0;
        continue;
      }
      std::int64_t in_domain = host_counts[id];
      if (zonal(c)) {
        const std::int64_t* z = zones.find(n.zone);
        in_domain = z == nullptr ? 0 : *z;
      }
      if (in_domain + self - fewest > c.max_skew) allowed[id] = 0;
    }
  }
}

void topology_spread_score(const Cluster& cluster, const Pod& pod,
                           const SpreadConstraints& constraints, std::span<const NodeId> feasible,
                           std::span<std::int64_t> scores) {
  const std::vector<const TopologySpread*>& soft = constraints.soft;
  const Counter counter{cluster, pod, constraints.defaulted};
  // With the pod's own constraints or a List of defaults a node must carry every key; the
  // system defaults need only the host.
  const bool require_all = !constraints.system_default;
  auto carries_all = [&](const Node& n) {
    return std::all_of(soft.begin(), soft.end(),
                       [&](const TopologySpread* c) { return has_key(*c, n); });
  };
  std::vector<std::uint8_t> ignored(feasible.size(), 0);
  std::size_t hosts = 0;
  std::vector<ZoneCounts> zones(soft.size());
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    const Node& n = cluster.node(feasible[i]);
    if (require_all && !carries_all(n)) {
      ignored[i] = 1;
      continue;
    }
    ++hosts;
    for (std::size_t k = 0; k < soft.size(); ++k)
      if (zonal(*soft[k])) zones[k].add_zone(n.zone);  // a node without one is the "" zone
  }
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    if (!registered(n) || (require_all && !carries_all(n))) continue;
    for (std::size_t k = 0; k < soft.size(); ++k) {
      if (!zonal(*soft[k]) || !includes(*soft[k], *pod.spec, n)) continue;
      if (std::int64_t* count = zones[k].find(n.zone)) *count += counter.on(*soft[k], n);
    }
  }
  std::vector<double> weight(soft.size());
  for (std::size_t k = 0; k < soft.size(); ++k) {
    const std::size_t domains = zonal(*soft[k]) ? zones[k].zones.size() : hosts;
    weight[k] = std::log(static_cast<double>(domains) + 2);
  }

  std::int64_t highest = 0, lowest = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i] != 0) continue;
    const Node& n = cluster.node(feasible[i]);
    double raw = 0;
    for (std::size_t k = 0; k < soft.size(); ++k) {
      if (!has_key(*soft[k], n)) continue;
      const std::int64_t count = zonal(*soft[k]) ? *zones[k].find(n.zone) : counter.on(*soft[k], n);
      raw += static_cast<double>(count) * weight[k] + (soft[k]->max_skew - 1);
    }
    scores[i] = std::llround(raw);
    highest = std::max(highest, scores[i]);
    lowest = std::min(lowest, scores[i]);
  }
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    if (ignored[i] != 0)
      scores[i] = 0;
    else if (highest == 0)
      scores[i] = kMaxNodeScore;
    else
      scores[i] = kMaxNodeScore * (highest + lowest - scores[i]) / highest;
  }
}

}  // namespace fleetsim
