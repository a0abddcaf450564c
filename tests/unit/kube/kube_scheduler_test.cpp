#include "fleetsim/kube/kube_scheduler.hpp"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <vector>

#include "fleetsim/core/stop_flag.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// A KubeScheduler over a hand-built cluster; pods it cannot place are collected.
struct SchedulerRig {
  explicit SchedulerRig(std::vector<SchedulerProfile> profiles = {SchedulerProfile{}})
      : scheduler(
            sim, cluster, bus, [this](PodId p) { unschedulable.push_back(p); },
            std::move(profiles)) {}
  SchedulerRig(const SchedulerRig&) = delete;
  SchedulerRig& operator=(const SchedulerRig&) = delete;

  // One pass at the current instant.
  void pass() {
    scheduler.request_pass();
    sim.run_until(sim.now());
  }
  PodId pending(const Resources& requests, SimTime created = kSimStart) {
    return add_pending_pod(cluster, specs.add(requests), created);
  }
  PodId pending(PodSpec spec, SimTime created = kSimStart) {
    return add_pending_pod(cluster, specs.add(std::move(spec)), created);
  }
  // Puts load on a node with a pod that is already running there.
  void load(NodeId node, const Resources& requests) {
    PodId p = pending(requests);
    cluster.bind(p, node, sim.now());
  }
  NodeId bound_node(PodId pod) const { return cluster.pod(pod).node; }

  Simulation sim{3};
  Cluster cluster;
  RecordingBus bus;
  SpecStore specs;
  std::vector<PodId> unschedulable;
  KubeScheduler scheduler;
};

PodSpec spec_with(const Resources& requests) {
  PodSpec s;
  s.requests = requests;
  return s;
}

const Taint kGpuTaint{.key = "nvidia.com/gpu", .value = "true", .effect = TaintEffect::NoSchedule};

}  // namespace

// Karpenter v1 never sets status.nominatedNodeName: its nomination is internal, and the real
// kube-scheduler scores every feasible node (karpenter pkg/controllers/provisioning/scheduling).
TEST_CASE("kube-scheduler scores every node and ignores Karpenter's nomination", "[kube]") {
  SchedulerRig rig;
  NodeId empty = add_node(rig.cluster, {.name = "b-empty"});
  NodeId busy = add_node(rig.cluster, {.name = "a-busy"});
  rig.load(busy, pod_requests(2000, 4096));
  PodId pod = rig.pending(pod_requests(500, 512));
  rig.cluster.nominate(pod, busy);

  rig.sim.run_until(at(seconds(3)));
  rig.pass();
  CHECK(rig.bound_node(pod) == empty);
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Running);
  CHECK(rig.cluster.pod(pod).bound_at == at(seconds(3)));
  CHECK(rig.cluster.pod(pod).nominated == kNoNode);
  CHECK(rig.bus.bound == std::vector<PodId>{pod});
  REQUIRE(rig.bus.count(EventKind::PodScheduled) == 1);
  const RecordedEvent e = rig.bus.of_kind(EventKind::PodScheduled).front();
  CHECK(e.time == at(seconds(3)));
  CHECK(e.node == empty);
  CHECK(e.pod == pod);
}

TEST_CASE("kube-scheduler picks the least allocated feasible node", "[kube]") {
  SchedulerRig rig;
  NodeId half = add_node(rig.cluster, {.name = "a-half"});
  NodeId quarter = add_node(rig.cluster, {.name = "b-quarter"});
  rig.load(half, pod_requests(2000, 8192));     // 50% CPU, 50% memory of 4 CPU / 16 GiB
  rig.load(quarter, pod_requests(1000, 4096));  // 25%, 25%
  PodId pod = rig.pending(pod_requests(500, 512));
  rig.pass();
  CHECK(rig.bound_node(pod) == quarter);
  CHECK(rig.unschedulable.empty());
}

