// Builds one Simulation from a ScenarioConfig, wires the controllers and runs it.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "fleetsim/cloudprovider/aws/ec2_cloud.hpp"
#include "fleetsim/cloudprovider/aws/spot_market.hpp"
#include "fleetsim/disruption/disruption_controller.hpp"
#include "fleetsim/disruption/expiration.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/cluster_bus.hpp"
#include "fleetsim/kube/kube_scheduler.hpp"
#include "fleetsim/kube/kubelet.hpp"
#include "fleetsim/kube/node_termination.hpp"
#include "fleetsim/provisioning/capacity_buffers.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/cluster_autoscaler.hpp"
#include "fleetsim/provisioning/karpenter/interruption_handler.hpp"
#include "fleetsim/provisioning/karpenter/karpenter_provisioner.hpp"
#include "fleetsim/provisioning/node_groups.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/service/autoscaler_view.hpp"
#include "fleetsim/service/hpa_runner.hpp"
#include "fleetsim/service/keda_runner.hpp"
#include "fleetsim/service/service_runtime.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

struct RunStats {
  std::uint64_t engine_events = 0;
};

// The phase of each periodic series in a run (`phase_offsets`): its first firing's offset from
// t = 0 within its period. Drawn whether or not the run has the controller (each kind has its
// own stream, so one kind's draws never move another's).
struct RunPhases {
  SimDuration hpa{0};                 // the controller-manager's one HPA loop, KEDA's HPAs too
  std::vector<SimDuration> keda;      // each ScaledObject's polling loop, in scenario order
  SimDuration scrape{0};              // Prometheus' scrapes
  SimDuration cluster_autoscaler{0};  // its scan loop
  SimDuration karpenter_disruption{0};
  SimDuration auto_scaling_groups{0};  // lost instances replaced
};
RunPhases draw_run_phases(const ScenarioConfig& config);

class World : private ClusterBus, private EventHandler {
 public:
  explicit World(const ScenarioConfig& config);
  ~World() override;

  // Observers receive every event; they must outlive run().
  void add_sink(EventSink& sink) { sinks_.push_back(&sink); }
  // Sees every sample scraped into the run's metrics store.
  void add_metric_sink(MetricSampleSink& sink) { metrics_.add_sink(sink); }
  // Called as simulated time passes (for a progress line); not per event.
  void set_progress(std::function<void(SimTime)> callback, SimDuration every);

  RunStats run();
  const Cluster& cluster() const { return cluster_; }
  const RunPhases& phases() const { return phases_; }
  const JobCheckpoints& job_checkpoints() const { return workloads_->checkpoints(); }
  // What each node costs an hour, as the cloud prices it.
  const NodePricing& pricing() const { return cloud_->node_pricing(); }
  // The cloud: its catalog and the offerings' prices (the efficiency bounds read them).
  const CloudProvider& cloud() const { return *cloud_; }
  // The scenario's services, in scenario order, and their rows of the report interval that has
  // just closed (valid during EventSink::on_interval).
  std::span<const std::unique_ptr<ServiceRuntime>> services() const { return services_; }
  std::span<const ServiceIntervalRow> service_rows() const { return service_rows_; }

 private:
  ClusterBus& bus() { return *this; }
  // ClusterBus
  void emit(const SimEvent& e) override;
  void pod_pending(PodId pod) override;
  void pod_bound(PodId pod) override;
  void pod_evicted(PodId pod, NodeId node) override;
  void pod_terminating(PodId pod) override;
  void pod_preempted(PodId pod) override;
  void capacity_changed() override;
  // Scripted events and the report interval.
  void on_event(SimTime now, std::uint64_t tag) override;
  void run_scripted(const ScriptedEvent& e);
  void apply(const ApplyManifestsEvent& e);
  void build_provisioner();
  void build_services_and_autoscalers();
  void keep_metrics_read();

  const ScenarioConfig& config_;
  Simulation sim_;
  const RunPhases phases_;
  Cluster cluster_;
  PodDisruptionBudgets pdbs_;
  std::unique_ptr<Ec2Cloud> cloud_;
  std::unique_ptr<StaticNodeGroups> static_node_groups_;  // node groups nobody resizes
  std::unique_ptr<SpotMarket> spot_market_;               // when the scenario has `spot:`
  std::unique_ptr<NodeTermination> termination_;
  std::unique_ptr<Provisioner> provisioner_;
  // Karpenter's controllers besides the provisioner, when it is the scenario's.
  std::unique_ptr<InterruptionHandler> interruption_;
  std::unique_ptr<DisruptionController> disruption_;
  std::unique_ptr<Expiration> expiration_;
  std::unique_ptr<KubeScheduler> kube_scheduler_;
  std::unique_ptr<WorkloadController> workloads_;
  // Karpenter's CapacityBuffer controller, when its gate is on and the scenario has buffers.
  std::unique_ptr<CapacityBufferController> capacity_buffers_;
  std::unique_ptr<Kubelet> kubelet_;
  std::vector<EventSink*> sinks_;

  MetricsStore metrics_;
  TimeSlicedGpus time_slices_;  // before services_: their replicas leave it as they go
  MigInstanceSeats mig_seats_;  // likewise
  std::vector<std::unique_ptr<ServiceRuntime>> services_;
  std::vector<ServiceIntervalRow> service_rows_;
  std::unique_ptr<AutoscalerView> autoscaler_view_;
  std::vector<std::unique_ptr<HpaRunner>> hpas_;
  std::vector<std::unique_ptr<KedaRunner>> scaled_objects_;
};

}  // namespace fleetsim
