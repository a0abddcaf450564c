#include "fleetsim/cloudprovider/aws/sim_cloud.hpp"

#include <algorithm>

namespace fleetsim {

SimCloud::SimCloud(Simulation& sim, Cluster& cluster, ClusterBus& bus, const SchedulingContext& context)
    : sim_(sim),
      cluster_(cluster),
      bus_(bus),
      context_(&context),
      unavailable_until_(context.offering_count(), kSimStart),
      running_(context.offering_count(), 0),
      usable_(context.offering_count(), 1) {}

std::uint32_t SimCloud::global_offering(const Node& n) const {
  const InstanceType& t = context_->catalog().types()[n.type];
  for (std::size_t i = 0; i < t.offerings.size(); ++i)
    if (t.offerings[i].zone == n.zone && t.offerings[i].capacity_type == n.capacity_type)
      return context_->offering_index(n.type, i);
  FLEETSIM_ASSERT(false);
  return 0;
}

std::span<const std::uint8_t> SimCloud::usable_offerings() {
  const SimTime now = sim_.now();
  for (std::size_t g = 0; g < usable_.size(); ++g) usable_[g] = unavailable_until_[g] <= now;
  return usable_;
}

void SimCloud::mark_unavailable(std::uint32_t global_offering) {
  unavailable_until_[global_offering] = sim_.now() + kUnavailableOfferingTtl;
}

std::optional<NodeId> SimCloud::launch(Node node, std::span<const LaunchCandidate> candidates, const NodeLatency& latency) {
  const auto& types = context_->catalog().types();
  for (const LaunchCandidate& c : candidates) {
    std::uint32_t g = context_->offering_index(c.type, c.offering);
    const Offering& o = types[c.type].offerings[c.offering];
    if (unavailable_until_[g] > sim_.now()) continue;
    if (o.capacity && running_[g] >= *o.capacity) {
      mark_unavailable(g);  // InsufficientInstanceCapacity
      continue;
    }
    ++running_[g];
    node.type = c.type;
    node.instance_type = types[c.type].name;
    node.zone = o.zone;
    node.capacity_type = o.capacity_type;
    node.price_per_hour = o.price_per_hour;
    node.allocatable = context_->pools()[node.pool].allocatable[c.type];
    node.daemon_overhead = context_->daemon_overhead(node.pool, c.type);
    node.phase = NodePhase::Launching;
    node.created = sim_.now();
    node.labels.add(std::string(label::kInstanceType), Requirement::single(node.instance_type));
    node.labels.add(std::string(label::kZone), Requirement::single(node.zone));
    node.labels.add(std::string(label::kCapacityType), Requirement::single(std::string(to_string(node.capacity_type))));
    node.labels.add(types[c.type].requirements);
    NodeId id = cluster_.add_node(std::move(node));
    latency_.resize(cluster_.nodes().size());
    latency_[id] = latency;
    sim_.schedule_after(latency.launch, Phase::CloudAndNodes, *this, tag(id, Step::Launched));
    return id;
  }
  return std::nullopt;
}

void SimCloud::delete_node(NodeId id, std::string_view reason, SimDuration drain) {
  Node& n = cluster_.node(id);
  if (!n.is_live()) return;
  n.phase = NodePhase::Deleting;
  n.deleting_at = sim_.now();
  n.terminates_at = sim_.now() + drain;
  n.termination_reason = std::string(reason);
  bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::NodeDeleting, .node = id, .reason = reason});
  // Evict in bind order: each pod goes back to its controller, which replaces it.
  std::vector<PodId> bound = n.pods;
  for (PodId p : bound) {
    cluster_.unbind(p, sim_.now());
    cluster_.pod(p).phase = PodPhase::Deleted;
    bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::PodEvicted, .node = id, .pod = p,
                       .workload = cluster_.pod(p).workload, .reason = reason});
    bus_.pod_evicted(p, id);
  }
  for (PodId p : cluster_.pending_pods())
    if (cluster_.pod(p).nominated == id) cluster_.pod(p).nominated = kNoNode;
  sim_.schedule_after(drain, Phase::CloudAndNodes, *this, tag(id, Step::Terminate));
  bus_.capacity_changed();
}

void SimCloud::interrupt_spot(NodeId id) {
  Node& n = cluster_.node(id);
  if (!n.is_live() || n.capacity_type != CapacityType::Spot) return;
  bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::SpotInterruptionNotice, .node = id});
  mark_unavailable(global_offering(n));
  // Pods get their termination grace period, but EC2 stops the instance at the two-minute mark.
  SimDuration drain{0};
  for (PodId p : n.pods) drain = std::max(drain, cluster_.pod(p).spec->termination_grace);
  delete_node(id, "spot_interruption", std::min(drain, kSpotInterruptionWarning));
}

void SimCloud::on_event(SimTime now, std::uint64_t t) {
  auto id = static_cast<NodeId>(t >> 8);
  auto step = static_cast<Step>(t & 0xff);
  Node& n = cluster_.node(id);
  if (step == Step::Terminate) {
    cluster_.mark_terminated(id);
    n.terminated_at = now;
    --running_[global_offering(n)];
    bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeTerminated, .node = id, .reason = n.termination_reason});
    return;
  }
  if (!n.is_live()) return;  // deleted while starting up
  switch (step) {
    case Step::Launched:
      n.phase = NodePhase::Launched;
      n.billed_from = now;
      bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeLaunched, .node = id});
      sim_.schedule_after(latency_[id].registration, Phase::CloudAndNodes, *this, tag(id, Step::Registered));
      break;
    case Step::Registered:
      n.phase = NodePhase::Registered;
      bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeRegistered, .node = id});
      sim_.schedule_after(latency_[id].initialization, Phase::CloudAndNodes, *this, tag(id, Step::Initialized));
      break;
    case Step::Initialized:
      n.phase = NodePhase::Initialized;
      n.initialized = true;
      n.initialized_at = now;
      n.last_pod_event = now;  // consolidateAfter counts from initialization when no pod came
      bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeReady, .node = id});
      bus_.capacity_changed();
      break;
    case Step::Terminate: break;
  }
}

}  // namespace fleetsim