// schedule_one.go selectHost: a uniform choice among the nodes with the highest total, drawn
// from the scheduler's own seeded stream (upstream draws from math/rand).
TEST_CASE("kube-scheduler breaks equal scores at random and the same way for a seed", "[kube]") {
  std::array<int, 3> wins{};
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Simulation sim(seed);
    Cluster cluster;
    RecordingBus bus;
    SpecStore specs;
    KubeScheduler scheduler(sim, cluster, bus, [](PodId) {});
    const NodeId first = add_node(cluster, {.name = "node-b"});
    add_node(cluster, {.name = "node-a"});
    add_node(cluster, {.name = "node-c"});
    const PodId pod = add_pending_pod(cluster, specs.add(pod_requests(500, 512)), kSimStart);
    scheduler.request_pass();
    sim.run_until(sim.now());
    ++wins[cluster.pod(pod).node - first];
  }
  // 300 draws of three equal nodes: each within ±4.5 standard deviations of 100.
  for (int w : wins) CHECK(std::abs(w - 100) <= 37);
  CHECK(wins[0] + wins[1] + wins[2] == 300);
}

TEST_CASE("kube-scheduler only uses initialized nodes", "[kube]") {
  SchedulerRig rig;
  add_node(rig.cluster, {.name = "a-registered", .phase = NodePhase::Registered});
  add_node(rig.cluster, {.name = "b-launched", .phase = NodePhase::Launched});
  add_node(rig.cluster, {.name = "c-deleting", .phase = NodePhase::Deleting});
  NodeId ready = add_node(rig.cluster, {.name = "d-ready"});
  rig.load(ready, pod_requests(3000, 8192));
  PodId pod = rig.pending(pod_requests(500, 512));
  rig.pass();
  CHECK(rig.bound_node(pod) == ready);
}

TEST_CASE("kube-scheduler skips nodes whose taints the pod does not tolerate", "[kube]") {
  SchedulerRig rig;
  NodeId gpu = add_node(rig.cluster, {.name = "a-gpu", .taints = {kGpuTaint}});
  NodeId cpu = add_node(rig.cluster, {.name = "b-cpu"});
  rig.load(cpu, pod_requests(2000, 8192));
  PodId plain = rig.pending(pod_requests(500, 512));
  PodSpec tolerant = spec_with(pod_requests(500, 512));
  tolerant.tolerations.push_back(
      Toleration{.key = "nvidia.com/gpu", .op = TolerationOperator::Exists});
  PodId gpu_pod = rig.pending(tolerant, at(seconds(1)));
  rig.pass();
  CHECK(rig.bound_node(plain) == cpu);    // the emptier GPU node is tainted
  CHECK(rig.bound_node(gpu_pod) == gpu);  // tolerated, and emptier
}

TEST_CASE("kube-scheduler skips nodes whose labels conflict with the pod's nodeSelector",
          "[kube]") {
  SchedulerRig rig;
  add_node(rig.cluster,
           {.name = "a-1a", .zone = "us-east-1a", .extra_labels = {{"team", "infra"}}});
  NodeId b = add_node(rig.cluster,
                      {.name = "b-1b", .zone = "us-east-1b", .extra_labels = {{"team", "ml"}}});
  add_node(rig.cluster, {.name = "c-unlabelled", .zone = "us-east-1b"});
  rig.load(b, pod_requests(3000, 8192));
  PodSpec s = spec_with(pod_requests(500, 512));
  s.node_requirements.add(std::string(label::kZone), Requirement::single("us-east-1b"));
  s.node_requirements.add("team", Requirement::single("ml"));
  PodId pod = rig.pending(s);
  rig.pass();
  // a-1a has the wrong zone and team; c-unlabelled lacks the custom label the pod asks for.
  CHECK(rig.bound_node(pod) == b);
}

TEST_CASE("kube-scheduler counts DaemonSet overhead against a node's room", "[kube]") {
  SchedulerRig rig;
  add_node(rig.cluster, {.name = "a",
                         .allocatable = node_allocatable(2000, 8),
                         .daemon_overhead = pod_requests(600, 512)});
  PodId pod = rig.pending(pod_requests(1500, 512));  // 1500m + 600m > 2000m
  rig.pass();
  CHECK(rig.bound_node(pod) == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{pod});
}

