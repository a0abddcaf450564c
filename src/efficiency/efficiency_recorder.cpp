#include "fleetsim/efficiency/efficiency_recorder.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

double ratio(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// EC2's per-second billing minimum (the cost ledger's kMinimumBilledDuration).
constexpr SimDuration kBillingMinimum = seconds(60);

// Templates whose node kinds are kept at once: a run's Deployments and the Jobs running at a
// time fit; a long job trace's finished Jobs are forgotten.
constexpr std::size_t kSpecCacheSize = 4096;

// Cells' LPs remembered at once: a demand that moves between a few levels solves each once.
constexpr std::size_t kLpCacheSize = 256;

// Adds the time of its scope to a total.
class Stopwatch {
 public:
  explicit Stopwatch(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

bool is_exit(EventKind k) {
  return k == EventKind::PodCompleted || k == EventKind::PodEvicted || k == EventKind::PodDeleted;
}

}  // namespace

EfficiencyRecorder::EfficiencyRecorder(const ScenarioConfig& config, const CloudProvider& cloud)
    : cloud_(cloud),
      kinds_(config),
      cell_length_(std::max(kEfficiencyCell, config.duration / kMaxEfficiencyCells)),
      cell_end_(SimTime{} + cell_length_),
      offering_price_(cloud.offering_prices().begin(), cloud.offering_prices().end()),
      offering_open_(offering_price_.size(), 1),
      kind_least_(kinds_.kind_count(), std::numeric_limits<double>::infinity()) {
  // Offering indices are the catalog's: the cloud's prices must be of the scenario's catalog.
  FLEETSIM_ASSERT(&cloud.catalog() == &kinds_.catalog());
  for (std::uint32_t g = 0; g < offering_open_.size(); ++g)
    offering_open_[g] = kinds_.catalog().offering(g).capacity != 0;
  kind_now_.resize(kind_least_.size());
  for (std::uint32_t j = 0; j < kind_least_.size(); ++j)
    kind_least_[j] = kind_now_[j] = kind_price_now(j);
  compute_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - created_).count();
}

double EfficiencyRecorder::kind_price_now(std::uint32_t kind) const {
  const Catalog& catalog = kinds_.catalog();
  const std::uint32_t type = kind_type(kind);
  double least = std::numeric_limits<double>::infinity();
  const auto& offerings = catalog.types()[type].offerings;
  for (std::size_t i = 0; i < offerings.size(); ++i)
    if (offerings[i].capacity_type == kind_capacity(kind)) {
      const std::uint32_t g = catalog.offering_index(type, i);
      least = std::min(least, kinds_.least_price(g, offering_price_[g]));
    }
  return least;
}

void EfficiencyRecorder::lower_price(std::uint32_t kind, double price) {
  if (price < kind_least_[kind]) {
    if (kind_least_[kind] == kind_now_[kind]) lowered_.push_back(kind);
    kind_least_[kind] = price;
    ++terms_epoch_;
  }
}

std::uint32_t EfficiencyRecorder::kind_of(const Node& node) const {
  const auto type = kinds_.catalog().index_of(node.instance_type);
  FLEETSIM_ASSERT(type.has_value());
  return node_kind(static_cast<std::uint32_t>(*type), node.capacity_type);
}

// Cells -------------------------------------------------------------------------------------

void EfficiencyRecorder::count(DemandClass& c, SimTime now, std::int64_t delta) {
  c.pod_seconds += static_cast<double>(c.count) * to_seconds(now - c.since);
  c.since = now;
  c.count += delta;
  c.least = std::min(c.least, c.count);
}

void EfficiencyRecorder::advance(SimTime now, const Cluster& cluster) {
  while (now >= cell_end_) {
    close_cell(cell_end_, cluster);
    cell_start_ = cell_end_;
    cell_end_ = cell_end_ + cell_length_;
  }
}

void EfficiencyRecorder::refresh(DemandClass& c) {
  if (c.epoch == terms_epoch_) return;
  c.epoch = terms_epoch_;
  c.least_ratio.fill(std::numeric_limits<double>::infinity());
  c.pod_usd_per_hour = std::numeric_limits<double>::infinity();
  for (std::uint32_t j : c.kinds) {
    if (!std::isfinite(kind_least_[j])) continue;  // not sold, no node billed: unused
    const Resources& room = kinds_.room(kind_type(j));
    // A kind whose room cannot hold the pod hosts none of the class's pods (every node of it
    // has at most that room): leaving it out keeps the minimum over the kinds that can.
    if (!c.request.fits_in(room)) continue;
    double share = 0.0;  // of one node, the most any resource of the pod takes
    for (std::size_t r = 0; r < resource::kMaxResources; ++r) {
      const auto q = c.request[static_cast<ResourceIndex>(r)];
      if (q <= 0) continue;
      const auto have = static_cast<double>(room[static_cast<ResourceIndex>(r)]);
      c.least_ratio[r] = std::min(c.least_ratio[r], kind_least_[j] / have);
      share = std::max(share, static_cast<double>(q) / have);
    }
    if (kind_least_[j] * share < c.pod_usd_per_hour) {
      c.pod_usd_per_hour = kind_least_[j] * share;
      c.cheapest = j;
    }
  }
}

void EfficiencyRecorder::close_cell(SimTime end, const Cluster& cluster) {
  const double hours = to_hours(end - cell_start_);
  // Fluid (step 3): per resource, each class's pod-hours × request at its cheapest kind's
  // price per unit of room.
  std::array<double, resource::kMaxResources> fluid{};
  // A feasible point of the packing LP, each class's pods on its own cheapest kind, the pods
  // of the classes on one kind sharing its (fractional) nodes: per kind, as many nodes as its
  // most filled resource needs (y_j = max_r Σ_k least_k request_kr / room_jr holds every
  // resource's sum). The LP's optimum is at most its cost, which is at most the classes' apart.
  std::vector<std::pair<std::uint32_t, std::array<double, resource::kMaxResources>>> on_kind;
  bool placed = true;  // every class with demand has a kind that holds its pods
  bool demand = false;
  for (DemandClass& c : classes_) {
    count(c, end, 0);
    if (c.pod_seconds <= 0 && c.least <= 0) continue;
    refresh(c);
    for (std::size_t r = 0; r < resource::kMaxResources; ++r) {
      const auto q = c.request[static_cast<ResourceIndex>(r)];
      if (q > 0 && std::isfinite(c.least_ratio[r]))
        fluid[r] += c.pod_seconds / kSecondsPerHour * static_cast<double>(q) * c.least_ratio[r];
    }
    if (c.least > 0) {
      demand = true;
      if (!std::isfinite(c.pod_usd_per_hour)) {
        placed = false;
        continue;
      }
      auto at = std::find_if(on_kind.begin(), on_kind.end(),
                             [&](const auto& k) { return k.first == c.cheapest; });
      if (at == on_kind.end()) at = on_kind.insert(on_kind.end(), {c.cheapest, {}});
      for (std::size_t r = 0; r < resource::kMaxResources; ++r)
        at->second[r] += static_cast<double>(c.least) *
                         static_cast<double>(c.request[static_cast<ResourceIndex>(r)]);
    }
  }
  const double fluid_cell = *std::max_element(fluid.begin(), fluid.end());
  double packing_at_most = placed ? 0.0 : std::numeric_limits<double>::infinity();
  for (const auto& [j, sum] : on_kind) {
    const Resources& room = kinds_.room(kind_type(j));
    double nodes = 0.0;
    for (std::size_t r = 0; r < resource::kMaxResources; ++r)
      if (sum[r] > 0)  // the kind holds a pod of each class on it: its room here is positive
        nodes = std::max(nodes, sum[r] / static_cast<double>(room[static_cast<ResourceIndex>(r)]));
    packing_at_most += kind_least_[j] * nodes;
  }

  // Packing (step 4). When even that feasible point costs no more than the fluid figure the
  // LP cannot raise the cell's bound: no solve. Otherwise the LP, remembered by its input.
  double lp_usd_per_hour = 0.0;
  if (demand && packing_at_most * hours > fluid_cell) {
    const Stopwatch lp(packing_seconds_);
    lp_usd_per_hour = solve_cell();
  }
  for (DemandClass& c : classes_) {
    c.least = c.count;
    c.pod_seconds = 0.0;
  }
  (void)cluster;
  fluid_usd_ += fluid_cell;
  packing_usd_ += std::max(fluid_cell, lp_usd_per_hour * hours);

  // The next cell's least prices start at the prices in force, lowered by any billed node's
  // own rate (step 2).
  for (std::uint32_t j : lowered_) {
    if (kind_least_[j] != kind_now_[j]) ++terms_epoch_;
    kind_least_[j] = kind_now_[j];
  }
  lowered_.clear();
  for (NodeId id : billed_) {
    const NodeAccount& a = nodes_.at(id);
    lower_price(a.kind, a.rate);
  }
  (void)cluster;
}

double EfficiencyRecorder::solve_cell() {
  std::vector<double> key{static_cast<double>(terms_epoch_)};
  for (std::uint32_t k = 0; k < classes_.size(); ++k) {
    if (classes_[k].least <= 0) continue;
    key.push_back(k);
    key.push_back(static_cast<double>(classes_[k].least));
  }
  if (auto hit = lp_cache_.find(key); hit != lp_cache_.end()) return hit->second;

  // The LP over every class so far, rebuilt when a price, a room or a class's kinds changed
  // or a class came; between those only the counts change and CLP starts from its last basis.
  if (!lp_ || lp_epoch_ != terms_epoch_ || lp_classes_ != classes_.size()) {
    std::vector<PackingClass> lp_classes;
    std::vector<std::uint32_t> lp_kind_of;                      // LP index → kind
    std::unordered_map<std::uint32_t, std::uint32_t> lp_index;  // lookups only
    for (const DemandClass& c : classes_) {
      PackingClass pc;
      for (std::size_t r = 0; r < resource::kMaxResources; ++r)
        pc.request[r] = static_cast<double>(c.request[static_cast<ResourceIndex>(r)]);
      for (std::uint32_t j : c.kinds) {
        // A kind with no price this cell had no billed node: no pod of the cell was on one.
        if (!std::isfinite(kind_least_[j])) continue;
        auto [at, added] = lp_index.emplace(j, static_cast<std::uint32_t>(lp_kind_of.size()));
        if (added) lp_kind_of.push_back(j);
        pc.kinds.push_back(at->second);
      }
      lp_classes.push_back(std::move(pc));
    }
    std::vector<PackingNodeKind> lp_kinds;
    for (std::uint32_t j : lp_kind_of) {
      PackingNodeKind nk{.usd_per_hour = kind_least_[j]};
      const Resources& room = kinds_.room(kind_type(j));
      for (std::size_t r = 0; r < resource::kMaxResources; ++r)
        nk.room[r] = static_cast<double>(room[static_cast<ResourceIndex>(r)]);
      lp_kinds.push_back(nk);
    }
    lp_ = std::make_unique<PackingLp>(lp_kinds, lp_classes);
    lp_epoch_ = terms_epoch_;
    lp_classes_ = classes_.size();
  }
  std::vector<double> counts;
  for (const DemandClass& c : classes_) counts.push_back(static_cast<double>(c.least));
  const double value = lp_->solve(counts);
  if (lp_cache_.size() >= kLpCacheSize) lp_cache_.clear();
  lp_cache_.emplace(std::move(key), value);
  return value;
}

// Demand ------------------------------------------------------------------------------------

std::uint32_t EfficiencyRecorder::class_of(const Pod& pod) {
  const PodSpec& spec = *pod.spec;
  const SpecKey spec_key{pod.workload, &spec};
  auto cached = spec_kinds_.find(spec_key);
  if (cached == spec_kinds_.end()) {
    if (spec_kinds_.size() >= kSpecCacheSize) spec_kinds_.clear();
    cached = spec_kinds_.emplace(spec_key, kinds_.kinds_for(spec)).first;
  }
  ClassKey key;
  for (std::size_t r = 0; r < resource::kMaxResources; ++r)
    key.first[r] = spec.requests[static_cast<ResourceIndex>(r)];
  key.second = cached->second;
  auto it = class_index_.find(key);
  if (it == class_index_.end()) {
    const auto index = static_cast<std::uint32_t>(classes_.size());
    classes_.push_back(
        DemandClass{.request = spec.requests, .kinds = key.second, .since = cell_start_});
    it = class_index_.emplace(std::move(key), index).first;
  }
  return it->second;
}

void EfficiencyRecorder::on_pod(const SimEvent& e, const Cluster& cluster) {
  const Pod& pod = cluster.pod(e.pod);
  if (e.kind == EventKind::PodScheduled) {
    if (running_.contains(pod.id) || pod.spec == nullptr) return;
    if (cluster.workloads().at(pod.workload).kind == WorkloadKind::DaemonSet) return;
    // Step 2 needs the pod's node billed: a pod on a node nobody pays for is no demand here.
    if (!nodes_.contains(e.node)) return;
    const Node& node = cluster.node(e.node);
    const std::uint32_t k = class_of(pod);
    // Step 2's widening: the kind and room of the node the pod is on are always allowed.
    DemandClass& c = classes_[k];
    const std::uint32_t kind = kind_of(node);
    const auto at = std::lower_bound(c.kinds.begin(), c.kinds.end(), kind);
    if (at == c.kinds.end() || *at != kind) {
      c.kinds.insert(at, kind);
      ++kinds_added_;
      ++terms_epoch_;
    }
    if (kinds_.widen_room(kind_type(kind), node.allocatable - node.daemon_overhead)) ++terms_epoch_;
    count(c, e.time, +1);
    running_.emplace(pod.id, k);
  } else if (is_exit(e.kind)) {
    auto it = running_.find(pod.id);
    if (it == running_.end()) return;
    count(classes_[it->second], e.time, -1);
    running_.erase(it);
  } else {
    return;
  }
  auto a = nodes_.find(e.node);
  if (a == nodes_.end()) return;
  credit(a->second, e.time);
  retake(a->second, cluster.node(e.node), cluster);
}

// The gap's parts -----------------------------------------------------------------------------

void EfficiencyRecorder::open_node(const Node& node, SimTime now) {
  NodeAccount a{.since = now, .kind = kind_of(node)};
  nodes_[node.id] = a;
  billed_.push_back(node.id);
  // A node billed below its kind's price this cell lowers the kind's least price (step 2).
  NodeAccount& placed = nodes_.at(node.id);
  placed.rate = cloud_.node_pricing().instance_per_hour(node);
  lower_price(placed.kind, placed.rate);
}

void EfficiencyRecorder::credit(NodeAccount& a, SimTime now) {
  if (now <= a.since) return;
  const double hours = to_hours(now - a.since);
  const double usd = a.rate * hours;
  a.since = now;
  a.billed_usd += usd;
  accounted_usd_ += usd;
  if (!a.ready) {
    parts_.startup_usd += usd;
  } else if (!a.has_pods) {
    parts_.idle_usd += usd;
  } else {
    used_usd_ += usd * a.used;
    parts_.fragmentation_usd += usd * (1.0 - a.used);
    parts_.capacity_type_usd += a.spot_saving * hours;
  }
}

void EfficiencyRecorder::retake(NodeAccount& a, const Node& node, const Cluster& cluster) {
  a.rate = cloud_.node_pricing().instance_per_hour(node);
  lower_price(a.kind, a.rate);
  a.has_pods = false;
  a.used = 0.0;
  bool spot_allowed = true;
  const std::int64_t node_gpus = node.allocatable.gpus();
  for (PodId id : node.pods) {
    const Pod& pod = cluster.pod(id);
    auto run = running_.find(id);
    if (run == running_.end()) continue;  // a DaemonSet's, or one the recorder did not see
    a.has_pods = true;
    const Resources& req = pod.spec->requests;
    a.used += node_gpus > 0 ? ratio(req.gpus(), node_gpus)
                            : 0.5 * (ratio(req.cpu_millis(), node.allocatable.cpu_millis()) +
                                     ratio(req.memory_bytes(), node.allocatable.memory_bytes()));
    const auto& allowed = classes_[run->second].kinds;
    spot_allowed &= std::binary_search(allowed.begin(), allowed.end(),
                                       node_kind(kind_type(a.kind), CapacityType::Spot));
  }
  a.used = std::min(a.used, 1.0);
  a.spot_saving = 0.0;
  if (a.has_pods && spot_allowed && node.capacity_type == CapacityType::OnDemand) {
    const auto spot =
        kinds_.catalog().find_offering(kind_type(a.kind), node.zone, CapacityType::Spot);
    if (spot && offering_open_[*spot])
      a.spot_saving = std::max(0.0, (a.rate - offering_price_[*spot]) * a.used);
  }
}

void EfficiencyRecorder::close_node(const Node& node, SimTime now) {
  auto it = nodes_.find(node.id);
  if (it == nodes_.end()) return;
  NodeAccount& a = it->second;
  credit(a, std::max(a.since, std::min(now, node.billing_stopped_at)));
  const SimDuration lived =
      std::max(a.since, std::min(now, node.billing_stopped_at)) - node.billed_from;
  if (lived < kBillingMinimum) {
    const double usd = a.rate * to_hours(kBillingMinimum - lived);
    parts_.billing_minimum_usd += usd;
    accounted_usd_ += usd;
  }
  billed_.erase(std::find(billed_.begin(), billed_.end(), node.id));
  nodes_.erase(it);
}

// Events ------------------------------------------------------------------------------------

void EfficiencyRecorder::on_offering(const SimEvent& e, const Cluster& cluster) {
  const auto type = kinds_.catalog().index_of(e.instance_type);
  if (!type) return;
  const auto g =
      kinds_.catalog().find_offering(static_cast<std::uint32_t>(*type), e.zone, e.capacity_type);
  // A reservation's price event is its end (Ec2Cloud): its nodes are billed anew below.
  const bool reservation_ended =
      !g && e.capacity_type == CapacityType::Reserved && e.kind == EventKind::SpotPriceChanged;
  if (!g && !reservation_ended) return;
  if (reservation_ended) {
    // Nothing to reprice: reserved kinds keep Karpenter's near-zero price.
  } else if (e.kind == EventKind::CapacityChanged) {
    offering_open_[*g] = e.capacity != 0;
  } else if (e.kind == EventKind::SpotPriceChanged) {
    offering_price_[*g] = e.price;
    const std::uint32_t kind = node_kind(static_cast<std::uint32_t>(*type), e.capacity_type);
    const double least_before = kind_least_[kind];
    const bool was_lowered = least_before != kind_now_[kind];
    kind_now_[kind] = kind_price_now(kind);
    // The cell's least price: the lower of what it was and the new price in force; a kind
    // whose least differs from its price in force is reset at the cell's end.
    kind_least_[kind] = std::min(least_before, kind_now_[kind]);
    if (kind_least_[kind] != least_before) ++terms_epoch_;
    if (!was_lowered && kind_least_[kind] != kind_now_[kind]) lowered_.push_back(kind);
  } else {
    return;
  }
  // The offering's nodes are billed at its price from now on; an on-demand node's spot saving
  // follows its spot twin's price and capacity.
  for (NodeId id : billed_) {
    const Node& node = cluster.node(id);
    if (node.instance_type != e.instance_type || node.zone != e.zone) continue;
    NodeAccount& a = nodes_.at(id);
    credit(a, e.time);
    retake(a, node, cluster);
  }
}

void EfficiencyRecorder::on_event(const SimEvent& e, const Cluster& cluster) {
  const Stopwatch watch(compute_seconds_);
  advance(e.time, cluster);
  switch (subject_of(e.kind)) {
    case EventSubject::Pod:
      on_pod(e, cluster);
      break;
    case EventSubject::Node:
      if (e.kind == EventKind::NodeLaunched) {
        open_node(cluster.node(e.node), e.time);
      } else if (e.kind == EventKind::NodeReady) {
        auto a = nodes_.find(e.node);
        if (a != nodes_.end()) {
          credit(a->second, e.time);
          a->second.ready = true;
        }
      } else if (e.kind == EventKind::NodeTerminated) {
        close_node(cluster.node(e.node), e.time);
      }
      break;
    case EventSubject::Offering:
      on_offering(e, cluster);
      break;
    default:
      break;
  }
}

void EfficiencyRecorder::on_end(SimTime end, const Cluster& cluster) {
  const Stopwatch watch(compute_seconds_);
  advance(end, cluster);
  if (end > cell_start_) close_cell(end, cluster);
  const std::vector<NodeId> open = billed_;
  for (NodeId id : open) close_node(cluster.node(id), end);
}

EfficiencyResult EfficiencyRecorder::result(double actual_usd) const {
  EfficiencyResult r{.actual_usd = actual_usd,
                     .fluid_usd = fluid_usd_,
                     .packing_usd = packing_usd_,
                     .parts = parts_,
                     .accounted_usd = accounted_usd_,
                     .kinds_added = kinds_added_,
                     .fluid_seconds = compute_seconds_ - packing_seconds_,
                     .packing_seconds = packing_seconds_};
  r.lower_bound_usd = std::max(fluid_usd_, packing_usd_);
  r.gap_usd = actual_usd - r.lower_bound_usd;
  r.gap_share = actual_usd > 0 ? r.gap_usd / actual_usd : 0.0;
  // The rest: what the pods' share of their nodes cost over the bound, less what spot would
  // have saved; with the billed parts it adds up to the gap (and absorbs rounding).
  r.parts.type_choice_usd = r.gap_usd - r.parts.idle_usd - r.parts.fragmentation_usd -
                            r.parts.startup_usd - r.parts.billing_minimum_usd -
                            r.parts.capacity_type_usd;
  return r;
}

}  // namespace fleetsim
