#include "fleetsim/service/service_runtime.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/service/exported_metrics.hpp"
#include "fleetsim/service/pod_gauges.hpp"
#include "fleetsim/service/replica_engine.hpp"
#include "fleetsim/traffic/traffic.hpp"

namespace fleetsim {

namespace {

std::optional<MigRequest> mig_of(const ServiceRuntime::Inputs& in) {
  if (in.resources == nullptr) return std::nullopt;
  return mig_request(in.workloads.definition(in.deployment).pod.spec.requests, *in.resources);
}

std::int64_t devices_per_pod(const ServiceRuntime::Inputs& in) {
  const std::optional<MigRequest> mig = mig_of(in);
  return in.workloads.definition(in.deployment).pod.spec.requests.gpus() + (mig ? mig->devices : 0);
}

// Under the engine model, a replica takes up to its engine's max_num_seqs requests at once: the
// model keeps that many slots on each, the most any type the catalog holds would allow.
ServingConfig serving_config(const ServiceRuntime::Inputs& in) {
  ServingConfig c = in.config.serving;
  if (!std::holds_alternative<EngineServiceTime>(c.service_time)) return c;
  const auto gpus = static_cast<std::uint32_t>(devices_per_pod(in));
  const std::optional<MigRequest> mig = mig_of(in);
  c.concurrency = 1;
  for (const InstanceType& type : in.catalog.types()) {
    GpuShare share;
    if (mig) {
      const std::optional<GpuShare> s = mig_profile_share(in.mig_layouts, type, mig->profile);
      if (!s) continue;
      share = *s;
    }
    const ReplicaEngine engine = replica_engine(in.config, type, gpus, share);
    if (engine.cost) c.concurrency = std::max(c.concurrency, engine.cost->limits().max_num_seqs);
  }
  return c;
}

// The fluid mode's request lengths: the first requests of a copy of the service's traffic, on a
// stream of their own (the run's arrivals are left as they are).
constexpr std::size_t kMixSamples = 4096;

RequestMix request_mix(const ServiceRuntime::Inputs& in) {
  const std::unique_ptr<TrafficSource> copy = make_traffic_source(
      in.config.traffic, in.sim.rng("service/" + in.config.deployment + "/fluid-mix"));
  std::vector<RequestMix::Lengths> samples;
  while (samples.size() < kMixSamples) {
    const std::optional<Request> r = copy->next();
    if (!r) break;
    samples.push_back({.prompt = r->input_tokens, .output = r->output_tokens});
  }
  if (samples.empty()) samples.push_back({.prompt = 1, .output = 1});  // no traffic: unused
  return RequestMix(std::move(samples));
}

std::unique_ptr<ServingBackend> serving_backend(const ServiceRuntime::Inputs& in) {
  if (in.config.simulation == ServingMode::Fluid)
    return std::make_unique<FluidServing>(
        in.sim, serving_config(in), request_mix(in),
        in.sim.rng("service/" + in.config.deployment + "/fluid-gauges"), in.fluid_pacing);
  return std::make_unique<ServingModel>(in.sim, serving_config(in),
                                        in.sim.rng("service/" + in.config.deployment + "/serving"));
}

}  // namespace

ServiceRuntime::ServiceRuntime(Inputs in)
    : sim_(in.sim),
      cluster_(in.cluster),
      workloads_(in.workloads),
      kubelet_(in.kubelet),
      catalog_(in.catalog),
      metrics_(in.metrics),
      config_(in.config),
      deployment_(in.deployment),
      name_(in.config.deployment),
      mig_(mig_of(in)),
      mig_layouts_(in.mig_layouts),
      gpus_per_pod_(devices_per_pod(in)),
      time_slices_(in.time_slices),
      mig_seats_(in.mig_seats),
      engines_(in.catalog.types().size()),
      serving_(serving_backend(in)),
      requests_(dynamic_cast<ServingModel*>(serving_.get())),
      fluid_(dynamic_cast<FluidServing*>(serving_.get())),
      stats_(SloThresholds{.ttft = in.config.slo ? in.config.slo->ttft : std::nullopt,
                           .e2e = in.config.slo ? in.config.slo->e2e : std::nullopt},
             in.warmup_end,
             std::holds_alternative<LlmServiceTime>(in.config.serving.service_time) ||
                 std::holds_alternative<EngineServiceTime>(in.config.serving.service_time)) {
  // Outcomes go straight to the statistics, without a forwarding call per request; a closed
  // loop, whose users also hear of each completion, observes through this (start()).
  serving_->set_observer(&stats_);
  serving_->set_replica_listener(this);
  const Workload& d = in.workloads.definition(in.deployment);
  const LabelSet labels{{"namespace", d.namespace_name}, {"service", d.name}};
  requests_series_ = metrics_.series(kServiceRequestsMetric, labels);
  queue_series_ = metrics_.series(kServiceQueueMetric, labels);
}

void ServiceRuntime::start() {
  RngStream rng = sim_.rng("service/" + config_.deployment + "/traffic");
  if (const auto* closed = std::get_if<ClosedConfig>(&config_.traffic)) {
    FLEETSIM_ASSERT(requests_ != nullptr);  // the loader keeps closed loops request by request
    closed_loop_ = std::make_unique<ClosedLoopTraffic>(sim_, *requests_, *closed, rng);
    serving_->set_observer(this);
    closed_loop_->start();
  } else {
    traffic_ = make_traffic_source(config_.traffic, rng);
    if (fluid_ != nullptr) {
      fluid_->attach(*traffic_);
    } else {
      requests_->report_lazily();  // its statistics wait for the next scrape or report row
      requests_->attach(*traffic_);
    }
  }
  interval_start_ = sim_.now();
}

// The observer under a closed loop only (request by request).
void ServiceRuntime::on_request_done(const RequestOutcome& outcome) {
  stats_.on_request_done(outcome);
  closed_loop_->on_request_done(outcome.completion);  // its user thinks
}

// ---- Pod lifecycle ---------------------------------------------------------------------------

// The world checked before the run that every type a replica can land on is in the table.
// Measured rates (`rates:`), or none: fixed, exponential and log-normal services read none.
LlmRates ServiceRuntime::rates_for(const Node&) const {
  return config_.rates.value_or(LlmRates{1, 0});
}

// The scenario kept the service's pods off every type its model cannot run on.
// A node whose devices are shares of a GPU (a MIG slice, an MPS client) runs the engine on its
// share, as does a pod asking for MIG devices of a profile (the node advertises them only where
// its GPU has the profile); the scenario checked that the model fits there.
const StepCost& ServiceRuntime::engine_for(const Node& node) {
  GpuShare share = node.gpu_setup.device_share;
  if (mig_) {
    const std::optional<GpuShare> slice =
        mig_profile_share(mig_layouts_, catalog_.types()[node.type], mig_->profile);
    FLEETSIM_ASSERT(slice.has_value());
    share = *slice;
  }
  std::unique_ptr<StepCost>* slot = &engines_[node.type];
  if (!share.whole()) {
    auto it = std::find_if(shared_engines_.begin(), shared_engines_.end(),
                           [&](const auto& e) { return e.type == node.type && e.share == share; });
    if (it == shared_engines_.end())
      it = shared_engines_.insert(shared_engines_.end(), {.type = node.type, .share = share});
    slot = &it->cost;
  }
  std::unique_ptr<StepCost>& cost = *slot;
  if (!cost) {
    ReplicaEngine engine = replica_engine(config_, catalog_.types()[node.type],
                                          static_cast<std::uint32_t>(gpus_per_pod_), share);
    FLEETSIM_ASSERT(engine.cost.has_value());
    cost = std::make_unique<StepCost>(std::move(*engine.cost));
  }
  return *cost;
}

// A pod asking for a time-sliced resource takes turns on one of the node's GPUs (MIG devices,
// when a MIG layout is time-sliced): the node has replicated ÷ replicas of them.
std::optional<TimeSliceSeat> ServiceRuntime::time_slice_for(const Pod& pod,
                                                            const Node& node) const {
  const NodeGpuSetup& g = node.gpu_setup;
  if (time_slices_ == nullptr || g.sharing != GpuSharingKind::TimeSlicing || !g.replicated ||
      !g.allocatable || pod.spec->requests[*g.replicated] <= 0)
    return std::nullopt;
  const std::int64_t gpus = (*g.allocatable)[*g.replicated] / std::max(1, g.replicas);
  return TimeSliceSeat{.node = node.id,
                       .node_gpus = static_cast<std::uint32_t>(std::max<std::int64_t>(1, gpus))};
}

void ServiceRuntime::on_pod_bound(PodId id) {
  const Pod& pod = cluster_.pod(id);
  const Node& node = cluster_.node(pod.node);
  std::optional<TimeSlicedGpus::Handle> seat;
  if (std::holds_alternative<EngineServiceTime>(config_.serving.service_time)) {
    TimeSlice slice;
    if (const std::optional<TimeSliceSeat> s = time_slice_for(pod, node)) {
      seat = time_slices_->join(*s);
      slice = {.gpus = time_slices_, .handle = *seat};
    }
    serving_->add_replica(ReplicaSpec{.id = id, .engine = &engine_for(node), .time_slice = slice},
                          std::nullopt);
  } else {
    serving_->add_replica(ReplicaSpec{.id = id, .rates = rates_for(node)}, std::nullopt);
  }
  TrackedPod t{.pod = id, .object = &pod, .seat = seat};
  // A pod on MIG instances (the mixed strategy's nvidia.com/mig-<profile>, or the single
  // strategy's nvidia.com/gpu on a node with a layout) is busy on slices, not whole GPUs.
  if (const std::optional<MigHold> hold = mig_hold(node.gpu_setup, pod.spec->requests)) {
    const std::string& profile = node.gpu_setup.mig[hold->profile].profile;
    auto it = std::find_if(slice_busy_.begin(), slice_busy_.end(),
                           [&](const SliceBusy& s) { return s.profile == profile; });
    if (it == slice_busy_.end()) it = slice_busy_.insert(slice_busy_.end(), {.profile = profile});
    t.slice = static_cast<std::int32_t>(it - slice_busy_.begin());
    t.slice_instances = hold->instances;
    if (mig_seats_ != nullptr)
      t.mig_seat = mig_seats_->take(node.id, node.gpu_setup, hold->profile, id);
  } else if (const NodeGpuSetup& g = node.gpu_setup;
             g.sharing != GpuSharingKind::None && g.replicated) {
    // On whole GPUs shared by time-slicing or MPS it is busy on replicas, not whole GPUs.
    t.replicas = static_cast<double>(pod.spec->requests[*g.replicated]);
  }
  any_sliced_ |= sliced(t);
  position_.emplace(id, pods_.size());
  pods_.push_back(t);
  cluster_.hold(id);  // scraped and drained until untracked, even once it has ended
}

void ServiceRuntime::on_pod_ready(PodId id) { serving_->set_ready(id); }

// vLLM's worker at start-up (gpu_worker.py, init_device): "Free memory on device (…) on startup
// is less than desired GPU memory utilization (…). Decrease GPU memory utilization or reduce GPU
// memory used by other processes." The servers that started on the GPU hold their shares of its
// memory until their pods go; what CUDA's context and other processes take is not counted.
std::string ServiceRuntime::start_failure(PodId id) {
  const TrackedPod* t = tracked(id);
  if (t == nullptr || !t->seat) return {};
  const Pod& pod = cluster_.pod(id);
  const Node& node = cluster_.node(pod.node);
  const double u = engine_for(node).limits().gpu_memory_utilization;
  const double held = time_slices_->memory_of_others(*t->seat);
  if (held + u <= 1.0 + 1e-9) {
    time_slices_->hold_memory(*t->seat, u);
    return {};
  }
  const InstanceType& type = catalog_.types()[node.type];
  const double total = type.gpu_hardware ? static_cast<double>(type.gpu_hardware->memory_bytes) /
                                               (1024.0 * 1024.0 * 1024.0)
                                         : 0.0;
  return fmt::format(
      "vLLM: Free memory on device ({:.2f}/{:.2f} GiB) on startup is less than desired GPU "
      "memory utilization ({:g}, {:.2f} GiB): the GPU is time-sliced and the servers already on "
      "it hold {:g} of its memory",
      (1.0 - held) * total, total, u, u * total, held);
}

// The pod left the endpoints; its requests in flight may finish until the kubelet kills it.
void ServiceRuntime::on_pod_draining(PodId id) {
  if (!serving_->has_replica(id)) return;
  serving_->begin_termination(id);  // may call on_replica_drained at once
}

void ServiceRuntime::on_pod_killed(PodId id) {
  if (!serving_->has_replica(id)) return;
  // Only a sliced pod's busy time is kept past it, and only it needs the engine caught up.
  if (const TrackedPod* t = tracked(id); t && sliced(*t)) {
    serving_->catch_up();
    retire_busy(*t, serving_->busy_time(id));
  }
  serving_->kill_replica(id);
  untrack(id, sim_.now());
}

void ServiceRuntime::retire_busy(const TrackedPod& t, SimDuration busy) {
  if (!sliced(t)) return;
  retired_sliced_device_seconds_ += to_seconds(busy) * static_cast<double>(gpus_per_pod_);
  retired_replica_seconds_ += to_seconds(busy) * t.replicas;
  if (t.slice < 0) return;
  slice_busy_[static_cast<std::size_t>(t.slice)].retired_instance_seconds +=
      to_seconds(busy) * t.slice_instances;
}

void ServiceRuntime::on_replica_drained(ReplicaId replica, SimTime now, SimDuration busy) {
  const auto id = static_cast<PodId>(replica);
  if (const TrackedPod* t = tracked(id)) retire_busy(*t, busy);
  untrack(id, now);
  kubelet_.work_done(id);
}

// ---- Metrics ---------------------------------------------------------------------------------

const ServiceRuntime::TrackedPod* ServiceRuntime::tracked(PodId pod) const {
  auto it = position_.find(pod);
  return it == position_.end() ? nullptr : &pods_[it->second];
}

void ServiceRuntime::untrack(PodId id, SimTime now) {
  const TrackedPod* t = tracked(id);
  if (t == nullptr) return;
  if (t->series) {
    // The target is gone: its series end at once rather than after the lookback delta.
    for (SeriesId s : {t->engine_active, t->running, t->waiting, t->success})
      metrics_.retire(s, now);
    if (!t->mig_seat) metrics_.retire(t->gpu_util, now);
    if (has_engine()) {
      metrics_.retire(t->kv_cache, now);
      metrics_.retire(t->kv_cache_v1, now);
    }
  }
  if (t->seat) time_slices_->leave(*t->seat);  // its device and memory are free
  if (t->mig_seat) mig_seats_->release(id);
  const auto at = static_cast<std::size_t>(t - pods_.data());
  pods_.erase(pods_.begin() + static_cast<std::ptrdiff_t>(at));
  position_.erase(id);
  for (std::size_t i = at; i < pods_.size(); ++i) position_[pods_[i].pod] = i;
  cluster_.release(id);
}

void ServiceRuntime::scrape(SimTime now) {
  MetricsStore& store = metrics_;
  serving_->catch_up();
  const ServingCounters counters = serving_->counters();
  store.record(requests_series_, now, static_cast<double>(counters.arrived));
  store.record(queue_series_, now, static_cast<double>(counters.queued));
  const SimDuration window = now - last_scrape_;
  // vLLM keeps its queue per replica; fleetsim's is the router's, so each Ready pod reports an
  // equal share (the remainder to the first), and the shares sum to the queue.
  const std::uint64_t queued = counters.queued;
  std::uint64_t ready = 0;
  for (const TrackedPod& t : pods_) ready += t.object->ready ? 1 : 0;
  std::uint64_t remainder = ready > 0 ? queued % ready : 0;
  const bool engine = has_engine();
  for (TrackedPod& t : pods_) {
    const Pod& pod = *t.object;
    if (!pod.started) continue;  // no exporter sees a container that has not started
    if (!t.series) {
      LabelSet labels{{"namespace", pod.namespace_name}, {"pod", pod.name}};
      if (t.mig_seat) {
        // dcgm-exporter's per-instance series: the GPU and its instance, beside the pod.
        LabelSet instance = labels;
        instance.push_back({"gpu", std::to_string(t.mig_seat->gpu)});
        instance.push_back({"GPU_I_PROFILE", t.mig_seat->profile});
        instance.push_back({"GPU_I_ID", std::to_string(t.mig_seat->instance_id)});
        t.engine_active = store.series(kGrEngineActiveMetric, instance);
      } else {
        t.gpu_util = store.series(kGpuUtilMetric, labels);
        t.engine_active = store.series(kGrEngineActiveMetric, labels);
      }
      labels.push_back({"model_name", workloads_.definition(deployment_).name});
      t.running = store.series(kRequestsRunningMetric, labels);
      t.waiting = store.series(kRequestsWaitingMetric, labels);
      t.success = store.series(kRequestSuccessMetric, labels);
      if (engine) {
        t.kv_cache = store.series(kGpuCacheUsageMetric, labels);
        t.kv_cache_v1 = store.series(kKvCacheUsageMetric, labels);
      }
      t.series = true;
      t.busy_at_last_scrape = serving_->busy_time(t.pod);
    }
    const SimDuration busy = serving_->busy_time(t.pod);
    if (window > SimDuration{0}) {
      t.busy_fraction =
          std::clamp(to_seconds(busy - t.busy_at_last_scrape) / to_seconds(window), 0.0, 1.0);
      if (!t.mig_seat) store.record(t.gpu_util, now, 100.0 * *t.busy_fraction);
      store.record(t.engine_active, now, *t.busy_fraction);
    }
    t.busy_at_last_scrape = busy;
    // vLLM's metrics exist once its server is up, which is when the pod turns Ready.
    if (!pod.ready) continue;
    std::uint64_t share = ready > 0 ? queued / ready : 0;
    if (remainder > 0) {
      ++share;
      --remainder;
    }
    const PodGauges gauges = pod_gauges(*serving_, t.pod, engine, share);
    store.record(t.running, now, gauges.running);
    store.record(t.waiting, now, gauges.waiting);
    if (gauges.kv_cache_usage) {
      store.record(t.kv_cache, now, *gauges.kv_cache_usage);
      store.record(t.kv_cache_v1, now, *gauges.kv_cache_usage);
    }
    store.record(t.success, now, static_cast<double>(serving_->served_by(t.pod)));
  }
  last_scrape_ = now;
}

std::optional<double> ServiceRuntime::busy_fraction(PodId pod) const {
  const TrackedPod* t = tracked(pod);
  return t != nullptr ? t->busy_fraction : std::nullopt;
}

// ---- Reporting -------------------------------------------------------------------------------

double ServiceRuntime::sliced_device_seconds() const {
  double sum = retired_sliced_device_seconds_;
  for (const TrackedPod& t : pods_)
    if (sliced(t))
      sum += to_seconds(serving_->busy_time(t.pod)) * static_cast<double>(gpus_per_pod_);
  return sum;
}

double ServiceRuntime::busy_gpu_seconds() const {
  const double all = to_seconds(serving_->total_busy_time()) * static_cast<double>(gpus_per_pod_);
  return any_sliced_ ? std::max(0.0, all - sliced_device_seconds()) : all;
}

double ServiceRuntime::busy_replica_seconds() const {
  double sum = retired_replica_seconds_;
  for (const TrackedPod& t : pods_)
    if (t.replicas > 0) sum += to_seconds(serving_->busy_time(t.pod)) * t.replicas;
  return sum;
}

std::vector<std::pair<std::string, double>> ServiceRuntime::busy_slice_seconds() const {
  std::vector<std::pair<std::string, double>> out;
  for (const SliceBusy& s : slice_busy_) out.emplace_back(s.profile, s.retired_instance_seconds);
  for (const TrackedPod& t : pods_)
    if (t.slice >= 0)
      out[static_cast<std::size_t>(t.slice)].second +=
          to_seconds(serving_->busy_time(t.pod)) * t.slice_instances;
  return out;
}

bool ServiceRuntime::has_engine() const {
  return std::holds_alternative<EngineServiceTime>(config_.serving.service_time);
}

std::optional<EngineTotals> ServiceRuntime::engine_totals() const {
  if (!has_engine()) return std::nullopt;
  return serving_->engine_totals();
}

std::optional<double> ServiceRuntime::mean_kv_cache_usage() const {
  if (!has_engine()) return std::nullopt;
  double sum = 0;
  int ready = 0;
  for (const TrackedPod& t : pods_) {
    if (!cluster_.pod(t.pod).ready) continue;
    sum += serving_->load(t.pod).kv_cache_usage;
    ++ready;
  }
  if (ready == 0) return std::nullopt;
  return sum / static_cast<double>(ready);
}

ServiceIntervalRow ServiceRuntime::close_interval(SimTime now) {
  serving_->catch_up();
  ServiceIntervalRow row;
  const double length = to_seconds(now - interval_start_);
  const std::uint64_t arrived = serving_->counters().arrived;
  const SimDuration busy = serving_->total_busy_time();
  const double sliced_seconds = any_sliced_ ? sliced_device_seconds() : 0.0;
  row.requests = arrived - arrived_at_interval_;
  row.misses = stats_.totals().misses - misses_at_interval_;
  row.dropped = stats_.totals().dropped - dropped_at_interval_;
  if (length > 0) {
    row.rps = static_cast<double>(row.requests) / length;
    // Pods on MIG instances or shared GPUs are busy on slices or replicas (report.json's
    // gpu.mig and gpu.shared), not whole GPUs.
    row.busy_gpus =
        to_seconds(busy - busy_at_interval_) / length * static_cast<double>(gpus_per_pod_) -
        (sliced_seconds - sliced_at_interval_) / length;
  }
  const std::vector<PodId>& active = workloads_.active_pods(deployment_);
  row.replicas = static_cast<std::int64_t>(active.size());
  for (PodId id : active) row.ready += cluster_.pod(id).ready ? 1 : 0;
  row.queue = static_cast<std::int64_t>(serving_->counters().queued);
  if (stats_.interval_e2e_s().count() > 0)
    row.p99_ms = stats_.interval_e2e_s().quantile(0.99) * 1000.0;
  row.kv_cache_usage = mean_kv_cache_usage();
  peak_replicas_ = std::max(peak_replicas_, row.replicas);

  stats_.close_interval();
  arrived_at_interval_ = arrived;
  misses_at_interval_ = stats_.totals().misses;
  dropped_at_interval_ = stats_.totals().dropped;
  busy_at_interval_ = busy;
  sliced_at_interval_ = sliced_seconds;
  interval_start_ = now;
  return row;
}

void ServiceRuntime::finish(SimTime end) {
  serving_->catch_up();
  serving_->for_each_unfinished(
      [&](SimTime arrival, std::optional<SimTime> first_token, std::uint64_t count) {
        stats_.judge_unfinished(arrival, first_token, end, count);
      });
}

}  // namespace fleetsim