TEST_CASE("kube-scheduler binds higher priority pods first when room is short", "[kube]") {
  SchedulerRig rig;
  NodeId node = add_node(rig.cluster, {.name = "a", .allocatable = node_allocatable(1500, 8)});
  PodId low = rig.pending(pod_requests(1000, 512), kSimStart);
  PodSpec high_spec = spec_with(pod_requests(1000, 512));
  high_spec.priority = 1000;
  PodId high = rig.pending(high_spec, at(seconds(5)));  // newer, but more important
  rig.sim.run_until(at(seconds(5)));
  rig.pass();
  CHECK(rig.bound_node(high) == node);
  CHECK(rig.bound_node(low) == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{low});
}

TEST_CASE("kube-scheduler binds older pods first at equal priority", "[kube]") {
  SchedulerRig rig;
  NodeId node = add_node(rig.cluster, {.name = "a", .allocatable = node_allocatable(1500, 8)});
  PodId newer = rig.pending(pod_requests(1000, 512), at(seconds(2)));
  PodId older = rig.pending(pod_requests(1000, 512), at(seconds(1)));
  rig.sim.run_until(at(seconds(2)));
  rig.pass();
  CHECK(rig.bound_node(older) == node);
  CHECK(rig.unschedulable == std::vector<PodId>{newer});
}

TEST_CASE("kube-scheduler reports a pod without a nomination that fits nowhere", "[kube]") {
  SchedulerRig rig;
  add_node(rig.cluster, {.name = "a"});
  PodId big = rig.pending(pod_requests(8000, 512));
  rig.pass();
  CHECK(rig.unschedulable == std::vector<PodId>{big});
  CHECK(rig.bus.bound.empty());
  CHECK(rig.bus.count(EventKind::PodScheduled) == 0);
  CHECK(rig.cluster.pod(big).phase == PodPhase::Pending);
}

TEST_CASE("kube-scheduler waits quietly for a pod's nominated node that is still starting",
          "[kube]") {
  SchedulerRig rig;
  NodeId starting = add_node(rig.cluster, {.name = "a-starting", .phase = NodePhase::Registered});
  PodId pod = rig.pending(pod_requests(500, 512));
  rig.cluster.nominate(pod, starting);
  rig.pass();
  // Karpenter already has a plan for it: no new trigger.
  CHECK(rig.unschedulable.empty());
  CHECK(rig.bound_node(pod) == kNoNode);

  // The node comes up at once: the pod, which failed a moment ago, waits out its 1 s backoff.
  rig.cluster.node_initialized(starting, rig.sim.now());
  rig.scheduler.cluster_changed();
  rig.sim.run_until(rig.sim.now());
  CHECK(rig.bound_node(pod) == kNoNode);
  rig.sim.run_until(at(seconds(1)));
  CHECK(rig.bound_node(pod) == starting);
  CHECK(rig.cluster.pod(pod).bound_at == at(seconds(1)));
}

// scheduling_queue.go: a pod that fit nowhere is tried again only after an event that may help
// it, and not before its backoff ends; new pods do not bring it back.
TEST_CASE("kube-scheduler retries an unschedulable pod after a helpful event and its backoff",
          "[kube]") {
  SchedulerRig rig;
  NodeId node = add_node(rig.cluster, {.name = "a"});
  PodId load = rig.pending(pod_requests(3000, 512));
  rig.cluster.bind(load, node, rig.sim.now());
  PodId big = rig.pending(pod_requests(2000, 512));
  rig.pass();
  CHECK(rig.bound_node(big) == kNoNode);

  // Room appears without an event: a new pod's pass does not try the unschedulable one.
  rig.sim.run_until(at(seconds(5)));
  rig.cluster.finish(load, PodPhase::Deleted, rig.sim.now());
  PodId small = rig.pending(pod_requests(100, 128), rig.sim.now());
  rig.scheduler.request_pass();
  rig.sim.run_until(rig.sim.now());
  CHECK(rig.bound_node(small) == node);
  CHECK(rig.bound_node(big) == kNoNode);

  // The node changed: its backoff (1 s after one failure) is long over, so it binds at once.
  rig.scheduler.cluster_changed();
  rig.sim.run_until(rig.sim.now());
  CHECK(rig.bound_node(big) == node);
  CHECK(rig.cluster.pod(big).bound_at == at(seconds(5)));
}

