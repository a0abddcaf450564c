#include "fleetsim/world/world.hpp"

#include <algorithm>

#include "fleetsim/engine/event_tag.hpp"

namespace fleetsim {

namespace {

// The world's timers: scripted event i (subject i), the report interval and the scrape.
enum class Timer : std::uint8_t { Scripted, Report, Scrape };
using Tag = EventTag<Timer>;

// Each catalog type's start-up latencies: its family's override, else the GPU or CPU default.
std::vector<NodeLatency> latency_by_type(const ScenarioConfig& config) {
  std::vector<NodeLatency> out;
  for (const InstanceType& t : config.catalog->types()) {
    auto family = config.node_latencies.by_family.find(t.family);
    if (family != config.node_latencies.by_family.end()) {
      out.push_back(family->second);
    } else {
      out.push_back(t.has_gpu() ? config.node_latencies.gpu : config.node_latencies.cpu);
    }
  }
  return out;
}

NodePoolInputs nodepool_inputs(const ScenarioConfig& config) {
  return NodePoolInputs{.catalog = *config.catalog,
                        .node_classes = config.node_classes,
                        .daemonsets = config.daemonsets,
                        .overlays = config.node_overlays,
                        .gpu = {.settings = &config.gpu_operator, .resources = &config.resources}};
}

}  // namespace

RunPhases draw_run_phases(const ScenarioConfig& config) {
  PhaseOffsets draws(config.phase_offsets, config.seed);
  RunPhases out;
  out.hpa = draws.next(PeriodicController::Hpa, kHpaSyncPeriod);
  for (const ScaledObjectSpec& so : config.scaled_objects)
    out.keda.push_back(draws.next(PeriodicController::Keda, so.polling_interval));
  out.scrape = draws.next(PeriodicController::Scrape, config.scrape_interval);
  out.cluster_autoscaler =
      draws.next(PeriodicController::ClusterAutoscaler, config.cluster_autoscaler.scan_interval);
  out.karpenter_disruption =
      draws.next(PeriodicController::KarpenterDisruption, kDisruptionPollPeriod);
  out.auto_scaling_groups =
      draws.next(PeriodicController::AutoScalingGroups, kAutoScalingReconcileInterval);
  return out;
}

World::World(const ScenarioConfig& config)
    : config_(config),
      sim_(config.seed),
      phases_(draw_run_phases(config)),
      pdbs_(cluster_, config.pdbs) {
  cloud_ = std::make_unique<Ec2Cloud>(sim_, cluster_, bus(), *config.catalog,
                                      latency_by_type(config), config.management_fee_by_type);
  termination_ =
      std::make_unique<NodeTermination>(sim_, cluster_, bus(), *cloud_, pdbs_, config.termination);
  if (config.spot_market) {
    spot_market_ =
        std::make_unique<SpotMarket>(sim_, cluster_, bus(), *cloud_, *config.spot_market,
                                     monthly_shares(*config.catalog, *config.spot_market));
  }
  build_provisioner();
  // Node groups beside Karpenter's NodePools (or Auto Mode's) keep their desired capacity.
  if (config.provisioner != ProvisionerKind::ClusterAutoscaler && !config.node_groups.empty()) {
    static_node_groups_ = std::make_unique<StaticNodeGroups>(
        sim_,
        make_node_group_fleet(config.node_groups, config.daemonsets, *cloud_, cluster_, sim_,
                              {.settings = &config.gpu_operator, .resources = &config.resources}));
  }
  kube_scheduler_ = std::make_unique<KubeScheduler>(
      sim_, cluster_, bus(), [this](PodId pod) { provisioner_->pod_unschedulable(pod); },
      config.scheduler_profiles);
  workloads_ =
      std::make_unique<WorkloadController>(sim_, cluster_, bus(), config.controller_manager_api);
  // FEATURE_GATES CapacityBuffer=true: the buffers' virtual pods join every solve. The Cluster
  // Autoscaler needs both its buffer controller and its pod injection.
  auto* karpenter = dynamic_cast<KarpenterProvisioner*>(provisioner_.get());
  auto* autoscaler = dynamic_cast<ClusterAutoscaler*>(provisioner_.get());
  if (config.capacity_buffers.empty()) {
  } else if (karpenter != nullptr && config.provisioner == ProvisionerKind::Karpenter &&
             config.karpenter.capacity_buffer) {
    capacity_buffers_ = std::make_unique<CapacityBufferController>(
        sim_, *workloads_, config.capacity_buffers, [karpenter] { karpenter->buffer_triggered(); });
    karpenter->set_capacity_buffers(capacity_buffers_.get());
  } else if (autoscaler != nullptr &&
             config.cluster_autoscaler.capacity_buffer_controller_enabled &&
             config.cluster_autoscaler.capacity_buffer_pod_injection_enabled) {
    capacity_buffers_ = std::make_unique<CapacityBufferController>(
        sim_, *workloads_, config.capacity_buffers, nullptr, BufferRules::ClusterAutoscaler);
    autoscaler->set_capacity_buffers(capacity_buffers_.get());
  }
  kubelet_ = std::make_unique<Kubelet>(sim_, cluster_, bus(),
                                       config.node_latencies.image_pull_bytes_per_s);
  kube_scheduler_->set_node_images(&kubelet_->node_images());
  kube_scheduler_->set_pdbs(&pdbs_);
  if (config.pod_groups) kube_scheduler_->enable_gangs();
}

World::~World() = default;

// The provisioner the scenario names, with the controllers that come with it.
void World::build_provisioner() {
  switch (config_.provisioner) {
    case ProvisionerKind::Karpenter:
    case ProvisionerKind::EksAutoMode: {
      auto karpenter = std::make_unique<KarpenterProvisioner>(
          KarpenterProvisioner::Inputs{.sim = sim_,
                                       .cluster = cluster_,
                                       .bus = bus(),
                                       .cloud = *cloud_,
                                       .nodepool_inputs = nodepool_inputs(config_),
                                       .nodepools = config_.nodepools,
                                       .settings = {.batch_idle = config_.karpenter.batch_idle,
                                                    .batch_max = config_.karpenter.batch_max}});
      interruption_ = std::make_unique<InterruptionHandler>(cluster_, *cloud_, *termination_);
      cloud_->set_notice_listener(interruption_.get());
      disruption_ = std::make_unique<DisruptionController>(DisruptionController::Inputs{
          .sim = sim_,
          .cluster = cluster_,
          .bus = bus(),
          .cloud = *cloud_,
          .termination = *termination_,
          .provisioner = *karpenter,
          .pdbs = pdbs_,
          .start_unix_s = config_.start_unix_s,
          .consolidation = {.spot_to_spot = config_.karpenter.spot_to_spot_consolidation,
                            .version = config_.karpenter.version},
          .poll_offset = phases_.karpenter_disruption});
      expiration_ =
          std::make_unique<Expiration>(sim_, cluster_, karpenter->nodepools(), *termination_);
      provisioner_ = std::move(karpenter);
      break;
    }
    case ProvisionerKind::ClusterAutoscaler:
      provisioner_ = std::make_unique<ClusterAutoscaler>(ClusterAutoscaler::Inputs{
          .sim = sim_,
          .cluster = cluster_,
          .bus = bus(),
          .cloud = *cloud_,
          .termination = *termination_,
          .pdbs = pdbs_,
          .groups = config_.node_groups,
          .daemonsets = config_.daemonsets,
          .settings = config_.cluster_autoscaler,
          .scan_offset = phases_.cluster_autoscaler,
          .reconcile_offset = phases_.auto_scaling_groups,
          .gpu = {.settings = &config_.gpu_operator, .resources = &config_.resources}});
      // EKS managed node groups and the AWS Node Termination Handler drain a spot node at its
      // interruption notice, as Karpenter does.
      interruption_ = std::make_unique<InterruptionHandler>(cluster_, *cloud_, *termination_);
      cloud_->set_notice_listener(interruption_.get());
      break;
  }
}

void World::set_progress(std::function<void(SimTime)> callback, SimDuration every) {
  sim_.set_progress(std::move(callback), every);
}

// Services and autoscalers bind to the manifest Deployments the scenario loader resolved.
void World::build_services_and_autoscalers() {
  const SimTime warmup_end = at(config_.warmup);
  for (const auto& [alias, metric] : config_.metric_aliases) metrics_.add_alias(alias, metric);
  for (const ServiceConfig& sc : config_.services) {
    const std::optional<WorkloadId> target =
        workloads_->find_deployment(sc.deployment_namespace, sc.deployment_name);
    FLEETSIM_ASSERT(target.has_value());
    services_.push_back(std::make_unique<ServiceRuntime>(ServiceRuntime::Inputs{
        .sim = sim_,
        .cluster = cluster_,
        .workloads = *workloads_,
        .kubelet = *kubelet_,
        .catalog = *config_.catalog,
        .metrics = metrics_,
        .config = sc,
        .deployment = *target,
        .warmup_end = warmup_end,
        .time_slices = &time_slices_,
        .resources = &config_.resources,
        .mig_layouts = config_.gpu_operator.mig_layouts,
        .mig_seats = &mig_seats_,
        .fluid_pacing = {.anchor = first_firing_at_start(sim_.now(), phases_.scrape),
                         .scrape_interval = config_.scrape_interval,
                         .report_interval = config_.report_interval}}));
    kubelet_->manage(*target,
                     {.image_bytes = sc.startup.image_bytes, .model_load = sc.startup.model_load},
                     services_.back().get());
  }
  service_rows_.resize(services_.size());
  autoscaler_view_ = std::make_unique<AutoscalerView>(cluster_, *workloads_, metrics_, services_,
                                                      config_.scrape_interval);
  for (const HorizontalPodAutoscalerSpec& spec : config_.hpas) {
    const std::optional<WorkloadId> target =
        workloads_->find_deployment(spec.namespace_name, spec.scale_target.name);
    FLEETSIM_ASSERT(target.has_value());
    hpas_.push_back(
        std::make_unique<HpaRunner>(sim_, *workloads_, *autoscaler_view_, spec, *target));
  }
  for (const ScaledObjectSpec& spec : config_.scaled_objects) {
    const std::optional<WorkloadId> target =
        workloads_->find_deployment(spec.namespace_name, spec.scale_target.name);
    FLEETSIM_ASSERT(target.has_value());
    scaled_objects_.push_back(std::make_unique<KedaRunner>(sim_, *workloads_, *autoscaler_view_,
                                                           metrics_, spec, *target));
    metrics_.require_range(scaled_objects_.back()->longest_range());
  }
  keep_metrics_read();
}

// The store's readers are the HPAs' metrics (but for cpu and memory, read from the scrapes' busy
// shares) and KEDA's queries: a scrape stores only what they read, unless a query may read any.
void World::keep_metrics_read() {
  std::vector<std::string> read;
  for (const HorizontalPodAutoscalerSpec& spec : config_.hpas)
    for (const MetricSpec& m : spec.metrics)
      if (m.source != MetricSourceType::Resource) read.push_back(m.name);
  for (const auto& keda : scaled_objects_) {
    std::optional<std::vector<std::string>> names = keda->metrics_read();
    if (!names) return;
    read.insert(read.end(), names->begin(), names->end());
  }
  metrics_.keep_only(std::move(read));
}

RunStats World::run() {
  for (const Workload& w : config_.workloads) workloads_->add(w, w.created_at);
  build_services_and_autoscalers();
  for (auto& service : services_) service->start();
  // Each loop at its own phase (RunPhases): a sync reads the scrape before it, as stale as the
  // gap between the two phases makes it.
  for (auto& hpa : hpas_) hpa->start(phases_.hpa);
  for (std::size_t i = 0; i < scaled_objects_.size(); ++i)
    scaled_objects_[i]->start(phases_.keda[i], phases_.hpa);
  if (!services_.empty() || !scaled_objects_.empty() || !hpas_.empty())
    sim_.every(config_.scrape_interval, first_firing_at_start(sim_.now(), phases_.scrape),
               Phase::MetricsScrape, *this, Tag{Timer::Scrape}.pack());
  for (const JobSource& source : config_.job_sources)
    workloads_->add_stream(
        JobStream{.trace = source.trace, .template_workload = source.template_workload});
  for (std::size_t i = 0; i < config_.events.size(); ++i)
    sim_.schedule_at(at(config_.events[i].at), Phase::CloudAndNodes, *this,
                     Tag{Timer::Scripted, static_cast<std::uint32_t>(i)}.pack());
  provisioner_->start();
  // Each buffer is reconciled when it is created (with the scenario) and every 30 s after.
  if (capacity_buffers_ && config_.provisioner != ProvisionerKind::ClusterAutoscaler)
    capacity_buffers_->start(sim_.now());
  if (static_node_groups_) static_node_groups_->start(phases_.auto_scaling_groups);
  if (disruption_) disruption_->start();
  if (spot_market_) spot_market_->start();
  sim_.every(config_.report_interval, at(config_.report_interval), Phase::Reporting, *this,
             Tag{Timer::Report}.pack());

  const SimTime end = at(config_.duration);
  sim_.run_until(end);
  for (auto& service : services_) service->finish(end);
  for (EventSink* sink : sinks_) sink->on_end(end, cluster_);
  return RunStats{.engine_events = sim_.events_processed()};
}

void World::on_event(SimTime now, std::uint64_t tag) {
  const Tag timer = Tag::unpack(tag);
  switch (timer.kind) {
    case Timer::Report:
      for (std::size_t i = 0; i < services_.size(); ++i)
        service_rows_[i] = services_[i]->close_interval(now);
      for (EventSink* sink : sinks_) sink->on_interval(now, cluster_);
      // Ended pods nobody reads any more, and finished jobs: memory stays flat in run length.
      workloads_->forget_pods(cluster_.collect());
      break;
    case Timer::Scrape:
      metrics_.scrape(now);
      for (auto& service : services_) service->scrape(now);
      break;
    case Timer::Scripted:
      run_scripted(config_.events[timer.subject]);
      break;
  }
}

void World::run_scripted(const ScriptedEvent& e) {
  if (const auto* apply_event = std::get_if<ApplyManifestsEvent>(&e.action)) {
    apply(*apply_event);
    return;
  }
  if (const auto* scale = std::get_if<ScaleDeploymentEvent>(&e.action)) {
    const std::optional<WorkloadId> id =
        workloads_->find_deployment(scale->namespace_name, scale->name);
    FLEETSIM_ASSERT(id.has_value());  // the loader resolved it
    workloads_->scale(*id, scale->replicas, ReplicasSource::Scripted);
    return;
  }
  if (const auto* capacity = std::get_if<CapacityEvent>(&e.action)) {
    const Catalog& catalog = *config_.catalog;
    const auto type = static_cast<std::uint32_t>(*catalog.index_of(capacity->instance_type));
    const auto& offerings = catalog.types()[type].offerings;
    for (std::size_t i = 0; i < offerings.size(); ++i) {
      const Offering& o = offerings[i];
      if (o.capacity_type != capacity->capacity_type) continue;
      if (!capacity->zone.empty() && o.zone != capacity->zone) continue;
      cloud_->set_capacity(catalog.offering_index(type, i), capacity->count);
    }
    return;
  }
  const auto& spot = std::get<SpotInterruptionEvent>(e.action);
  // The first `count` matching live spot nodes, by name: deterministic, like a scripted drill.
  std::vector<NodeId> matching;
  for (const Node& n : cluster_.nodes()) {
    if (!n.is_live() || n.capacity_type != CapacityType::Spot || n.phase == NodePhase::Launching)
      continue;
    if (!spot.instance_type.empty() && n.instance_type != spot.instance_type) continue;
    if (!spot.zone.empty() && n.zone != spot.zone) continue;
    matching.push_back(n.id);
  }
  std::sort(matching.begin(), matching.end(),
            [&](NodeId a, NodeId b) { return cluster_.node(a).name < cluster_.node(b).name; });
  if (matching.size() > static_cast<std::size_t>(spot.count))
    matching.resize(static_cast<std::size_t>(spot.count));
  for (NodeId id : matching) cloud_->interrupt_spot(id);
}

void World::apply(const ApplyManifestsEvent& e) {
  provisioner_->apply_node_classes(e.node_classes);
  provisioner_->apply_nodepools(e.nodepools);
  cluster_.mark_unconsolidated(sim_.now());  // a NodePool reconcile (state/informer/nodepool.go)
  for (const Workload& w : e.workloads) workloads_->add(w, sim_.now());
  for (const Workload& w : e.updates) {
    const std::optional<WorkloadId> id = workloads_->find_deployment(w.namespace_name, w.name);
    FLEETSIM_ASSERT(id.has_value());  // the loader matched it to a Deployment
    workloads_->update(*id, w);
  }
  kube_scheduler_->cluster_changed();
}

void World::emit(const SimEvent& e) {
  for (EventSink* sink : sinks_) sink->on_event(e, cluster_);
  // A rollout steps on as new pods turn Ready and old ones go.
  if (e.kind == EventKind::PodReady) workloads_->on_ready(e.pod);
  if (e.kind == EventKind::NodeClaimCreated) expiration_->claim_created(e.node);
  if (e.kind == EventKind::PodDeleted && e.node != kNoNode) workloads_->on_exit(e.pod);
}

void World::pod_pending(PodId) { kube_scheduler_->request_pass(); }
void World::pod_bound(PodId pod) {
  if (!kubelet_->admits(pod)) {
    workloads_->on_evicted(pod);  // it no longer counts: the controller replaces it
    kubelet_->fail_admission(pod);
    return;
  }
  workloads_->on_bound(pod);
  kubelet_->on_bound(pod);
}

void World::pod_evicted(PodId pod, NodeId node) {
  workloads_->on_evicted(pod);
  kubelet_->on_evicted(pod, node);
}

void World::pod_terminating(PodId pod) { kubelet_->on_terminating(pod); }
// The ReplicaSet or Job controller replaces a preempted pod at once: a pod being deleted no longer
// counts as active.
void World::pod_preempted(PodId pod) { workloads_->on_evicted(pod); }
void World::capacity_changed() { kube_scheduler_->cluster_changed(); }

}  // namespace fleetsim
