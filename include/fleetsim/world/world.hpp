// Builds one Simulation from a ScenarioConfig, wires the controllers and runs it.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "fleetsim/cloud/cluster.hpp"
#include "fleetsim/cloud/cluster_bus.hpp"
#include "fleetsim/cloud/sim_cloud.hpp"
#include "fleetsim/disruption/disruption_controller.hpp"
#include "fleetsim/engine/simulation.hpp"
#include "fleetsim/provisioning/karpenter_provisioner.hpp"
#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/workload/kube_scheduler.hpp"
#include "fleetsim/workload/workload_controller.hpp"

namespace fleetsim {

struct RunStats {
  std::uint64_t engine_events = 0;
};

class World : private ClusterBus, private EventHandler {
 public:
  explicit World(const ScenarioConfig& config);
  ~World() override;

  // Observers receive every event; they must outlive run().
  void add_sink(EventSink& sink) { sinks_.push_back(&sink); }
  // Called as simulated time passes (for a progress line); not per event.
  void set_progress(std::function<void(SimTime)> callback, SimDuration every);

  RunStats run();
  const Cluster& cluster() const { return cluster_; }

 private:
  ClusterBus& bus() { return *this; }
  // ClusterBus
  void emit(const SimEvent& e) override;
  void pod_pending(PodId pod) override;
  void pod_bound(PodId pod) override;
  void pod_evicted(PodId pod) override;
  void capacity_changed() override;
  // Scripted events and the report interval.
  void on_event(SimTime now, std::uint64_t tag) override;
  void run_scripted(const ScriptedEvent& e);
  void apply(const ApplyManifestsEvent& e);
  void build_provisioner();

  const ScenarioConfig& config_;
  Simulation sim_;
  Cluster cluster_;
  std::vector<NodePool> pools_;  // the context points into it; nodes keep pool indices
  std::vector<Workload> daemonsets_;
  std::unique_ptr<SchedulingContext> context_;
  std::unique_ptr<SimCloud> cloud_;
  std::unique_ptr<KarpenterProvisioner> provisioner_;
  std::unique_ptr<KubeScheduler> kube_scheduler_;
  std::unique_ptr<DisruptionController> disruption_;
  std::unique_ptr<WorkloadController> workloads_;
  std::vector<EventSink*> sinks_;
  std::vector<NodeLatency> latency_by_type_;
};

}  // namespace fleetsim