// flushUnschedulablePodsLeftover: every 30 s, pods unschedulable for over 5 minutes go back.
TEST_CASE("kube-scheduler retries a pod unschedulable for five minutes at the next 30 s flush",
          "[kube]") {
  SchedulerRig rig;
  NodeId node = add_node(rig.cluster, {.name = "a"});
  PodId load = rig.pending(pod_requests(3000, 512));
  rig.cluster.bind(load, node, rig.sim.now());
  rig.sim.run_until(at(seconds(10)));
  PodId big = rig.pending(pod_requests(2000, 512), rig.sim.now());
  rig.pass();
  rig.cluster.finish(load, PodPhase::Deleted, rig.sim.now());  // no event
  rig.sim.run_until(at(minutes(5) + seconds(29)));
  CHECK(rig.bound_node(big) == kNoNode);
  // Failed at 10 s: over 5 minutes unschedulable at 5 min 10 s; the flushes run at 5 min and
  // 5 min 30 s.
  rig.sim.run_until(at(minutes(5) + seconds(30)));
  CHECK(rig.bound_node(big) == node);
  CHECK(rig.cluster.pod(big).bound_at == at(minutes(5) + seconds(30)));
}

// schedule_one.go numFeasibleNodesToFind and nextStartNodeIndex: of 200 nodes (≥ 100), a search
// stops at 100 feasible nodes (50% − 200/125 = 49% is below the floor of 100), and the next pod's
// search starts where it stopped.
TEST_CASE("kube-scheduler searches a sample of a large cluster from a rotating start", "[kube]") {
  SchedulerRig rig;
  std::vector<NodeId> nodes;
  for (int i = 0; i < 200; ++i)
    nodes.push_back(add_node(rig.cluster, {.name = "n" + std::to_string(1000 + i)}));
  PodId first = rig.pending(pod_requests(100, 128));
  PodId second = rig.pending(pod_requests(100, 128), at(seconds(1)));
  rig.sim.run_until(at(seconds(1)));
  rig.pass();
  CHECK(rig.bound_node(first) < nodes[100]);
  CHECK(rig.bound_node(second) >= nodes[100]);
}

TEST_CASE("kube-scheduler reports a pod whose nominated Ready node has no room left", "[kube]") {
  SchedulerRig rig;
  NodeId node = add_node(rig.cluster, {.name = "a", .allocatable = node_allocatable(1500, 8)});
  PodId first = rig.pending(pod_requests(1000, 512), kSimStart);
  PodId second = rig.pending(pod_requests(1000, 512), at(seconds(1)));
  // Karpenter planned both onto the node, but it only has room for one.
  rig.cluster.nominate(first, node);
  rig.cluster.nominate(second, node);
  rig.sim.run_until(at(seconds(1)));
  rig.pass();
  CHECK(rig.bound_node(first) == node);
  // The nominated node is Ready and full: nothing else will bring room, so Karpenter must hear
  // about the pod (a real kube-scheduler marks it Unschedulable, which triggers Karpenter).
  CHECK(rig.unschedulable == std::vector<PodId>{second});
}

TEST_CASE("kube-scheduler coalesces pass requests at one instant", "[kube]") {
  SchedulerRig rig;
  add_node(rig.cluster, {.name = "a"});
  PodId big = rig.pending(pod_requests(8000, 512));
  rig.scheduler.request_pass();
  rig.scheduler.request_pass();
  rig.sim.run_until(rig.sim.now());
  CHECK(rig.unschedulable == std::vector<PodId>{big});  // one pass, one report
}

