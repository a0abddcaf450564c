#include "fleetsim/kube/inter_pod_affinity.hpp"

#include <algorithm>
#include <limits>
#include <string_view>

#include "fleetsim/k8s/pod_affinity.hpp"
#include "fleetsim/kube/resource_scores.hpp"

namespace fleetsim {

namespace {

bool modelled(const PodAffinityTerm& term) {
  return term.topology_key == label::kZone || term.topology_key == label::kHostname;
}

// Calls f(node, pod) for every pod bound to an active node.
template <typename F>
void for_each_running(const Cluster& cluster, F&& f) {
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    for (PodId p : n.pods) f(n, cluster.pod(p));
  }
}

// The topology domains (hosts or zones) some pods are in.
class Domains {
 public:
  explicit Domains(std::size_t nodes) : hosts_(nodes, 0) {}
  void add(const Node& n) {
    hosts_[n.id] = 1;
    if (!n.zone.empty() && std::find(zones_.begin(), zones_.end(), n.zone) == zones_.end())
      zones_.push_back(n.zone);
  }
  bool empty() const { return std::find(hosts_.begin(), hosts_.end(), 1) == hosts_.end(); }
  bool has(const PodAffinityTerm& term, const Node& n) const {
    if (term.topology_key == label::kHostname) return hosts_[n.id] != 0;
    return std::find(zones_.begin(), zones_.end(), n.zone) != zones_.end();
  }

 private:
  std::vector<std::uint8_t> hosts_;
  std::vector<std::string_view> zones_;
};

}  // namespace

void inter_pod_affinity_mask(const Cluster& cluster, const Pod& pod,
                             std::vector<std::uint8_t>& out) {
  const std::size_t node_count = cluster.nodes().size();
  out.assign(node_count, 1);
  const PodSpec& spec = *pod.spec;
  const std::string_view ns = pod.namespace_name;

  // Required affinity: every term needs a pod it selects in the node's domain, unless no pod
  // matches any term anywhere and the pod matches them all itself (the first pod of a group).
  std::vector<const PodAffinityTerm*> terms;
  std::vector<Domains> with;
  bool any_match = false, self_matches_all = true;
  for (const PodAffinityTerm& term : spec.pod_affinity.required) {
    if (!modelled(term)) continue;
    terms.push_back(&term);
    with.emplace_back(node_count);
    self_matches_all = self_matches_all && term_selects(term, ns, ns, pod.labels);
    for_each_running(cluster, [&](const Node& n, const Pod& q) {
      if (term_selects(term, ns, q.namespace_name, q.labels)) with.back().add(n);
    });
    any_match = any_match || !with.back().empty();
  }
  if (!terms.empty() && (any_match || !self_matches_all)) {
    for (NodeId id : cluster.active_nodes())
      for (std::size_t t = 0; t < terms.size(); ++t)
        if (!with[t].has(*terms[t], cluster.node(id))) out[id] = 0;
  }

  // Its own required anti-affinity, and running pods' required anti-affinity against it.
  auto forbid = [&](const PodAffinityTerm& term, const Domains& against) {
    for (NodeId id : cluster.active_nodes())
      if (against.has(term, cluster.node(id))) out[id] = 0;
  };
  for (const PodAffinityTerm& term : spec.pod_anti_affinity.required) {
    if (!modelled(term)) continue;
    Domains against(node_count);
    for_each_running(cluster, [&](const Node& n, const Pod& q) {
      if (term_selects(term, ns, q.namespace_name, q.labels)) against.add(n);
    });
    forbid(term, against);
  }
  // A running pod's hostname term rules out its own node; a zone term, its node's zone. Marked
  // directly: a pass over every node per running pod made 3,000 pods that must be apart take
  // minutes (pods × pods × nodes).
  std::vector<std::string_view> forbidden_zones;
  for_each_running(cluster, [&](const Node& n, const Pod& q) {
    for (const PodAffinityTerm& term : q.spec->pod_anti_affinity.required) {
      if (!modelled(term) || !term_selects(term, q.namespace_name, ns, pod.labels)) continue;
      if (term.topology_key == label::kHostname) {
        out[n.id] = 0;
      } else if (!n.zone.empty() && std::find(forbidden_zones.begin(), forbidden_zones.end(),
                                              n.zone) == forbidden_zones.end()) {
        forbidden_zones.push_back(n.zone);
      }
    }
  });
  if (forbidden_zones.empty()) return;
  for (NodeId id : cluster.active_nodes()) {
    const std::string_view zone = cluster.node(id).zone;
    if (std::find(forbidden_zones.begin(), forbidden_zones.end(), zone) != forbidden_zones.end())
      out[id] = 0;
  }
}

