#include "fleetsim/runner/cost_ledger.hpp"

#include <algorithm>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

double ratio(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

void add_to(std::map<std::string, double, std::less<>>& m, std::string_view key, double usd) {
  auto it = m.find(key);
  if (it == m.end()) it = m.emplace(std::string(key), 0.0).first;
  it->second += usd;
}

}  // namespace

bool busy_while_bound(WorkloadKind kind) {
  return kind == WorkloadKind::Job || kind == WorkloadKind::Pod;
}

double CostLedger::instance_usd() const {
  double sum = 0.0;
  for (double x : instance_usd_) sum += x;
  return sum;
}

CostLedger::NodeAccount* CostLedger::account(NodeId id) {
  if (id >= accounts_.size() || !accounts_[id].billed) return nullptr;
  return &accounts_[id];
}

void CostLedger::open(const Node& node, SimTime now) {
  if (node.id >= accounts_.size()) accounts_.resize(node.id + 1);
  NodeAccount& a = accounts_[node.id];
  FLEETSIM_ASSERT(!a.billed);
  // Karpenter may count buffer pods on a NodeClaim before its instance bills.
  const bool buffer = a.buffer;
  a = NodeAccount{};
  a.buffer = buffer;
  a.headroom = buffer;  // no pod is bound yet
  a.billed = true;
  a.since = now;
  a.instance_per_hour = pricing_.instance_per_hour(node);
  a.ebs_per_hour = pricing_.volumes_per_hour(node);
  a.fee_per_hour = pricing_.fee_per_hour(node);
  const NodeGpuSetup& g = node.gpu_setup;
  for (std::size_t i = 0; i < g.mig.size(); ++i) {
    auto it = slices_.find(g.mig[i].profile);
    if (it == slices_.end()) it = slices_.emplace(g.mig[i].profile, SliceSeconds{}).first;
    a.slices.push_back({.totals = &it->second,
                        .offered = static_cast<double>(g.mig[i].per_gpu * g.physical_gpus),
                        .weight = mig_cost_weight(g, i)});
  }
  // Time-slicing or MPS on whole GPUs, as a pod asks for them: each GPU's replicas are devices.
  if (g.mig.empty() && g.sharing != GpuSharingKind::None) {
    a.shared = true;
    a.slices.push_back({.totals = &shared_,
                        .offered = static_cast<double>(g.replicas * g.physical_gpus),
                        .weight = 1.0});
  }
  billed_.push_back(node.id);
}

double CostLedger::accrued_usd(SimTime now) const {
  double usd = total_usd();
  for (NodeId id : billed_) {
    const NodeAccount& a = accounts_[id];
    usd += a.instance_usd + a.ebs_usd + a.fee_usd +
           (a.instance_per_hour + a.ebs_per_hour + a.fee_per_hour) * to_hours(now - a.since);
  }
  return usd;
}

SimTime CostLedger::billed_until(const Node& node, const NodeAccount& a, SimTime now) {
  return std::max(a.since, std::min(now, node.billing_stopped_at));
}

void CostLedger::credit(NodeAccount& a, SimTime now) {
  FLEETSIM_ASSERT(now >= a.since);
  const SimDuration dt = now - a.since;
  a.since = now;
  if (dt == SimDuration::zero()) return;
  const double hours = to_hours(dt);
  const double instance = a.instance_per_hour * hours;
  const double ebs = a.ebs_per_hour * hours;
  const double fee = a.fee_per_hour * hours;
  a.instance_usd += instance;
  a.ebs_usd += ebs;
  a.fee_usd += fee;

  const double piece = instance + ebs + fee;
  double attributed = 0.0;
  for (const Share& s : a.shares) {
    const double usd = piece * s.fraction;
    by_workload_[s.name] += usd;
    attributed += usd;
  }
  // By subtraction, so that by_workload sums to the total up to rounding of the additions.
  unallocated_usd_ += piece - attributed;

  const double secs = to_seconds(dt);
  if (a.headroom) {
    headroom_seconds_ += secs;
    headroom_usd_ += piece;
  }
  allocated_gpu_seconds_ += static_cast<double>(a.gpus_allocated) * secs;
  busy_gpu_seconds_ += static_cast<double>(a.gpus_busy) * secs;
  for (const NodeAccount::Slices& s : a.slices) {
    s.totals->offered += s.offered * secs;
    s.totals->allocated += s.allocated * secs;
    s.totals->busy += s.busy * secs;
    s.totals->usd += piece * s.weight;
  }
}

