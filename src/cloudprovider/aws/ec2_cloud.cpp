#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"

#include <algorithm>

#include "fleetsim/cloudprovider/aws/launch_filters.hpp"

namespace fleetsim {

namespace {

// Whether the claim allows spot and one of its types is sold as spot.
bool offers_spot(const Requirements& requirements, std::span<const InstanceTypeOption> types,
                 const Catalog& catalog) {
  const Requirement* capacity_type = requirements.get(label::kCapacityType);
  if (capacity_type != nullptr && !capacity_type->allows(to_string(CapacityType::Spot))) {
    return false;
  }
  return std::any_of(types.begin(), types.end(), [&](const InstanceTypeOption& option) {
    const auto& offerings = catalog.types()[option.type].offerings;
    return std::any_of(offerings.begin(), offerings.end(),
                       [](const Offering& o) { return o.capacity_type == CapacityType::Spot; });
  });
}

}  // namespace

Ec2Cloud::Ec2Cloud(Simulation& sim, Cluster& cluster, ClusterBus& bus, const Catalog& catalog,
                   std::vector<NodeLatency> latency_by_type, std::vector<double> fee_by_type)
    : sim_(sim),
      cluster_(cluster),
      bus_(bus),
      catalog_(catalog),
      latency_by_type_(std::move(latency_by_type)),
      startup_rng_(sim.rng("node-startup")),
      prices_(catalog, std::move(fee_by_type)),
      sizing_(catalog),
      unavailable_until_(catalog.offering_count(), kSimStart),
      running_(catalog.offering_count(), 0),
      usable_(catalog.offering_count(), 1) {
  FLEETSIM_ASSERT(latency_by_type_.size() == catalog.types().size());
  capacity_.reserve(catalog.offering_count());
  for (const InstanceType& t : catalog.types())
    for (const Offering& o : t.offerings) capacity_.push_back(o.capacity);
  schedule_reservation_ends();
}

SimTime Ec2Cloud::reclaim_time(const Reservation& r) {
  if (r.type == ReservationType::CapacityBlock) return r.end - kCapacityBlockReclaimBefore;
  return r.interruptible ? r.end : kNever;
}

void Ec2Cloud::schedule_reservation_ends() {
  const auto& reservations = catalog_.reservations();
  for (std::size_t r = 0; r < reservations.size(); ++r) {
    const Reservation& res = reservations[r];
    const auto subject = static_cast<std::uint32_t>(r);
    // A Capacity Block's instances are deleted when it starts expiring, 10 minutes before EC2
    // reclaims them (Karpenter AWS capacityreservation/expiration); an interruptible
    // reservation's get the 2-minute notice of the spot path before it takes them back at its
    // end; an ODCR's run on as on-demand instances after its end.
    if (res.type == ReservationType::CapacityBlock) {
      sim_.schedule_at(std::max(kSimStart, res.end - kCapacityBlockExpiringBefore),
                       Phase::CloudAndNodes, *this, Tag{Step::ReservationNotice, subject}.pack());
    } else if (res.interruptible) {
      sim_.schedule_at(std::max(kSimStart, res.end - kSpotInterruptionWarning),
                       Phase::CloudAndNodes, *this, Tag{Step::ReservationNotice, subject}.pack());
    } else {
      sim_.schedule_at(res.end, Phase::CloudAndNodes, *this,
                       Tag{Step::ReservationEnded, subject}.pack());
    }
  }
}

void Ec2Cloud::on_reservation_step(Step step, std::size_t r) {
  const Reservation& res = catalog_.reservations()[r];
  const auto index = static_cast<std::int32_t>(r);
  if (step == Step::ReservationNotice) {
    // Copy: the listener deletes nodes.
    const std::vector<NodeId> active = cluster_.active_nodes();
    for (NodeId id : active) {
      const Node& n = cluster_.node(id);
      if (!n.is_live() || n.reservation != index) continue;
      notify(CloudNotice{.kind = CloudNoticeKind::CapacityReservationInterruption,
                         .node = id,
                         .terminates_at = std::max(sim_.now(), reclaim_time(res))});
    }
    return;
  }
  // ReservationEnded: its instances are billed as on-demand ones from now on.
  prices_.end_reservation_cover(r);
  const std::uint32_t g = catalog_.reservation_offering(r);
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::SpotPriceChanged,
                     .instance_type = res.instance_type,
                     .zone = res.zone,
                     .capacity_type = CapacityType::Reserved,
                     .price = prices_.offering_price(g)});
}

