// Deployment updates, rollouts and the controller-manager's API rate limit, translated from
// Kubernetes' pkg/controller/deployment (rolling_test.go, util/deployment_util_test.go) and
// client-go's token bucket; the ReplicaSet controller's pace (replica_set.go slowStartBatch,
// burstReplicas) and pod UIDs.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

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
  explicit RolloutRig(ApiLimits api = {}, std::uint64_t seed = 3)
      : sim(seed), controller(sim, cluster, bus, api), kubelet(sim, cluster, bus, 0) {
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

  Simulation sim;
  Cluster cluster;
  ForwardingBus bus;
  WorkloadController controller;
  Kubelet kubelet;
  NodeId node = kNoNode;
};

Workload web(int replicas, std::string image = "web:1", std::string name = "web") {
  Workload w;
  w.kind = WorkloadKind::Deployment;
  w.name = std::move(name);
  w.replicas = replicas;
  w.pod.labels["app"] = "web";
  w.pod.spec.requests = pod_requests(100, 128);
  w.pod.spec.images = {std::move(image)};
  return w;
}

// The creation times (s) of each workload's pods from event `from` on.
std::map<WorkloadId, std::vector<double>> creations(const RolloutRig& rig, std::size_t from = 0) {
  std::map<WorkloadId, std::vector<double>> out;
  for (std::size_t i = from; i < rig.bus.events.size(); ++i)
    if (rig.bus.events[i].kind == EventKind::PodCreated)
      out[rig.bus.events[i].workload].push_back(to_seconds(rig.bus.events[i].time));
  return out;
}

// Seconds as the token bucket gives them: whole multiples of 50 ms.
double ms(int millis) { return millis / 1000.0; }

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

// replica_set_test.go TestSlowStartBatch's "callLimit = count (all succeed)" case (batches
// 1 + 2 + 4 + 3 of 10) at the scale of 100, and client-go's token bucket (flowcontrol
// throttle_test.go TestMultithreadedThrottling's 1/qps spacing after the burst): one Deployment
// alone meets a full bucket, so its batches 1, 2, 4, 8, 16, 32, 37 never wait for one another.
TEST_CASE("a Deployment scaled from 0 to 100 creates 30 pods at once then one every 50 ms",
          "[workload][api]") {
  RolloutRig rig;  // --kube-api-qps 20, --kube-api-burst 30
  const WorkloadId d = rig.controller.add(web(0), kSimStart);
  rig.sim.run_until(at(seconds(10)));
  rig.controller.scale(d, 100, ReplicasSource::Scripted);
  rig.sim.run_until(at(seconds(20)));
  const std::vector<double> created = creations(rig)[d];
  REQUIRE(created.size() == 100);
  for (std::size_t i = 0; i < created.size(); ++i) {
    const int tokens_waited = i < 30 ? 0 : static_cast<int>(i) - 29;
    CHECK(created[i] == Approx(10 + ms(50 * tokens_waited)).margin(1e-9));
  }
  CHECK(created.back() == Approx(13.5));
}

// Two ReplicaSets' workers share the controller's client: each batch reserves its tokens when it
// starts, so the second Deployment's batches fall between the first's (replica_set.go
// slowStartBatch's wg.Wait, and rate.Limiter's reservations in call order).
TEST_CASE("two Deployments scaled at once interleave their slow-start batches", "[workload][api]") {
  RolloutRig rig;
  const WorkloadId a = rig.controller.add(web(0), kSimStart);
  const WorkloadId b = rig.controller.add(web(0, "web:1", "api"), kSimStart);
  rig.sim.run_until(at(seconds(10)));
  const std::size_t before = rig.bus.events.size();
  rig.controller.scale(a, 100, ReplicasSource::Scripted);
  rig.controller.scale(b, 100, ReplicasSource::Scripted);
  rig.sim.run_until(at(seconds(30)));
  auto created = creations(rig, before);
  const std::vector<double>& pa = created[a];
  const std::vector<double>& pb = created[b];
  REQUIRE(pa.size() == 100);
  REQUIRE(pb.size() == 100);
  // A, queued first, takes the burst: batches 1, 2, 4, 8 and 15 of its 16 at 10 s, the 16th at
  // the next token (10.05 s). B's first batch (1) reserved the token after it: 10.10 s.
  CHECK(std::count(pa.begin(), pa.end(), 10.0) == 30);
  CHECK(pa[30] == Approx(10.05));
  CHECK(pb[0] == Approx(10.10));
  // A's batch of 32 starts at 10.05 s, behind B's token: 10.15 s to 11.70 s. B's batch of 2 starts
  // at 10.10 s, behind it: 11.75 s and 11.80 s.
  CHECK(pa[31] == Approx(10.15));
  CHECK(pa[62] == Approx(11.70));
  CHECK(pb[1] == Approx(11.75));
  CHECK(pb[2] == Approx(11.80));
  // A's last batch (37) from 11.85 s to 13.65 s; B's batch of 4 behind it, 13.70 s to 13.85 s.
  CHECK(pa[63] == Approx(11.85));
  CHECK(pa[99] == Approx(13.65));
  CHECK(pb[3] == Approx(13.70));
  CHECK(pb[6] == Approx(13.85));
  // Then B alone: 200 pods in all, 30 from the burst and 170 at 20 per second.
  CHECK(pb[7] == Approx(13.90));
  CHECK(pb[99] == Approx(18.50));
}

