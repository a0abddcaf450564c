// The one pod lifecycle: start-up timing for pods with a profile, Ready at bind for the others,
// and termination that waits for the pod's work or its grace period.
#include "fleetsim/kube/kubelet.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

constexpr std::int64_t kPullBytesPerSecond = 60'000'000;

// Work that ends when the test says so.
struct Work final : PodWorkListener {
  void on_pod_bound(PodId pod) override { log.push_back("bound " + std::to_string(pod)); }
  void on_pod_ready(PodId pod) override { log.push_back("ready " + std::to_string(pod)); }
  void on_pod_draining(PodId pod) override { log.push_back("draining " + std::to_string(pod)); }
  void on_pod_killed(PodId pod) override { log.push_back("killed " + std::to_string(pod)); }
  std::vector<std::string> log;
};

struct KubeletRig {
  KubeletRig() : kubelet(sim, cluster, bus, kPullBytesPerSecond) {
    node = add_node(cluster, {.name = "gpu", .allocatable = node_allocatable(8000, 32)});
  }
  PodId bound_pod(WorkloadId workload, SimDuration grace = seconds(30)) {
    PodSpec spec;
    spec.requests = pod_requests(100, 128);
    spec.images = {"vllm:1"};
    spec.termination_grace = grace;
    Pod p;
    p.name = "pod-" + std::to_string(cluster.next_pod_id());
    p.workload = workload;
    p.spec = specs.add(std::move(spec));
    p.labels = &no_labels();
    const PodId id = cluster.add_pod(std::move(p));
    cluster.bind(id, node, sim.now());
    kubelet.on_bound(id);
    return id;
  }

  Simulation sim{3};
  Cluster cluster;
  RecordingBus bus;
  SpecStore specs;
  Kubelet kubelet;
  NodeId node = kNoNode;
};

}  // namespace

TEST_CASE("a pod without a start-up profile is started and Ready when bound", "[kube]") {
  KubeletRig rig;
  const PodId pod = rig.bound_pod(0);
  CHECK(rig.cluster.pod(pod).started);
  CHECK(rig.cluster.pod(pod).ready);
  CHECK(rig.cluster.pod(pod).ready_at == kSimStart);
  CHECK(rig.bus.seconds_of(EventKind::PodReady) == std::vector<double>{0});
}

TEST_CASE("a profiled pod pulls its image, loads its model and turns Ready", "[kube]") {
  KubeletRig rig;
  Work work;
  // 6 GB at 60 MB/s = 100 s of pull, then 20 s of model load; no probes.
  rig.kubelet.manage(0, {.image_bytes = 6'000'000'000, .model_load = seconds(20)}, &work);
  const PodId pod = rig.bound_pod(0);
  CHECK(work.log == std::vector<std::string>{"bound 0"});
  rig.sim.run_until(at(seconds(100)));
  CHECK(rig.cluster.pod(pod).started);
  CHECK_FALSE(rig.cluster.pod(pod).ready);
  rig.sim.run_until(at(seconds(120)));
  CHECK(rig.cluster.pod(pod).ready);
  CHECK(rig.bus.seconds_of(EventKind::PodReady) == std::vector<double>{120});
  CHECK(work.log.back() == "ready 0");
  // A second pod on the node finds the image there: only the model load.
  const PodId second = rig.bound_pod(0);
  rig.sim.run_until(at(seconds(140)));
  CHECK(rig.cluster.pod(second).ready);
}

TEST_CASE("a terminating pod leaves its node when its work is done, or when its grace period ends",
          "[kube]") {
  KubeletRig rig;
  Work work;
  rig.kubelet.manage(0, {}, &work);
  const PodId quick = rig.bound_pod(0);
  const PodId slow = rig.bound_pod(0);
  rig.sim.run_until(at(seconds(1)));
  for (PodId p : {quick, slow}) {
    rig.cluster.pod_terminating(p, rig.sim.now());
    rig.kubelet.on_terminating(p);
    CHECK_FALSE(rig.cluster.pod(p).ready);  // out of the endpoints at once
  }
  rig.sim.run_until(at(seconds(5)));
  rig.kubelet.work_done(quick);
  CHECK(rig.cluster.pod(quick).phase == PodPhase::Deleted);
  CHECK(rig.cluster.pod(slow).phase == PodPhase::Running);
  rig.sim.run_until(at(seconds(31)));  // 1 s + the 30 s grace period
  CHECK(rig.cluster.pod(slow).phase == PodPhase::Deleted);
  CHECK(rig.bus.seconds_of(EventKind::PodDeleted) == std::vector<double>{5, 31});
  CHECK(work.log.back() == "killed " + std::to_string(slow));
}

TEST_CASE("a pod without a profile but with a readiness probe turns Ready when the probe passes",
          "[kube]") {
  KubeletRig rig;
  PodSpec spec;
  spec.requests = pod_requests(100, 128);
  spec.readiness_probe =
      ProbeTiming{.initial_delay = seconds(10), .period = seconds(5), .success_threshold = 1};
  Pod p;
  p.name = "web-0";
  p.spec = rig.specs.add(std::move(spec));
  p.labels = &no_labels();
  const PodId id = rig.cluster.add_pod(std::move(p));
  rig.cluster.bind(id, rig.node, rig.sim.now());
  rig.kubelet.on_bound(id);
  CHECK(rig.cluster.pod(id).started);
  CHECK_FALSE(rig.cluster.pod(id).ready);
  rig.sim.run_until(at(seconds(10)));  // the first probe that counts, at the 10 s delay
  CHECK(rig.cluster.pod(id).ready);
  CHECK(rig.bus.seconds_of(EventKind::PodReady) == std::vector<double>{10});
}
