// Deployment updates, rollouts and the controller-manager's API rate limit, translated from
// Kubernetes' pkg/controller/deployment (rolling_test.go, util/deployment_util_test.go) and
// client-go's token bucket.
#include <catch2/catch.hpp>

#include "fleetsim/kube/kubelet.hpp"
#include "fleetsim/workload/workload_controller.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Forwards what the World forwards: binds, evictions, Ready pods and exits.
class ForwardingBus : public RecordingBus {
 public:
  void emit(const SimEvent& e) override {
    RecordingBus::emit(e);
    if (controller == nullptr) return;
    if (e.kind == EventKind::PodReady) controller->on_ready(e.pod);
    if (e.kind == EventKind::PodDeleted && e.node != kNoNode) controller->on_exit(e.pod);
  }
  WorkloadController* controller = nullptr;
};

struct RolloutRig {
  explicit RolloutRig(ApiLimits api = {})
      : controller(sim, cluster, bus, api), kubelet(sim, cluster, bus, 0) {
    bus.controller = &controller;
    bus.forward_bound = [this](PodId p) {
      controller.on_bound(p);
      kubelet.on_bound(p);
    };
    bus.forward_terminating = [this](PodId p) { kubelet.on_terminating(p); };
    node = add_node(cluster, {.name = "big", .allocatable = node_allocatable(640000, 2560)});
  }
  // Binds every pending pod (kube-scheduler's part); the kubelet makes them Ready at once.
  void bind_pending() {
    for (PodId p : std::vector<PodId>(cluster.pending_pods())) {
      cluster.bind(p, node, sim.now());
      bus.pod_bound(p);
    }
  }
  // (old, new) active pods of the Deployment: running or pending, not terminating.
  std::pair<int, int> counts(WorkloadId d, const PodSpec* new_spec) const {
    int old_pods = 0, new_pods = 0;
    for (PodId p : controller.active_pods(d))
      (cluster.pod(p).spec == new_spec ? new_pods : old_pods) += 1;
    return {old_pods, new_pods};
  }

  Simulation sim{3};
  Cluster cluster;
  ForwardingBus bus;
  WorkloadController controller;
  Kubelet kubelet;
  NodeId node = kNoNode;
};

Workload web(int replicas, std::string image = "web:1") {
  Workload w;
  w.kind = WorkloadKind::Deployment;
  w.name = "web";
  w.replicas = replicas;
  w.pod.labels["app"] = "web";
  w.pod.spec.requests = pod_requests(100, 128);
  w.pod.spec.images = {std::move(image)};
  return w;
}

}  // namespace

TEST_CASE("TestResolveFenceposts: maxSurge rounds up, maxUnavailable down, never both 0",
          "[workload][rollout]") {
  auto pct = [](std::int64_t v) { return IntOrPercent{.value = v, .percent = true}; };
  CHECK(resolve_fenceposts({.max_surge = pct(0), .max_unavailable = pct(0)}, 0) ==
        Fenceposts{.max_surge = 0, .max_unavailable = 1});
  CHECK(resolve_fenceposts({.max_surge = pct(39), .max_unavailable = pct(39)}, 10) ==
        Fenceposts{.max_surge = 4, .max_unavailable = 3});
  CHECK(resolve_fenceposts({}, 4) == Fenceposts{.max_surge = 1, .max_unavailable = 1});  // 25%
  CHECK(resolve_fenceposts({}, 1) == Fenceposts{.max_surge = 1, .max_unavailable = 0});
  CHECK(resolve_fenceposts({.max_surge = IntOrPercent{2}, .max_unavailable = IntOrPercent{0}}, 4) ==
        Fenceposts{.max_surge = 2, .max_unavailable = 0});
}