namespace {

const Labels kDb{{"app", "db"}};
const Labels kWeb{{"app", "web"}};

PodAffinityTerm selecting(std::string_view key, const Labels& match) {
  return PodAffinityTerm{.topology_key = std::string(key),
                         .selector = LabelSelector{.match_labels = match}};
}

PodId add_labelled_pod(SchedulerRig& rig, PodSpec spec, const Labels* labels) {
  Pod p;
  p.name = "pod-" + std::to_string(rig.cluster.next_pod_id());
  p.spec = rig.specs.add(std::move(spec));
  p.labels = labels;
  p.namespace_name = "default";
  p.uid = "uid-" + std::to_string(rig.cluster.next_pod_id());
  p.created = rig.sim.now();
  return rig.cluster.add_pod(std::move(p));
}

}  // namespace

TEST_CASE("kube-scheduler binds a pod with required affinity only beside the pods it selects",
          "[kube]") {
  SchedulerRig rig;
  add_node(rig.cluster, {.name = "a-empty"});
  NodeId busy = add_node(rig.cluster, {.name = "b-busy"});
  PodId db = add_labelled_pod(rig, spec_with(pod_requests(2000, 4096)), &kDb);
  rig.cluster.bind(db, busy, rig.sim.now());

  PodSpec follower = spec_with(pod_requests(500, 512));
  follower.pod_affinity.required.push_back(selecting(label::kHostname, kDb));
  PodId pod = add_labelled_pod(rig, follower, &kWeb);
  rig.pass();
  // The emptier node scores better, but only b-busy holds a db pod.
  CHECK(rig.bound_node(pod) == busy);
}

TEST_CASE("kube-scheduler keeps a pod out of a running pod's anti-affinity zone", "[kube]") {
  SchedulerRig rig;
  NodeId idle = add_node(rig.cluster, {.name = "a-idle", .zone = "us-east-1a"});
  NodeId same_zone = add_node(rig.cluster, {.name = "b-idle", .zone = "us-east-1a"});
  NodeId other = add_node(rig.cluster, {.name = "c-half", .zone = "us-east-1b"});
  rig.load(other, pod_requests(2000, 8192));
  PodSpec guard = spec_with(pod_requests(100, 128));
  guard.pod_anti_affinity.required.push_back(selecting(label::kZone, kWeb));
  PodId g = add_labelled_pod(rig, guard, &kDb);
  rig.cluster.bind(g, idle, rig.sim.now());

  PodId web = add_labelled_pod(rig, spec_with(pod_requests(500, 512)), &kWeb);
  PodId db = add_labelled_pod(rig, spec_with(pod_requests(500, 512)), &kDb);
  rig.pass();
  CHECK(rig.bound_node(web) == other);     // the guard's zone is closed to web pods
  CHECK(rig.bound_node(db) == same_zone);  // but not to others: the least allocated node
}

TEST_CASE("kube-scheduler: the first pod of a self-affine group binds - affinity to nothing waits",
          "[kube]") {
  SchedulerRig rig;
  NodeId a = add_node(rig.cluster, {.name = "node-a"});
  PodSpec self = spec_with(pod_requests(500, 512));
  self.pod_affinity.required.push_back(selecting(label::kHostname, kWeb));
  PodId first = add_labelled_pod(rig, self, &kWeb);
  PodSpec lonely = spec_with(pod_requests(500, 512));
  lonely.pod_affinity.required.push_back(selecting(label::kZone, kDb));
  PodId waiting = add_labelled_pod(rig, lonely, &kWeb);
  rig.pass();
  CHECK(rig.bound_node(first) == a);
  CHECK(rig.bound_node(waiting) == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{waiting});
}