bool inter_pod_affinity_score(const Cluster& cluster, const Pod& pod,
                              std::span<const NodeId> feasible, std::span<std::int64_t> scores,
                              std::int64_t hard_pod_affinity_weight) {
  const PodSpec& spec = *pod.spec;
  const bool own =
      !spec.pod_affinity.preferred.empty() || !spec.pod_anti_affinity.preferred.empty();
  if (!own && cluster.bound_with_affinity_terms() == 0) return false;

  // Totals per hostname domain (by NodeId) and per zone.
  std::vector<std::int64_t> host(cluster.nodes().size(), 0);
  std::vector<std::pair<std::string_view, std::int64_t>> zones;
  auto add = [&](const PodAffinityTerm& term, const Node& n, std::int64_t weight) {
    if (!modelled(term)) return;
    if (term.topology_key == label::kHostname) {
      host[n.id] += weight;
    } else if (!n.zone.empty()) {
      auto z = std::find_if(zones.begin(), zones.end(),
                            [&](const auto& e) { return e.first == n.zone; });
      if (z == zones.end()) z = zones.insert(zones.end(), {n.zone, 0});
      z->second += weight;
    }
  };
  const std::string_view ns = pod.namespace_name;
  for_each_running(cluster, [&](const Node& n, const Pod& q) {
    const PodSpec& other = *q.spec;
    for (std::size_t i = 0; i < spec.pod_affinity.preferred.size(); ++i)
      if (term_selects(spec.pod_affinity.preferred[i], ns, q.namespace_name, q.labels))
        add(spec.pod_affinity.preferred[i], n, spec.pod_affinity.preferred_weights[i]);
    for (std::size_t i = 0; i < spec.pod_anti_affinity.preferred.size(); ++i)
      if (term_selects(spec.pod_anti_affinity.preferred[i], ns, q.namespace_name, q.labels))
        add(spec.pod_anti_affinity.preferred[i], n, -spec.pod_anti_affinity.preferred_weights[i]);
    if (hard_pod_affinity_weight > 0)
      for (const PodAffinityTerm& term : other.pod_affinity.required)
        if (term_selects(term, q.namespace_name, ns, pod.labels))
          add(term, n, hard_pod_affinity_weight);
    for (std::size_t i = 0; i < other.pod_affinity.preferred.size(); ++i)
      if (term_selects(other.pod_affinity.preferred[i], q.namespace_name, ns, pod.labels))
        add(other.pod_affinity.preferred[i], n, other.pod_affinity.preferred_weights[i]);
    for (std::size_t i = 0; i < other.pod_anti_affinity.preferred.size(); ++i)
      if (term_selects(other.pod_anti_affinity.preferred[i], q.namespace_name, ns, pod.labels))
        add(other.pod_anti_affinity.preferred[i], n, -other.pod_anti_affinity.preferred_weights[i]);
  });

  std::int64_t lowest = std::numeric_limits<std::int64_t>::max();
  std::int64_t highest = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    const Node& n = cluster.node(feasible[i]);
    std::int64_t total = host[n.id];
    for (const auto& [zone, weight] : zones)
      if (zone == n.zone) total += weight;
    scores[i] = total;
    lowest = std::min(lowest, total);
    highest = std::max(highest, total);
  }
  for (std::int64_t& s : scores.first(feasible.size())) {
    double scaled = 0;
    if (highest > lowest)
      scaled = static_cast<double>(kMaxNodeScore) *
               (static_cast<double>(s - lowest) / static_cast<double>(highest - lowest));
    s = static_cast<std::int64_t>(scaled);
  }
  return true;
}

}  // namespace fleetsim
