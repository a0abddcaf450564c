#include "fleetsim/runner/run_recorder.hpp"

#include <algorithm>

#include "fleetsim/core/error.hpp"
#include "fleetsim/disruption/disruption_decision.hpp"

namespace fleetsim {

namespace {

// The deletion a node event or an eviction names; None when it names none.
NodeDeletionReason deletion_reason(const SimEvent& e) {
  const auto* reason = std::get_if<NodeDeletionReason>(&e.reason);
  return reason != nullptr ? *reason : NodeDeletionReason::None;
}

double safe_ratio(double num, double den) { return den > 0.0 ? num / den : 0.0; }

// MIG instances or shared GPUs' replicas: offered, held and busy, in hours, and their cost.
GpuResult::Slices slice_result(const CostLedger::SliceSeconds& s) {
  const double offered = s.offered / kSecondsPerHour;
  const double allocated = s.allocated / kSecondsPerHour;
  const double busy = s.busy / kSecondsPerHour;
  return {.offered_slice_hours = offered,
          .allocated_slice_hours = allocated,
          .busy_slice_hours = busy,
          .allocation_ratio = safe_ratio(allocated, offered),
          .utilization = safe_ratio(busy, offered),
          .usd = s.usd,
          .usd_per_slice_hour = safe_ratio(s.usd, offered),
          .usd_per_busy_slice_hour = busy > 0 ? std::optional(s.usd / busy) : std::nullopt};
}

}  // namespace

RunRecorder::RunRecorder(RunInfo info, const NodePricing& pricing,
                         std::vector<TimeseriesSink*> timeseries)
    : info_(std::move(info)),
      pricing_(pricing),
      timeseries_(std::move(timeseries)),
      pool_counts_(info_.nodepools.size(), 0),
      pool_cost_rates_(info_.nodepools.size(), 0.0),
      ledger_(pricing),
      gangs_(pricing) {
  ledger_.track_reservations(info_.reservations);
  for (TimeseriesSink* sink : timeseries_) sink->on_columns(info_.nodepools, info_.services);
}

RunRecorder::PodTrack& RunRecorder::track(PodId id) { return pods_[id]; }

const WorkloadRecord& RunRecorder::workload_of(const Pod& pod, const Cluster& cluster) const {
  return cluster.workloads().at(pod.workload);
}

// Keeps the pending and running counts in step with the cluster: the state after any pod event
// is read from the pod itself, whatever the world did to it (requeue, deletion, completion).
void RunRecorder::sync_state(const Pod& pod) {
  PodTrack& t = track(pod.id);
  PodState now = PodState::Done;
  if (pod.phase == PodPhase::Pending) {
    now = PodState::Pending;
  } else if (pod.phase == PodPhase::Running && pod.node != kNoNode) {
    now = PodState::Running;
  }
  if (t.state == PodState::Pending) --pods_pending_;
  if (t.state == PodState::Running) --pods_running_;
  if (now == PodState::Pending) ++pods_pending_;
  if (now == PodState::Running) ++pods_running_;
  t.state = now;
  // A pod that is done and counted needs no track: memory stays flat in the pods a run sees.
  if (now == PodState::Done && t.pending_sampled) pods_.erase(pod.id);
}

void RunRecorder::sample_pending(PodTrack& t, SimDuration pending) {
  if (t.pending_sampled) return;
  t.pending_sampled = true;
  pending_s_.add(to_seconds(pending));
}

void RunRecorder::on_event(const SimEvent& e, const Cluster& cluster) {
  FLEETSIM_ASSERT(!ended_);
  switch (subject_of(e.kind)) {
    case EventSubject::Node:
      on_node_event(e, cluster);
      break;
    case EventSubject::Pod:
      on_pod_event(e, cluster);
      break;
    case EventSubject::Workload:
      if (e.kind == EventKind::PodGroupTimeout) gangs_.timed_out(e.pods);
      if (e.kind == EventKind::WorkloadCompleted &&
          cluster.workloads().at(e.workload).kind == WorkloadKind::Job)
        ++jobs_completed_;
      break;
    case EventSubject::Command: {
      const DisruptionDecision& d = *e.decision;
      ++disruption_.commands_by_method[std::string(d.method)];
      disruption_.replacements += static_cast<std::int64_t>(d.replacements.size());
      disruption_.claimed_savings_usd_per_hour += d.savings_per_hour;
      break;
    }
    case EventSubject::NodeGroup:
      break;
    case EventSubject::Offering:
      if (e.kind == EventKind::CapacityChanged) {
        ++spot_.capacity_changes;
        break;
      }
      // The offering's running instances are billed at the new price from now on.
      ++spot_.price_changes;
      for (NodeId id : ledger_.billed_nodes()) {
        const Node& node = cluster.node(id);
        if (node.instance_type == e.instance_type && node.zone == e.zone &&
            node.capacity_type == e.capacity_type)
          ledger_.rebalance(node, cluster, e.time);
      }
      break;
  }
}

void RunRecorder::on_node_event(const SimEvent& e, const Cluster& cluster) {
  switch (e.kind) {
    case EventKind::NodeLaunched: {
      const Node& node = cluster.node(e.node);
      ++nodes_launched_;
      if (node.spot_fallback) ++spot_.launches_fell_back_to_on_demand;
      ledger_.open(node, e.time);
      nodes_peak_ = std::max(nodes_peak_, static_cast<std::int64_t>(ledger_.billed_nodes().size()));
      if (node.id >= pool_column_.size()) pool_column_.resize(node.id + 1, -1);
      const std::string& name = node.owner_name();
      const auto pool = std::find(info_.nodepools.begin(), info_.nodepools.end(), name);
      pool_column_[node.id] = pool == info_.nodepools.end()
                                  ? -1
                                  : static_cast<std::int32_t>(pool - info_.nodepools.begin());
      break;
    }
    case EventKind::NodeTerminated: {
      const Node& node = cluster.node(e.node);
      // Only nodes that ran count as terminated: launched = terminated + billed at the end.
      gangs_.gone(node, std::min(e.time, node.billing_stopped_at));
      if (!ledger_.close(node, e.time)) break;
      const NodeDeletionReason reason = deletion_reason(e);
      ++terminated_by_reason_[reason != NodeDeletionReason::None ? reason
                                                                 : node.termination_reason];
      break;
    }
    case EventKind::NodeDeleting:
      ++disruption_.nodes_by_reason[deletion_reason(e)];
      break;
    case EventKind::LaunchFailed:
      ++launch_failures_;
      break;
    case EventKind::SpotInterruptionNotice: {
      ++spot_interruption_notices_;
      const Node& node = cluster.node(e.node);
      ++spot_.notices_by_offering[node.instance_type + " " + node.zone];
      break;
    }
    case EventKind::SpotRebalanceRecommendation:
      ++spot_.rebalance_recommendations;
      break;
    case EventKind::NodeBufferPods:
      ledger_.set_buffer(cluster.node(e.node), e.to > 0, cluster, e.time);
      break;
    default:
      break;
  }
}

// GPU time a Job redoes, and its price: the node's hourly price per GPU, as paid.
const JobCheckpoints& RunRecorder::checkpoints() const {
  static const JobCheckpoints kNone;
  return world_ != nullptr ? world_->job_checkpoints() : kNone;
}

void RunRecorder::add_lost_work(const Pod& pod, const Node& node, SimDuration lost,
                                NodeDeletionReason reason) {
  const auto gpus = static_cast<double>(pod.spec->requests.gpus());
  if (gpus == 0 || lost <= SimDuration{0}) return;
  const double gpu_seconds = gpus * to_seconds(lost);
  const auto node_gpus = static_cast<double>(node.allocatable.gpus());
  const double usd =
      node_gpus > 0 ? gpu_seconds / kSecondsPerHour * node.price_per_hour / node_gpus : 0.0;
  lost_gpu_seconds_ += gpu_seconds;
  rework_usd_ += usd;
  if (reason == NodeDeletionReason::SpotInterruption) {
    spot_.lost_gpu_hours += gpu_seconds / kSecondsPerHour;
    spot_.rework_usd += usd;
  }
}

void RunRecorder::on_pod_event(const SimEvent& e, const Cluster& cluster) {
  const Pod& pod = cluster.pod(e.pod);
  PodTrack& t = track(pod.id);
  switch (e.kind) {
    case EventKind::PodCreated:
      ++pods_created_;
      break;
    case EventKind::PodScheduled:
      FLEETSIM_ASSERT(e.node != kNoNode);
      // Pending time runs from creation to the first binding only; a requeued pod's second
      // wait is not a new sample.
      sample_pending(t, e.time - pod.created);
      ledger_.rebalance(cluster.node(e.node), cluster, e.time);
      gangs_.bound(cluster.node(e.node), e.time);
      break;
    case EventKind::PodWaitingOnPermit:
      gangs_.waiting(cluster.node(e.node), e.time);
      break;
    case EventKind::PodCompleted:
      if (workload_of(pod, cluster).kind == WorkloadKind::Job) {
        ++job_pods_completed_;
        // Reloading a checkpoint redid nothing useful: it is part of what the interruption cost.
        if (e.node != kNoNode)
          add_lost_work(pod, cluster.node(e.node), checkpoints().restart_overhead(pod.id),
                        NodeDeletionReason::None);
      }
      if (e.node != kNoNode) ledger_.rebalance(cluster.node(e.node), cluster, e.time);
      break;
    case EventKind::PodEvicted:
      ++pods_evicted_;
      ++disruption_.pods_evicted_by_reason[deletion_reason(e)];
      if (e.node != kNoNode) {
        ledger_.rebalance(cluster.node(e.node), cluster, e.time);
        // An evicted Job pod loses what it ran since it was bound, less the work it saved in
        // checkpoints (none without them).
        if (workload_of(pod, cluster).kind == WorkloadKind::Job) {
          const SimDuration kept =
              checkpoints().saved_work(pod, e.time) - checkpoints().resumed_from(pod.id);
          add_lost_work(pod, cluster.node(e.node), e.time - pod.bound_at - kept,
                        deletion_reason(e));
        }
      } else {
        sample_pending(t, e.time - pod.created);
      }
      break;
    case EventKind::PodPreempted:
      ++pods_preempted_;
      // A preempted Job pod loses what it ran since it was bound, less its checkpoints, as an
      // evicted one does.
      if (workload_of(pod, cluster).kind == WorkloadKind::Job) {
        const SimDuration kept =
            checkpoints().saved_work(pod, e.time) - checkpoints().resumed_from(pod.id);
        add_lost_work(pod, cluster.node(e.node), e.time - pod.bound_at - kept,
                      NodeDeletionReason::None);
      }
      break;
    case EventKind::PodDeleted:
      if (e.node != kNoNode) {
        ledger_.rebalance(cluster.node(e.node), cluster, e.time);
      } else {
        // Deleted while pending (a scale-down): it waited until now.
        sample_pending(t, e.time - pod.created);
      }
      break;
    default:
      break;
  }
  sync_state(pod);
}

void RunRecorder::on_interval(SimTime now, const Cluster& cluster) {
  if (timeseries_.empty()) return;
  TimeseriesRow row{.t = now};
  std::fill(pool_counts_.begin(), pool_counts_.end(), 0);
  std::fill(pool_cost_rates_.begin(), pool_cost_rates_.end(), 0.0);
  for (NodeId id : ledger_.billed_nodes()) {
    const Node& node = cluster.node(id);
    ++row.nodes;
    if (node.capacity_type == CapacityType::OnDemand) ++row.nodes_on_demand;
    if (node.capacity_type == CapacityType::Spot) ++row.nodes_spot;
    // Whole GPUs only, as report.json's gpu section: a MIG node's devices are slices, a shared
    // GPU's are replicas.
    const bool whole = node.gpu_setup.mig.empty() && node.gpu_setup.sharing == GpuSharingKind::None;
    if (whole) row.gpus_provisioned += node.allocatable.gpus();
    for (PodId pid : node.pods) {
      if (!whole) break;
      const Pod& pod = cluster.pod(pid);
      const std::int64_t gpus = pod.spec->requests.gpus();
      row.gpus_allocated += gpus;
      if (busy_while_bound(workload_of(pod, cluster).kind))
        row.gpus_busy += static_cast<double>(gpus);
    }
    const double rate = pricing_.instance_per_hour(node) + pricing_.volumes_per_hour(node) +
                        pricing_.fee_per_hour(node);
    row.cost_rate_usd_per_hour += rate;
    if (id < pool_column_.size() && pool_column_[id] >= 0) {
      ++pool_counts_[static_cast<std::size_t>(pool_column_[id])];
      pool_cost_rates_[static_cast<std::size_t>(pool_column_[id])] += rate;
    }
  }
  row.pods_pending = pods_pending_;
  row.pods_running = pods_running_;
  row.nodes_by_pool = pool_counts_;
  row.cost_rate_by_pool = pool_cost_rates_;
  row.cost_usd_cumulative = ledger_.accrued_usd(now);
  if (world_ != nullptr) {
    row.services = world_->service_rows();
    for (const ServiceIntervalRow& s : row.services) row.gpus_busy += s.busy_gpus;
  }
  for (TimeseriesSink* sink : timeseries_) sink->on_row(row);
}

void RunRecorder::on_end(SimTime end, const Cluster& cluster) {
  FLEETSIM_ASSERT(!ended_);
  ledger_.close_all(cluster, end);
  gangs_.end(cluster, end);

  // Pods still pending count with the time they have waited so far: a lower bound on their
  // pending time, which is the honest figure for a pod the run never placed.
  struct Listed {
    const Pod* pod;
  };
  std::vector<Listed> unschedulable;
  for (auto& [id, t] : pods_) {
    if (t.state != PodState::Pending) continue;
    const Pod& pod = cluster.pod(id);
    ++pods_pending_at_end_;
    sample_pending(t, end - pod.created);
    if (!pod.pending_reason.empty()) unschedulable.push_back({&pod});
  }
  std::sort(unschedulable.begin(), unschedulable.end(), [](const Listed& a, const Listed& b) {
    if (a.pod->name != b.pod->name) return a.pod->name < b.pod->name;
    return a.pod->id < b.pod->id;
  });
  unschedulable_total_ = static_cast<std::int64_t>(unschedulable.size());
  const std::size_t listed = std::min(unschedulable.size(), kMaxUnschedulableListed);
  unschedulable_.reserve(listed);
  for (std::size_t i = 0; i < listed; ++i) {
    const Pod& pod = *unschedulable[i].pod;
    unschedulable_.push_back({pod.name, workload_of(pod, cluster).name, pod.pending_reason});
  }

  // Workloads that share a name share a key: the report speaks in names users wrote.
  cost_by_workload_ = ledger_.by_workload();
  cost_by_workload_[std::string(kUnallocatedKey)] += ledger_.unallocated_usd();

  if (world_ != nullptr) {
    for (const auto& service : world_->services()) {
      const SloTotals& t = service->stats().totals();
      ServiceSummary s{.name = service->name(),
                       .requests = service->stats().requests(),
                       .served = t.served,
                       .dropped = t.dropped,
                       .dropped_in_flight = t.dropped_in_flight,
                       .misses = t.misses,
                       .ttft_misses = t.ttft_misses,
                       .e2e_misses = t.e2e_misses,
                       .e2e_s = t.e2e_s,
                       .ttft_s = t.ttft_s,
                       .tpot_s = t.tpot_s,
                       .queue_s = t.queue_s,
                       .output_tokens = t.output_tokens,
                       .first_arrival = t.first_arrival,
                       .last_completion = t.last_completion,
                       .peak_replicas = service->peak_replicas(),
                       .busy_gpu_seconds = service->busy_gpu_seconds(),
                       .busy_slice_seconds = service->busy_slice_seconds(),
                       .busy_replica_seconds = service->busy_replica_seconds(),
                       .fluid = service->config().simulation == ServingMode::Fluid};
      if (const std::optional<EngineTotals> e = service->engine_totals()) {
        s.engine = SlaResult::Service::Engine{.preemptions = e->preemptions,
                                              .peak_running = e->peak_running,
                                              .kv_cache_peak_share = e->peak_kv_cache_usage};
      }
      ledger_.add_busy_gpu_seconds(s.busy_gpu_seconds);
      for (const auto& [profile, seconds] : s.busy_slice_seconds)
        ledger_.add_busy_slice_seconds(profile, seconds);
      ledger_.add_busy_replica_seconds(s.busy_replica_seconds);
      services_.push_back(std::move(s));
    }
  }
  ended_ = true;
}

RunResult RunRecorder::result(std::uint64_t engine_events) const {
  FLEETSIM_ASSERT(ended_);
  RunResult r;
  r.scenario = info_.scenario;
  r.seed = info_.seed;
  r.start_unix_s = info_.start_unix_s;
  r.duration = info_.duration;

  r.cost.total_usd = ledger_.total_usd();
  r.cost.on_demand_usd = ledger_.instance_usd(CapacityType::OnDemand);
  r.cost.spot_usd = ledger_.instance_usd(CapacityType::Spot);
  r.cost.ebs_usd = ledger_.ebs_usd();
  r.cost.by_nodepool = ledger_.by_nodepool();
  if (info_.node_groups) r.cost.by_nodegroup = ledger_.by_nodegroup();
  if (pricing_.charges_fee()) r.cost.management_fee_usd = ledger_.management_fee_usd();
  r.cost.by_instance_type = ledger_.by_instance_type();
  r.cost.by_capacity_type = ledger_.by_capacity_type();
  r.cost.by_workload = cost_by_workload_;

  const double provisioned = ledger_.provisioned_gpu_seconds() / kSecondsPerHour;
  const double allocated = ledger_.allocated_gpu_seconds() / kSecondsPerHour;
  const double busy = ledger_.busy_gpu_seconds() / kSecondsPerHour;
  r.gpu = {.provisioned_gpu_hours = provisioned,
           .allocated_gpu_hours = allocated,
           .busy_gpu_hours = busy,
           .allocation_ratio = safe_ratio(allocated, provisioned),
           .utilization = safe_ratio(busy, provisioned)};
  if (!ledger_.slice_seconds().empty()) {
    GpuResult::Mig mig{.gpu_hours = ledger_.mig_gpu_seconds() / kSecondsPerHour};
    for (const auto& [profile, s] : ledger_.slice_seconds()) {
      mig.usd += s.usd;
      mig.by_profile[profile] = slice_result(s);
    }
    r.gpu.mig = std::move(mig);
  }
  const CostLedger::SliceSeconds& replicas = ledger_.replica_seconds();
  if (replicas.offered > 0 || replicas.busy > 0) {
    r.gpu.shared = GpuResult::Shared{.gpu_hours = ledger_.shared_gpu_seconds() / kSecondsPerHour,
                                     .usd = replicas.usd,
                                     .replicas = slice_result(replicas)};
  }

  r.sla = sla_result();

  r.pods.created = pods_created_;
  r.pods.evicted = pods_evicted_;
  r.pods.preempted = pods_preempted_;
  r.pods.pending_at_end = pods_pending_at_end_;
  r.pods.pending_seconds = {
      .p50 = pending_s_.quantile(0.50), .p99 = pending_s_.quantile(0.99), .max = pending_s_.max()};
  r.pods.unschedulable = unschedulable_;
  r.pods.unschedulable_total = unschedulable_total_;

  r.jobs = {.completed = jobs_completed_,
            .pods_completed = job_pods_completed_,
            .lost_gpu_hours = lost_gpu_seconds_ / kSecondsPerHour,
            .rework_usd = rework_usd_};

  r.nodes = {.launched = nodes_launched_,
             .peak = nodes_peak_,
             .launch_failures = launch_failures_,
             .spot_interruption_notices = spot_interruption_notices_,
             .terminated_by_reason = terminated_by_reason_};

  r.headroom = {.node_hours = ledger_.headroom_seconds() / kSecondsPerHour,
                .usd = ledger_.headroom_usd()};

  if (info_.gangs) r.gangs = gangs_.totals();

  if (!info_.reservations.empty()) {
    r.reservations = reservations_result();
    r.cost.reservations_usd = r.reservations->usd;
    r.cost.total_usd += r.reservations->usd;
    if (r.reservations->usd != 0.0)
      r.cost.by_workload[std::string(kReservationsKey)] += r.reservations->usd;
  }

  r.disruption = disruption_;
  if (info_.spot_market || spot_interruption_notices_ > 0 || spot_.rebalance_recommendations > 0 ||
      spot_.launches_fell_back_to_on_demand > 0 || spot_.capacity_changes > 0 ||
      spot_.price_changes > 0) {
    r.spot = spot_;
    r.spot->notices = spot_interruption_notices_;
  }
  r.engine.events = engine_events;
  return r;
}

ReservationsResult RunRecorder::reservations_result() const {
  ReservationsResult out;
  const SimTime run_end = kSimStart + info_.duration;
  for (std::size_t i = 0; i < info_.reservations.size(); ++i) {
    const Reservation& res = info_.reservations[i];
    ReservationResult r{.id = res.id,
                        .type = std::string(to_string(res.type)),
                        .instance_type = res.instance_type,
                        .zone = res.zone,
                        .count = res.count,
                        .usd_per_instance_hour = info_.reservation_rates[i]};
    // The part of the window inside the run.
    const SimTime from = std::max(res.start, kSimStart);
    const SimTime to = std::min(res.end, run_end);
    r.window_hours = to > from ? to_hours(to - from) : 0.0;
    r.reserved_instance_hours = static_cast<double>(res.count) * r.window_hours;
    r.used_instance_hours = ledger_.reservation_seconds()[i] / kSecondsPerHour;
    r.utilization = safe_ratio(r.used_instance_hours, r.reserved_instance_hours);
    r.usd = r.usd_per_instance_hour * r.reserved_instance_hours;
    r.unused_usd =
        r.usd_per_instance_hour * std::max(0.0, r.reserved_instance_hours - r.used_instance_hours);
    out.reserved_instance_hours += r.reserved_instance_hours;
    out.used_instance_hours += r.used_instance_hours;
    out.usd += r.usd;
    out.unused_usd += r.unused_usd;
    out.by_id.push_back(std::move(r));
  }
  out.utilization = safe_ratio(out.used_instance_hours, out.reserved_instance_hours);
  return out;
}

namespace {

SlaResult::Latency latency_ms(const LatencySketch& sketch) {
  return {.p50 = sketch.quantile(0.50) * 1000,
          .p95 = sketch.quantile(0.95) * 1000,
          .p99 = sketch.quantile(0.99) * 1000,
          .mean = sketch.mean() * 1000};
}

// Output tokens per second of the measured window; nullopt without tokens or window.
std::optional<double> tokens_per_s(std::uint64_t tokens, SimTime first, SimTime last) {
  if (tokens == 0 || first >= last) return std::nullopt;
  return static_cast<double>(tokens) / to_seconds(last - first);
}

std::map<std::string, double, std::less<>> slice_hours(
    const std::vector<std::pair<std::string, double>>& seconds) {
  std::map<std::string, double, std::less<>> out;
  for (const auto& [profile, s] : seconds) out[profile] += s / kSecondsPerHour;
  return out;
}

double miss_ratio(std::uint64_t misses, std::uint64_t requests) {
  return safe_ratio(static_cast<double>(misses), static_cast<double>(requests));
}

}  // namespace

// Requests that arrived during warmup are not counted; requests = served + dropped + those still
// unfinished at the end; misses are dropped requests, requests over an SLO threshold, and
// unfinished ones already past one. Percentiles come from a sketch with 1% relative error.
SlaResult RunRecorder::sla_result() const {
  auto totals = [](const ServiceSummary& s) -> SlaResult::Totals {
    return {
        .requests = s.requests,
        .served = s.served,
        .dropped = s.dropped,
        .misses = s.misses,
        .miss_ratio = miss_ratio(s.misses, s.requests),
        .ttft_misses = s.ttft_misses,
        .e2e_misses = s.e2e_misses,
        .latency_ms = latency_ms(s.e2e_s),
        .ttft_ms = latency_ms(s.ttft_s),
        .tpot_ms = s.tpot_s.count() > 0 ? std::optional(latency_ms(s.tpot_s)) : std::nullopt,
        .queue_ms = latency_ms(s.queue_s),
        .output_tokens_per_s = tokens_per_s(s.output_tokens, s.first_arrival, s.last_completion)};
  };
  ServiceSummary all;
  SlaResult sla;
  for (const ServiceSummary& s : services_) {
    all.requests += s.requests;
    all.served += s.served;
    all.dropped += s.dropped;
    all.dropped_in_flight += s.dropped_in_flight;
    all.misses += s.misses;
    all.ttft_misses += s.ttft_misses;
    all.e2e_misses += s.e2e_misses;
    all.e2e_s.merge(s.e2e_s);
    all.ttft_s.merge(s.ttft_s);
    all.tpot_s.merge(s.tpot_s);
    all.queue_s.merge(s.queue_s);
    all.output_tokens += s.output_tokens;
    all.first_arrival = std::min(all.first_arrival, s.first_arrival);
    all.last_completion = std::max(all.last_completion, s.last_completion);
    sla.by_service.push_back({.name = s.name,
                              .totals = totals(s),
                              .peak_replicas = s.peak_replicas,
                              .busy_gpu_hours = s.busy_gpu_seconds / kSecondsPerHour,
                              .busy_slice_hours = slice_hours(s.busy_slice_seconds),
                              .busy_replica_hours = s.busy_replica_seconds / kSecondsPerHour,
                              .fluid = s.fluid,
                              .engine = s.engine});
  }
  sla.totals = totals(all);
  sla.dropped_in_flight = all.dropped_in_flight;
  return sla;
}

}  // namespace fleetsim