// A pass over thousands of pending pods honours SIGTERM between pods (issue 25, item 8).
TEST_CASE("kube-scheduler stops between pods when a stop is requested", "[kube]") {
  clear_stop_request();
  SchedulerRig rig;
  rig.pending(pod_requests(500, 512));
  rig.pending(pod_requests(500, 512));
  KubeScheduler stopping(rig.sim, rig.cluster, rig.bus, [&](PodId p) {
    rig.unschedulable.push_back(p);
    request_stop(SIGTERM);  // as the handler would, during the pass
  });
  stopping.request_pass();
  CHECK_THROWS_AS(rig.sim.run_until(rig.sim.now()), StopRequested);
  CHECK(rig.unschedulable.size() == 1);  // the second pod was not tried
  clear_stop_request();
}

// Pods alike share their affinity mask and a fruitless scan within a pass, until a bind changes
// what runs (issue 25, item 8: per pod, 3,000 pods apart took minutes).
TEST_CASE("kube-scheduler spreads a workload's pods apart one per node within one pass", "[kube]") {
  clear_stop_request();
  SchedulerRig rig;
  NodeId a = add_node(rig.cluster, {.name = "a"});
  std::vector<NodeId> free{add_node(rig.cluster, {.name = "b"}),
                           add_node(rig.cluster, {.name = "c"}),
                           add_node(rig.cluster, {.name = "d"})};
  PodSpec apart = spec_with(pod_requests(100, 128));
  apart.pod_anti_affinity.required.push_back(selecting(label::kHostname, kWeb));
  const PodSpec* spec = rig.specs.add(std::move(apart));
  auto web_pod = [&] {
    Pod p;
    p.name = "web-" + std::to_string(rig.cluster.next_pod_id());
    p.spec = spec;  // one spec, as a Deployment's pods have
    p.labels = &kWeb;
    p.namespace_name = "default";
    p.uid = p.name;
    p.created = rig.sim.now();
    return rig.cluster.add_pod(std::move(p));
  };
  rig.cluster.bind(web_pod(), a, rig.sim.now());
  std::vector<PodId> pending{web_pod(), web_pod(), web_pod(), web_pod()};
  rig.pass();
  std::vector<NodeId> bound;
  for (std::size_t i = 0; i < 3; ++i) bound.push_back(rig.bound_node(pending[i]));
  std::sort(bound.begin(), bound.end());
  CHECK(bound == free);
  CHECK(rig.bound_node(pending[3]) == kNoNode);
  CHECK(rig.unschedulable == std::vector<PodId>{pending[3]});
}

// A KubeSchedulerConfiguration's NodeResourcesFit MostAllocated (with nvidia.com/gpu weighted, as
// the GPU guides recommend) packs a one-GPU pod onto the node whose GPUs are already busy;
// the default LeastAllocated sends it to the empty node.
TEST_CASE("a MostAllocated profile packs a GPU pod where the default spreads it", "[kube]") {
  auto place = [](std::vector<SchedulerProfile> profiles) {
    SchedulerRig rig(std::move(profiles));
    Resources four_gpus = node_allocatable(47000, 180);
    four_gpus[resource::kNvidiaGpu] = 4;
    NodeId empty = add_node(rig.cluster, {.name = "a-empty", .allocatable = four_gpus});
    NodeId busy = add_node(rig.cluster, {.name = "b-busy", .allocatable = four_gpus});
    rig.load(busy, pod_requests(4000, 16384, 2));
    PodId pod = rig.pending(pod_requests(4000, 16384, 1));
    rig.pass();
    const NodeId node = rig.bound_node(pod);
    return node == empty ? "a-empty" : node == busy ? "b-busy" : "none";
  };
  CHECK(std::string(place({SchedulerProfile{}})) == "a-empty");
  SchedulerProfile packing;
  packing.fit = {
      .type = ScoringStrategyType::MostAllocated,
      .resources = {{resource::kCpu, 1}, {resource::kMemory, 1}, {resource::kNvidiaGpu, 3}}};
  CHECK(std::string(place({packing})) == "b-busy");
}