TEST_CASE("a rolling update with maxSurge 1 and maxUnavailable 0 replaces 4 pods one at a time",
          "[workload][rollout]") {
  RolloutRig rig;
  Workload w = web(4);
  w.strategy = {.max_surge = IntOrPercent{1}, .max_unavailable = IntOrPercent{0}};
  const WorkloadId d = rig.controller.add(w, kSimStart);
  rig.sim.run_until(kSimStart);
  rig.bind_pending();
  const Workload v2 = [&] {
    Workload u = w;
    u.pod.spec.images = {"web:2"};
    return u;
  }();
  rig.sim.run_until(at(seconds(10)));
  rig.controller.update(d, v2);
  const PodSpec* new_spec = rig.cluster.pod(rig.controller.active_pods(d).back()).spec;
  // One surge pod; no old pod goes before it is Ready.
  std::vector<std::pair<int, int>> steps{rig.counts(d, new_spec)};
  for (int i = 0; i < 4; ++i) {
    rig.bind_pending();  // Ready at once: the next old pod goes and the next new one comes
    steps.push_back(rig.counts(d, new_spec));
  }
  CHECK(steps == std::vector<std::pair<int, int>>{{4, 1}, {3, 2}, {2, 3}, {1, 4}, {0, 4}});
}

TEST_CASE("Recreate deletes every old pod before it creates the new ones", "[workload][rollout]") {
  RolloutRig rig;
  Workload w = web(3);
  w.strategy.recreate = true;
  const WorkloadId d = rig.controller.add(w, kSimStart);
  rig.sim.run_until(kSimStart);
  rig.bind_pending();
  Workload v2 = w;
  v2.pod.spec.images = {"web:2"};
  const std::size_t before = rig.bus.events.size();
  rig.controller.update(d, v2);
  std::vector<EventKind> kinds;
  for (std::size_t i = before; i < rig.bus.events.size(); ++i)
    if (rig.bus.events[i].kind == EventKind::PodDeleted ||
        rig.bus.events[i].kind == EventKind::PodCreated)
      kinds.push_back(rig.bus.events[i].kind);
  CHECK(kinds == std::vector<EventKind>{EventKind::PodDeleted, EventKind::PodDeleted,
                                        EventKind::PodDeleted, EventKind::PodCreated,
                                        EventKind::PodCreated, EventKind::PodCreated});
}

TEST_CASE("an update without spec.replicas keeps the replicas, with it, sets them",
          "[workload][rollout]") {
  RolloutRig rig;
  const WorkloadId d = rig.controller.add(web(2), kSimStart);
  rig.sim.run_until(kSimStart);
  rig.controller.scale(d, 5, ReplicasSource::Hpa);
  rig.controller.update(d, web(2));  // same template, replicas not given
  CHECK(rig.controller.replicas(d) == 5);
  Workload given = web(3);
  given.replicas_set = true;
  rig.controller.update(d, given);
  CHECK(rig.controller.replicas(d) == 3);
  CHECK(rig.controller.active_pods(d).size() == 3);
}

TEST_CASE("pods come at the controller-manager's API rate: two Deployments scaled from 1 to 500",
          "[workload][api]") {
  RolloutRig rig;  // --kube-api-qps 20, --kube-api-burst 30
  const WorkloadId a = rig.controller.add(web(1), kSimStart);
  Workload b_def = web(1);
  b_def.name = "api";
  const WorkloadId b = rig.controller.add(b_def, kSimStart);
  rig.sim.run_until(at(seconds(60)));  // the bucket is full again: 30 tokens
  const std::size_t before = rig.bus.events.size();
  rig.controller.scale(a, 500, ReplicasSource::Scripted);
  rig.controller.scale(b, 500, ReplicasSource::Scripted);
  rig.sim.run_until(at(minutes(5)));
  std::vector<double> created;
  for (std::size_t i = before; i < rig.bus.events.size(); ++i)
    if (rig.bus.events[i].kind == EventKind::PodCreated)
      created.push_back(to_seconds(rig.bus.events[i].time));
  // 998 pods: 30 at once from the burst, then one every 50 ms: the last at
  // 60 + (998 − 30) / 20 = 108.4 s.
  REQUIRE(created.size() == 998);
  CHECK(std::count(created.begin(), created.end(), 60.0) == 30);
  CHECK(created[30] == Approx(60.05));
  CHECK(created.back() == Approx(108.4));
}