void CostLedger::add_busy_slice_seconds(std::string_view profile, double instance_seconds) {
  auto it = slices_.find(profile);
  if (it == slices_.end()) it = slices_.emplace(std::string(profile), SliceSeconds{}).first;
  it->second.busy += instance_seconds;
}

std::uint32_t CostLedger::name_index(const std::string& name) {
  auto it = name_index_.find(name);
  if (it == name_index_.end()) {
    it = name_index_.emplace(name, static_cast<std::uint32_t>(by_workload_.size())).first;
    by_workload_.push_back(0.0);
  }
  return it->second;
}

std::map<std::string, double, std::less<>> CostLedger::by_workload() const {
  std::map<std::string, double, std::less<>> out;
  for (const auto& [name, index] : name_index_)
    if (by_workload_[index] != 0.0) out.emplace(name, by_workload_[index]);
  return out;
}

void CostLedger::take_shares(NodeAccount& a, const Node& node, const Cluster& cluster) {
  a.instance_per_hour = pricing_.instance_per_hour(node);
  a.ebs_per_hour = pricing_.volumes_per_hour(node);
  a.shares.clear();
  a.gpus_allocated = 0;
  a.gpus_busy = 0;
  for (NodeAccount::Slices& s : a.slices) s.allocated = s.busy = 0.0;
  bool balloons = false;
  bool others = false;
  const std::int64_t node_gpus = node.allocatable.gpus();
  double sum = 0.0;
  for (PodId id : node.pods) {
    const Pod& pod = cluster.pod(id);
    FLEETSIM_ASSERT(pod.spec != nullptr);
    const Resources& req = pod.spec->requests;
    const WorkloadKind kind = cluster.workloads().at(pod.workload).kind;
    if (kind != WorkloadKind::DaemonSet) (is_balloon(*pod.spec) ? balloons : others) = true;
    double fraction = 0.0;
    if (a.shared) {
      // A shared GPU's pods hold its replicas: a pod's share of the cost is theirs of the node's.
      NodeAccount::Slices& s = a.slices.front();
      const std::optional<ResourceIndex> replicated = node.gpu_setup.replicated;
      const double devices = replicated ? static_cast<double>(req[*replicated]) : 0.0;
      s.allocated += devices;
      if (busy_while_bound(kind)) s.busy += devices;
      fraction = s.offered > 0 ? devices / s.offered : 0.0;
    } else if (!a.slices.empty()) {
      // A MIG node's pods hold instances (nvidia.com/gpu is one under the single strategy): a
      // pod's share of the cost is its instances' share of their profile's.
      if (const std::optional<MigHold> hold = mig_hold(node.gpu_setup, req)) {
        NodeAccount::Slices& s = a.slices[hold->profile];
        s.allocated += hold->instances;
        if (busy_while_bound(kind)) s.busy += hold->instances;
        fraction = s.offered > 0 ? hold->instances / s.offered * s.weight : 0.0;
      }
    } else {
      const std::int64_t gpus = req.gpus();
      a.gpus_allocated += gpus;
      if (busy_while_bound(kind)) a.gpus_busy += gpus;
      fraction = node_gpus > 0 ? ratio(gpus, node_gpus)
                               : 0.5 * (ratio(req.cpu_millis(), node.allocatable.cpu_millis()) +
                                        ratio(req.memory_bytes(), node.allocatable.memory_bytes()));
    }
    if (fraction <= 0.0) continue;
    sum += fraction;
    auto same = std::find_if(a.shares.begin(), a.shares.end(),
                             [&](const Share& s) { return s.workload == pod.workload; });
    if (same != a.shares.end()) {
      same->fraction += fraction;
    } else {
      a.shares.push_back(
          {pod.workload, name_index(cluster.workloads().at(pod.workload).name), fraction});
    }
  }
  a.headroom = (balloons || a.buffer) && !others;
  // Requests never exceed allocatable when the scheduler is right; if they ever do, the node's
  // cost is still split once, not more than once.
  if (sum > 1.0) {
    for (Share& s : a.shares) s.fraction /= sum;
  }
}