// percentageOfNodesToScore 100 scores every node, where the adaptive default stops at 100
// feasible ones of 200: a pod that only the 150th node would win goes there.
TEST_CASE("percentageOfNodesToScore 100 scores every node", "[kube]") {
  auto place = [](std::int32_t percentage) {
    SchedulerProfile profile;
    profile.percentage_of_nodes_to_score = percentage;
    SchedulerRig rig({profile});
    std::vector<NodeId> nodes;
    for (int i = 0; i < 200; ++i)
      nodes.push_back(add_node(rig.cluster, {.name = "n" + std::to_string(i)}));
    for (int i = 0; i < 200; ++i)
      if (i != 150) rig.load(nodes[i], pod_requests(1000, 1024));
    PodId pod = rig.pending(pod_requests(100, 128));
    rig.pass();
    return rig.bound_node(pod) == nodes[150];
  };
  CHECK(place(100));
  CHECK_FALSE(place(0));  // adaptive: 49% of 200 is 98, so the first 100 feasible nodes
}

// Several profiles: each pod is scored by its own (spec.schedulerName); a pod no profile names
// is left Pending and not reported unschedulable, so no provisioner acts for it.
TEST_CASE("each pod is scored by its profile and a pod of no profile stays Pending", "[kube]") {
  SchedulerProfile spread;
  SchedulerProfile pack;
  pack.scheduler_name = "bin-packer";
  pack.fit.type = ScoringStrategyType::MostAllocated;
  SchedulerRig rig({spread, pack});
  NodeId empty = add_node(rig.cluster, {.name = "a-empty"});
  NodeId busy = add_node(rig.cluster, {.name = "b-busy"});
  rig.load(busy, pod_requests(2000, 4096));
  PodSpec packed = spec_with(pod_requests(500, 512));
  packed.scheduler_name = "bin-packer";
  packed.scheduler_profile = 1;
  PodSpec orphan = spec_with(pod_requests(500, 512));
  orphan.scheduler_name = "gpu-scheduler";
  orphan.scheduler_profile = -1;
  PodId spread_pod = rig.pending(pod_requests(500, 512));
  PodId packed_pod = rig.pending(packed);
  PodId orphan_pod = rig.pending(orphan);
  rig.pass();
  CHECK(rig.bound_node(spread_pod) == empty);
  CHECK(rig.bound_node(packed_pod) == busy);
  CHECK(rig.bound_node(orphan_pod) == kNoNode);
  CHECK(rig.cluster.pod(orphan_pod).phase == PodPhase::Pending);
  CHECK(rig.unschedulable.empty());
}

// ImageLocality (weight 1) tips a tie to the node that already holds the pod's image: with two
// of three nodes holding a 2 GiB image, each scores 100 × (2 GiB × 2/3 − 23 MiB) / (1000 MiB −
// 23 MiB) → the cap, 100. Without the image data (or weight 0) the three tie and the seeded draw
// picks one; weight 0 must not read the images.
TEST_CASE("ImageLocality steers a pod to the nodes that hold its image", "[kube]") {
  for (std::int64_t weight : {1, 0}) {
    SchedulerProfile profile;
    profile.weights.image_locality = weight;
    SchedulerRig rig({profile});
    NodeImages images;
    rig.scheduler.set_node_images(&images);
    const NodeId a = add_node(rig.cluster, {.name = "a"});
    const NodeId b = add_node(rig.cluster, {.name = "b"});
    const NodeId c = add_node(rig.cluster, {.name = "c"});
    images.pulled(b, "vllm/vllm-openai:v0.9.2", 2LL << 30);
    images.pulled(c, "vllm/vllm-openai:v0.9.2", 2LL << 30);
    std::vector<NodeId> chosen;
    for (int i = 0; i < 6; ++i) {
      PodSpec spec = spec_with(pod_requests(100, 128));
      spec.images = {"vllm/vllm-openai:v0.9.2"};
      const PodId pod = rig.pending(std::move(spec));
      rig.pass();
      chosen.push_back(rig.bound_node(pod));
    }
    if (weight == 1) {
      CHECK(std::count(chosen.begin(), chosen.end(), a) == 0);
    } else {
      CHECK(std::count(chosen.begin(), chosen.end(), a) > 0);
    }
  }
}