std::span<const std::uint8_t> Ec2Cloud::usable_offerings() {
  const SimTime now = sim_.now();
  if (!usable_stale_ && usable_from_ <= now && now < usable_until_) return usable_;
  SimTime until = kNever;
  const auto edge = [&](SimTime t) {
    if (t > now) until = std::min(until, t);
  };
  for (std::size_t g = 0; g < usable_.size(); ++g) {
    usable_[g] = unavailable_until_[g] <= now;
    edge(unavailable_until_[g]);
  }
  const auto& reservations = catalog_.reservations();
  for (std::size_t r = 0; r < reservations.size(); ++r) {
    const Reservation& res = reservations[r];
    const std::uint32_t g = catalog_.reservation_offering(r);
    if (!reservation_open(res, now) || running_[g] >= res.count) usable_[g] = 0;
    edge(res.start);
    edge(res.end);
    edge(res.end - kCapacityBlockExpiringBefore);
  }
  usable_stale_ = false;
  usable_from_ = now;
  usable_until_ = until;
  ++usable_revision_;
  return usable_;
}

std::span<const std::int64_t> Ec2Cloud::reservation_remaining() {
  const SimTime now = sim_.now();
  const auto& reservations = catalog_.reservations();
  reservation_remaining_.resize(reservations.size());
  for (std::size_t r = 0; r < reservations.size(); ++r) {
    const std::int64_t running = running_[catalog_.reservation_offering(r)];
    reservation_remaining_[r] = reservation_open(reservations[r], now)
                                    ? std::max<std::int64_t>(reservations[r].count - running, 0)
                                    : 0;
  }
  return reservation_remaining_;
}

void Ec2Cloud::mark_unavailable(std::uint32_t global_offering) {
  unavailable_until_[global_offering] = sim_.now() + kUnavailableOfferingTtl;
  usable_stale_ = true;
}

std::optional<NodeId> Ec2Cloud::launch(LaunchRequest request) {
  std::span<const std::uint8_t> usable = usable_offerings();
  // Only the reservations the NodeClass selects (LaunchRequest::offering_allowed).
  std::vector<std::uint8_t> allowed;
  if (!request.offering_allowed.empty()) {
    allowed.assign(usable.begin(), usable.end());
    for (std::size_t g = 0; g < allowed.size(); ++g) allowed[g] &= request.offering_allowed[g];
    usable = allowed;
  }
  const LaunchPlan plan =
      plan_launch(prices_, request.requirements, request.types, usable, request.price_by_offering);
  for (const LaunchCandidate& c : plan.candidates) {
    const std::uint32_t g = catalog_.offering_index(c.type, c.offering);
    const Offering& o = catalog_.offering(g);
    if (usable[g] == 0) continue;
    if (capacity_[g] && running_[g] >= *capacity_[g]) {
      mark_unavailable(g);  // InsufficientInstanceCapacity
      continue;
    }
    request.node.spot_fallback = o.capacity_type == CapacityType::OnDemand &&
                                 offers_spot(request.requirements, request.types, catalog_);
    if (!request.price_by_offering.empty())
      request.node.price_overlay = request.price_by_offering[g];
    const InstanceTypeOption& option = request.types[c.option];
    return start(std::move(request.node), g, option.allocatable, option.daemon_overhead,
                 option.gpu_setup);
  }
  return std::nullopt;
}

std::optional<NodeId> Ec2Cloud::launch_first(Node node, std::span<const OfferingChoice> choices) {
  for (const OfferingChoice& c : choices) {
    if (capacity_[c.offering] && running_[c.offering] >= *capacity_[c.offering]) continue;
    return start(std::move(node), c.offering, c.allocatable, c.daemon_overhead, c.gpu_setup);
  }
  return std::nullopt;
}