void CostLedger::rebalance(const Node& node, const Cluster& cluster, SimTime now) {
  NodeAccount* a = account(node.id);
  if (a == nullptr) return;
  credit(*a, billed_until(node, *a, now));
  take_shares(*a, node, cluster);
}

void CostLedger::set_buffer(const Node& node, bool holds_buffer, const Cluster& cluster,
                            SimTime now) {
  if (node.id >= accounts_.size()) accounts_.resize(node.id + 1);
  NodeAccount* a = &accounts_[node.id];
  if (a->buffer == holds_buffer) return;
  if (!a->billed) {
    a->buffer = holds_buffer;
    return;
  }
  credit(*a, billed_until(node, *a, now));
  a->buffer = holds_buffer;
  take_shares(*a, node, cluster);
}

bool CostLedger::close(const Node& node, SimTime at) {
  NodeAccount* a = account(node.id);
  if (a == nullptr) return false;
  const SimTime now = billed_until(node, *a, at);
  credit(*a, now);

  if (node.reservation >= 0 &&
      static_cast<std::size_t>(node.reservation) < reservation_windows_.size()) {
    const Window& w = reservation_windows_[static_cast<std::size_t>(node.reservation)];
    const SimTime from = std::max(node.billed_from, w.start);
    const SimTime to = std::min(now, w.end);
    if (to > from)
      reservation_seconds_[static_cast<std::size_t>(node.reservation)] += to_seconds(to - from);
  }
  const SimDuration lived = now - node.billed_from;
  if (lived < kMinimumBilledDuration) {
    // The minimum is billed but nobody used it: it goes to (unallocated). Auto Mode's fee has
    // the same 60-second minimum.
    const double unbilled_hours = to_seconds(kMinimumBilledDuration - lived) / kSecondsPerHour;
    a->instance_usd += a->instance_per_hour * unbilled_hours;
    a->fee_usd += a->fee_per_hour * unbilled_hours;
    unallocated_usd_ += (a->instance_per_hour + a->fee_per_hour) * unbilled_hours;
  }
  const double gpu_seconds = static_cast<double>(node.gpu_setup.physical_gpus) * to_seconds(lived);
  if (a->slices.empty()) {
    provisioned_gpu_seconds_ += static_cast<double>(node.allocatable.gpus()) * to_seconds(lived);
  } else {
    (a->shared ? shared_gpu_seconds_ : mig_gpu_seconds_) += gpu_seconds;
  }

  instance_usd_[static_cast<std::size_t>(node.capacity_type)] += a->instance_usd;
  ebs_usd_ += a->ebs_usd;
  fee_usd_ += a->fee_usd;
  const double node_usd = a->instance_usd + a->ebs_usd + a->fee_usd;
  if (node.nodepool() != nullptr) {
    add_to(by_nodepool_, node.owner_name(), node_usd);
  } else {
    add_to(by_nodegroup_, node.owner_name(), node_usd);
  }
  add_to(by_instance_type_, node.instance_type, node_usd);
  add_to(by_capacity_type_, to_string(node.capacity_type), node_usd);

  a->billed = false;
  a->shares = {};  // release the memory: closed nodes stay in accounts_ only as a flag
  a->slices = {};
  billed_.erase(std::find(billed_.begin(), billed_.end(), node.id));
  return true;
}

void CostLedger::track_reservations(std::span<const Reservation> reservations) {
  reservation_windows_.clear();
  for (const Reservation& r : reservations) reservation_windows_.push_back({r.start, r.end});
  reservation_seconds_.assign(reservations.size(), 0.0);
}

void CostLedger::close_all(const Cluster& cluster, SimTime end) {
  // Copy: close() edits billed_.
  const std::vector<NodeId> open = billed_;
  for (NodeId id : open) close(cluster.node(id), end);
}

}  // namespace fleetsim
