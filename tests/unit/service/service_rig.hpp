// The service module's test rig: the workload controller and the kubelet on a recording bus, one
// big Ready node to bind pods to by hand (standing in for kube-scheduler), the metrics store, the
// services of a test, and the AutoscalerView over them, wired as src/world/world.cpp wires them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/kube/kubelet.hpp"
#include "fleetsim/service/autoscaler_view.hpp"
#include "fleetsim/service/service_config.hpp"
#include "fleetsim/service/service_runtime.hpp"
#include "fleetsim/workload/workload_controller.hpp"
#include "unit/k8s/cluster_harness.hpp"

namespace fleetsim::test {

inline constexpr SimDuration kRigScrapeInterval = seconds(15);

// A Deployment "web" of pods requesting 2 CPUs and 8Gi, running the image example/web:1.
inline Workload web_deployment(std::int32_t replicas) {
  Workload w;
  w.kind = WorkloadKind::Deployment;
  w.name = "web";
  w.replicas = replicas;
  w.pod.labels["app"] = "web";
  w.pod.spec.requests = pod_requests(2000, 8192);
  w.pod.spec.images = {"example/web:1"};
  return w;
}

// A service on "web": one request a second from t = 0, each taking 500 ms of a one-slot replica,
// so a Ready replica that takes all of them is busy half the time.
inline ServiceConfig half_busy_service() {
  ServiceConfig c;
  c.deployment = c.deployment_name = "web";
  c.deployment_namespace = "default";
  c.traffic = ConstantConfig{.rps = 1};
  c.serving =
      ServingConfig{.concurrency = 1, .service_time = FixedServiceTime{.duration = millis(500)}};
  return c;
}

struct ServiceRig {
  // Images pull at 60 MB/s, fleetsim's default.
  ServiceRig() : sim(1), workloads(sim, cluster, bus), kubelet(sim, cluster, bus, 60'000'000) {
    bus.forward_bound = [this](PodId p) {
      workloads.on_bound(p);
      kubelet.on_bound(p);
    };
    bus.forward_evicted = [this](PodId p) { workloads.on_evicted(p); };
    bus.forward_terminating = [this](PodId p) { kubelet.on_terminating(p); };
    node = add_node(cluster, {.name = "big", .allocatable = node_allocatable(64000, 256)});
  }
  ServiceRig(const ServiceRig&) = delete;
  ServiceRig& operator=(const ServiceRig&) = delete;

  // Adds the Deployment now and lets the controller create its pods.
  WorkloadId add(const Workload& w) {
    const WorkloadId id = workloads.add(w, sim.now());
    sim.run_until(sim.now());
    return id;
  }
  // Runs a service on the Deployment's pods, as World does (before any view() call).
  ServiceRuntime& add_service(ServiceConfig config, WorkloadId deployment) {
    const ServiceConfig& c = configs.emplace_back(std::move(config));
    services.push_back(
        std::make_unique<ServiceRuntime>(ServiceRuntime::Inputs{.sim = sim,
                                                                .cluster = cluster,
                                                                .workloads = workloads,
                                                                .kubelet = kubelet,
                                                                .catalog = catalog,
                                                                .metrics = metrics,
                                                                .config = c,
                                                                .deployment = deployment,
                                                                .warmup_end = kSimStart}));
    kubelet.manage(deployment,
                   {.image_bytes = c.startup.image_bytes, .model_load = c.startup.model_load},
                   services.back().get());
    services.back()->start();
    return *services.back();
  }
  void bind(PodId pod) {
    cluster.bind(pod, node, sim.now());
    bus.pod_bound(pod);
  }
  // Binds every unscheduled pod of the workload.
  void bind_pending(WorkloadId w) {
    const std::vector<PodId> pods = workloads.active_pods(w);
    for (PodId p : pods)
      if (cluster.pod(p).node == kNoNode) bind(p);
  }
  void run_to(SimDuration t) { sim.run_until(at(t)); }
  const AutoscalerView& view() {
    if (!view_) view_.emplace(cluster, workloads, metrics, services, kRigScrapeInterval);
    return *view_;
  }
  // The Deployment's replica changes so far: (seconds, source, from, to).
  struct Change {
    double t;
    ReplicasSource source;
    std::int32_t from, to;
    bool operator==(const Change&) const = default;
    friend std::ostream& operator<<(std::ostream& os, const Change& c) {
      return os << c.t << "s " << (c.source == ReplicasSource::Hpa ? "hpa" : "keda") << " "
                << c.from << "->" << c.to;
    }
  };
  std::vector<Change> replica_changes() const {
    std::vector<Change> out;
    for (const RecordedEvent& e : bus.of_kind(EventKind::ReplicasChanged))
      out.push_back({to_seconds(e.time), std::get<ReplicasSource>(e.reason), e.from, e.to});
    return out;
  }

  Simulation sim;
  Cluster cluster;
  RecordingBus bus;
  WorkloadController workloads;
  Kubelet kubelet;
  MetricsStore metrics;
  Catalog catalog;  // empty: the rig's services have fixed service times, which read no rates
  std::deque<ServiceConfig> configs;
  std::vector<std::unique_ptr<ServiceRuntime>> services;
  NodeId node = kNoNode;

 private:
  std::optional<AutoscalerView> view_;
};

}  // namespace fleetsim::test