NodeId Ec2Cloud::start(Node node, std::uint32_t g, const Resources& allocatable,
                       const Resources& daemon_overhead, const NodeGpuSetup& gpu_setup) {
  ++running_[g];
  usable_stale_ = true;
  const std::uint32_t type = catalog_.type_of_offering(g);
  launch_on_offering(node, catalog_, g,
                     adjusted_price(prices_.offering_price(g), node.price_overlay),
                     {.type = type,
                      .allocatable = allocatable,
                      .daemon_overhead = daemon_overhead,
                      .gpu_setup = gpu_setup},
                     sim_.now());
  const NodeId id = cluster_.add_node(std::move(node));
  if (latency_by_node_.size() <= id) latency_by_node_.resize(id + 1);
  latency_by_node_[id] = draw_node_latency(latency_by_type_[type], startup_rng_.normal());
  sim_.schedule_after(latency_by_node_[id].launch, Phase::CloudAndNodes, *this,
                      Tag{Step::Launched, id}.pack());
  return id;
}

void Ec2Cloud::set_capacity(std::uint32_t g, std::optional<std::int64_t> capacity) {
  capacity_[g] = capacity;
  const Offering& o = catalog_.offering(g);
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::CapacityChanged,
                     .instance_type = catalog_.types()[catalog_.type_of_offering(g)].name,
                     .zone = o.zone,
                     .capacity_type = o.capacity_type,
                     .capacity = capacity});
}

void Ec2Cloud::set_price(std::uint32_t g, double price) {
  prices_.set_offering_price(g, price);
  for (NodeId id : cluster_.active_nodes())
    if (offering_of(catalog_, cluster_.node(id)) == g)
      cluster_.set_node_price(id, adjusted_price(price, cluster_.node(id).price_overlay));
  const Offering& o = catalog_.offering(g);
  bus_.emit(SimEvent{.time = sim_.now(),
                     .kind = EventKind::SpotPriceChanged,
                     .instance_type = catalog_.types()[catalog_.type_of_offering(g)].name,
                     .zone = o.zone,
                     .capacity_type = o.capacity_type,
                     .price = price});
}

void Ec2Cloud::terminate(NodeId node, SimTime at) {
  sim_.schedule_at(std::max(at, sim_.now()), Phase::CloudAndNodes, *this,
                   Tag{Step::Terminate, node}.pack());
}

void Ec2Cloud::interrupt_spot(NodeId id) {
  const Node& n = cluster_.node(id);
  if (!n.is_live() || n.capacity_type != CapacityType::Spot) return;
  bus_.emit(SimEvent{.time = sim_.now(), .kind = EventKind::SpotInterruptionNotice, .node = id});
  // Karpenter (the listener) drains within the two minutes, so the instance is always gone by
  // the time EC2 would stop it: the stop itself needs no event of its own.
  notify(CloudNotice{.kind = CloudNoticeKind::SpotInterruption,
                     .node = id,
                     .terminates_at = sim_.now() + kSpotInterruptionWarning});
}

void Ec2Cloud::on_event(SimTime now, std::uint64_t t) {
  const Tag tag = Tag::unpack(t);
  const Step step = tag.kind;
  if (step == Step::ReservationNotice || step == Step::ReservationEnded) {
    on_reservation_step(step, tag.subject);
    return;
  }
  const NodeId id = tag.subject;
  const Node& n = cluster_.node(id);
  if (step == Step::Terminate) {
    cluster_.node_terminated(id, now);
    --running_[offering_of(catalog_, n)];
    usable_stale_ = true;
    bus_.emit(SimEvent{.time = now,
                       .kind = EventKind::NodeTerminated,
                       .node = id,
                       .reason = n.termination_reason});
    return;
  }
  if (!n.is_live()) return;  // deleted while starting up
  const NodeLatency& latency = latency_by_node_[id];
  switch (step) {
    case Step::Launched:
      cluster_.node_launched(id, now);
      bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeLaunched, .node = id});
      sim_.schedule_after(latency.registration, Phase::CloudAndNodes, *this,
                          Tag{Step::Registered, id}.pack());
      break;
    case Step::Registered:
      cluster_.node_registered(id);
      bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeRegistered, .node = id});
      // A MIG layout holds the GPUs back until the MIG manager has applied it.
      sim_.schedule_after(latency.initialization + n.gpu_setup.delay, Phase::CloudAndNodes, *this,
                          Tag{Step::Initialized, id}.pack());
      break;
    case Step::Initialized:
      cluster_.configure_gpus(id);
      cluster_.node_initialized(id, now);
      bus_.emit(SimEvent{.time = now, .kind = EventKind::NodeReady, .node = id});
      bus_.capacity_changed();
      break;
    case Step::Terminate:
    case Step::ReservationNotice:
    case Step::ReservationEnded:
      break;
  }
}

}  // namespace fleetsim