// replica_set.go manageReplicas: diff is capped at burstReplicas (500), and the key comes back
// through the workqueue, behind the keys already waiting; --concurrent-replicaset-syncs 5.
TEST_CASE("a sync creates at most 500 pods and five ReplicaSets sync at once", "[workload][api]") {
  RolloutRig rig;
  std::vector<WorkloadId> ids;
  for (const char* name : {"a", "b", "c", "d", "e", "f"})
    ids.push_back(rig.controller.add(web(0, "web:1", name), kSimStart));
  rig.sim.run_until(at(seconds(10)));
  const std::size_t before = rig.bus.events.size();
  for (WorkloadId id : ids) rig.controller.scale(id, 600, ReplicasSource::Scripted);
  rig.sim.run_until(at(minutes(10)));
  auto created = creations(rig, before);
  for (WorkloadId id : ids) REQUIRE(created[id].size() == 600);
  const std::vector<double>& first = created[ids[0]];
  const std::vector<double>& sixth = created[ids[5]];
  // The sixth waits for a worker: none is free before the first's sync has created its 500th.
  CHECK(sixth.front() > first[499]);
  // The first's 501st pod comes from a second sync, queued behind the sixth.
  CHECK(first[500] > sixth.front());
  // 3,600 pods at 20 per second after the burst of 30: the tokens never idle.
  double last = 0;
  for (auto& [id, times] : created) last = std::max(last, times.back());
  CHECK(last == Approx(10 + (3600 - 30) * 0.05));
}

TEST_CASE("pod UIDs are random version 4 UUIDs drawn from the seed", "[workload]") {
  auto uids = [](std::uint64_t seed) {
    RolloutRig rig({}, seed);
    const WorkloadId d = rig.controller.add(web(3), kSimStart);
    rig.sim.run_until(at(seconds(1)));
    std::vector<std::string> out;
    for (PodId p : rig.controller.active_pods(d)) out.push_back(rig.cluster.pod(p).uid);
    return out;
  };
  const std::vector<std::string> seven = uids(7);
  REQUIRE(seven.size() == 3);
  for (const std::string& uid : seven) {
    REQUIRE(uid.size() == 36);
    CHECK(uid[8] == '-');
    CHECK(uid[13] == '-');
    CHECK(uid[14] == '4');
    CHECK(std::string("89ab").find(uid[19]) != std::string::npos);
    CHECK(uid.find_first_not_of("0123456789abcdef-") == std::string::npos);
  }
  CHECK(seven[0] != seven[1]);
  CHECK(uids(7) == seven);
  CHECK(uids(8) != seven);
}

// controller_utils.go ActivePodsWithRanks ends on the UID: pods created at one instant and still
// unscheduled are deleted in UID order, not in the order they were created.
TEST_CASE("scale-down of equally ranked pods deletes the smallest UIDs first", "[workload]") {
  RolloutRig rig;
  const WorkloadId d = rig.controller.add(web(8), kSimStart);
  rig.sim.run_until(at(seconds(1)));
  std::vector<std::pair<std::string, PodId>> by_uid;
  for (PodId p : rig.controller.active_pods(d)) by_uid.emplace_back(rig.cluster.pod(p).uid, p);
  std::sort(by_uid.begin(), by_uid.end());
  rig.controller.scale(d, 5, ReplicasSource::Scripted);
  std::vector<PodId> kept(rig.controller.active_pods(d));
  std::sort(kept.begin(), kept.end());
  std::vector<PodId> expected;
  for (std::size_t i = 3; i < by_uid.size(); ++i) expected.push_back(by_uid[i].second);
  std::sort(expected.begin(), expected.end());
  CHECK(kept == expected);
}

TEST_CASE("the same seed gives the same creations names and UIDs", "[workload][api]") {
  auto story = [](std::uint64_t seed) {
    RolloutRig rig({}, seed);
    const WorkloadId a = rig.controller.add(web(0), kSimStart);
    const WorkloadId b = rig.controller.add(web(0, "web:1", "api"), kSimStart);
    rig.sim.run_until(at(seconds(1)));
    rig.controller.scale(a, 120, ReplicasSource::Scripted);
    rig.controller.scale(b, 70, ReplicasSource::Scripted);
    rig.sim.run_until(at(seconds(30)));
    std::string out;
    for (const auto& e : rig.bus.events)
      if (e.kind == EventKind::PodCreated)
        out += fmt::format("{} {} {}\n", to_seconds(e.time), rig.cluster.pod(e.pod).name,
                           rig.cluster.pod(e.pod).uid);
    return out;
  };
  const std::string first = story(11);
  CHECK(std::count(first.begin(), first.end(), '\n') == 190);
  CHECK(story(11) == first);
  CHECK(story(12) != first);
}
