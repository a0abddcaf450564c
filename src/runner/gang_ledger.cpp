#include "fleetsim/runner/gang_ledger.hpp"

#include <algorithm>

namespace fleetsim {

void GangLedger::waiting(const Node& node, SimTime now) {
  ++totals_.permit_waits;
  if (node.pods.empty()) held_.emplace(node.id, now);
}

void GangLedger::bound(const Node& node, SimTime now) { close(node, now); }

void GangLedger::gone(const Node& node, SimTime stopped) { close(node, stopped); }

void GangLedger::end(const Cluster& cluster, SimTime end) {
  while (!held_.empty()) {
    const Node& n = cluster.node(held_.begin()->first);
    close(n, std::min(end, n.billing_stopped_at));
  }
}

void GangLedger::close(const Node& node, SimTime until) {
  const auto it = held_.find(node.id);
  if (it == held_.end()) return;
  const double hours = std::max(0.0, to_seconds(until - it->second)) / 3600.0;
  held_.erase(it);
  totals_.idle_node_hours += hours;
  totals_.idle_gpu_hours += hours * static_cast<double>(node.allocatable.gpus());
  totals_.idle_usd += hours * (pricing_.instance_per_hour(node) + pricing_.volumes_per_hour(node) +
                               pricing_.fee_per_hour(node));
}

}  // namespace fleetsim
