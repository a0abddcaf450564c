#include "fleetsim/workload/workload_controller.hpp"

#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "fleetsim/kube/kubelet.hpp"
#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// Kubernetes' generateName alphabet (no vowels, no look-alikes), as a regex character class.
const std::string kSuffixChar = "[bcdfghjklmnpqrstvwxz2456789]";

bool matches(const std::string& text, const std::string& pattern) {
  return std::regex_match(text, std::regex(pattern));
}

// A WorkloadController and the kubelet wired to a recording bus, with one big Ready node to bind
// pods to by hand (standing in for kube-scheduler).
struct WorkloadRig {
  explicit WorkloadRig(std::uint64_t seed = 11)
      : sim(seed), controller(sim, cluster, bus), kubelet(sim, cluster, bus, 0) {
    bus.forward_bound = [this](PodId p) {
      controller.on_bound(p);
      kubelet.on_bound(p);
    };
    bus.forward_evicted = [this](PodId p) { controller.on_evicted(p); };
    node = add_node(cluster, {.name = "big", .allocatable = node_allocatable(64000, 256)});
  }
  WorkloadRig(const WorkloadRig&) = delete;
  WorkloadRig& operator=(const WorkloadRig&) = delete;

  void run_to(SimDuration t) { sim.run_until(at(t)); }
  void bind(PodId pod) {
    cluster.bind(pod, node, sim.now());
    bus.pod_bound(pod);
  }
  void evict_pod(PodId pod) { evict(cluster, bus, pod, sim.now()); }
  // Pods a controller still counts as active: pending or running.
  int active() const {
    int n = 0;
    for (const Pod& p : cluster.pods())
      n += p.phase == PodPhase::Pending || p.phase == PodPhase::Running;
    return n;
  }
  std::vector<std::string> pod_names() const {
    std::vector<std::string> out;
    for (const Pod& p : cluster.pods()) out.push_back(p.name);
    return out;
  }

  Simulation sim;
  Cluster cluster;
  RecordingBus bus;
  WorkloadController controller;
  Kubelet kubelet;
  NodeId node = kNoNode;
};

PodTemplate small_template() {
  PodTemplate t;
  t.labels["app"] = "demo";
  t.spec.requests = pod_requests(500, 512);
  return t;
}

Workload deployment(std::string name, int replicas, SimTime created_at = kSimStart) {
  Workload w;
  w.kind = WorkloadKind::Deployment;
  w.name = std::move(name);
  w.pod = small_template();
  w.replicas = replicas;
  w.created_at = created_at;
  return w;
}

Workload job(std::string name, int parallelism, int completions, SimDuration run_time) {
  Workload w;
  w.kind = WorkloadKind::Job;
  w.name = std::move(name);
  w.pod = small_template();
  w.parallelism = parallelism;
  w.completions = completions;
  w.run_time = run_time;
  return w;
}

Workload bare_pod(std::string name, std::optional<SimDuration> run_time = std::nullopt) {
  Workload w;
  w.kind = WorkloadKind::Pod;
  w.name = std::move(name);
  w.pod = small_template();
  w.run_time = run_time;
  return w;
}

// A trace file in the temp directory, removed afterwards.
class TempCsv {
 public:
  explicit TempCsv(const std::string& content) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("fleetsim-workload-controller-" + std::to_string(::getpid()) + "-" +
             std::to_string(counter++) + ".csv");
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempCsv() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempCsv(const TempCsv&) = delete;
  TempCsv& operator=(const TempCsv&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

Workload trainer_template() {
  Workload w;
  w.kind = WorkloadKind::Job;
  w.name = "trainer";
  w.pod.spec.requests = pod_requests(1000, 1024, 1);
  w.pod.spec.tolerations.push_back(
      Toleration{.key = "nvidia.com/gpu", .op = TolerationOperator::Exists});
  return w;
}

}  // namespace

TEST_CASE("a Deployment creates its replicas at its creation time", "[workload]") {
  WorkloadRig rig;
  Workload web = deployment("web", 3, at(seconds(30)));
  rig.controller.add(web, web.created_at);

  rig.run_to(seconds(29));
  CHECK(rig.cluster.pods().empty());
  CHECK(rig.bus.events.empty());

  rig.run_to(seconds(30));
  REQUIRE(rig.cluster.pods().size() == 3);
  REQUIRE(rig.cluster.workloads().size() == 1);
  CHECK(rig.cluster.workloads().at(0).name == "web");
  CHECK(rig.cluster.workloads().at(0).kind == WorkloadKind::Deployment);
  CHECK(rig.bus.kinds() == std::vector<EventKind>{EventKind::WorkloadCreated, EventKind::PodCreated,
                                                  EventKind::PodCreated, EventKind::PodCreated});
  CHECK(rig.bus.seconds_of(EventKind::PodCreated) == std::vector<double>{30, 30, 30});
  CHECK(rig.bus.pending == std::vector<PodId>{0, 1, 2});

  // <deployment>-<pod-template-hash: 10>-<random: 5>; the hash is the ReplicaSet's, shared.
  const std::string hash = rig.cluster.pod(0).name.substr(4, 10);
  std::set<std::string> names;
  for (const Pod& p : rig.cluster.pods()) {
    CHECK(matches(p.name, "web-" + kSuffixChar + "{10}-" + kSuffixChar + "{5}"));
    CHECK(p.name.substr(4, 10) == hash);
    CHECK(p.created == at(seconds(30)));
    CHECK(p.phase == PodPhase::Pending);
    CHECK(p.workload == 0);
    CHECK(p.namespace_name == "default");
    CHECK(p.spec->requests == pod_requests(500, 512));
    CHECK(p.labels->at("app") == "demo");
    CHECK_FALSE(p.run_time.has_value());  // serving pods run until removed
    names.insert(p.name);
  }
  CHECK(names.size() == 3);
}

TEST_CASE("a Deployment replaces an evicted replica from the same ReplicaSet", "[workload]") {
  WorkloadRig rig;
  rig.controller.add(deployment("web", 3), kSimStart);
  rig.run_to(seconds(0));
  for (PodId p : {0u, 1u, 2u}) rig.bind(p);
  rig.run_to(seconds(60));
  rig.evict_pod(1);
  REQUIRE(rig.cluster.pods().size() == 4);
  CHECK(rig.cluster.pod(3).created == at(seconds(60)));
  CHECK(rig.cluster.pod(3).name.substr(0, 15) == rig.cluster.pod(0).name.substr(0, 15));
  CHECK(rig.active() == 3);
}

TEST_CASE("a Job keeps at most parallelism pods active until its completions are done",
          "[workload]") {
  WorkloadRig rig;
  // parallelism 2, completions 5, each pod runs 100 s once bound.
  rig.controller.add(job("train", 2, 5, seconds(100)), kSimStart);
  rig.run_to(seconds(0));
  REQUIRE(rig.cluster.pods().size() == 2);
  CHECK(matches(rig.cluster.pod(0).name, "train-" + kSuffixChar + "{5}"));
  CHECK(rig.cluster.pod(0).run_time == seconds(100));

  rig.run_to(seconds(10));
  rig.bind(0);
  rig.run_to(seconds(20));
  rig.bind(1);
  rig.run_to(seconds(109));
  CHECK(rig.cluster.pods().size() == 2);
  rig.run_to(seconds(110));  // pod 0 done (bound at 10 s): its replacement comes at once
  REQUIRE(rig.cluster.pods().size() == 3);
  CHECK(rig.active() == 2);
  rig.run_to(seconds(120));  // pod 1 done
  REQUIRE(rig.cluster.pods().size() == 4);
  CHECK(rig.active() == 2);

  rig.run_to(seconds(130));
  rig.bind(2);
  rig.run_to(seconds(140));
  rig.bind(3);
  // Pod 2 finishes at 230 s: 3 done, 1 running, 2 still needed, so one more pod.
  rig.run_to(seconds(230));
  REQUIRE(rig.cluster.pods().size() == 5);
  CHECK(rig.active() == 2);
  // Pod 3 finishes at 240 s: 4 done and pod 4 covers the last completion: nothing new.
  rig.run_to(seconds(240));
  CHECK(rig.cluster.pods().size() == 5);
  CHECK(rig.active() == 1);

  rig.run_to(seconds(250));
  rig.bind(4);
  rig.run_to(hours(1));
  CHECK(rig.cluster.pods().size() == 5);
  CHECK(rig.active() == 0);
  // Completion = bind time + 100 s.
  CHECK(rig.bus.seconds_of(EventKind::PodCompleted) ==
        std::vector<double>{110, 120, 230, 240, 350});
  CHECK(rig.bus.seconds_of(EventKind::PodCreated) == std::vector<double>{0, 0, 110, 120, 230});
  std::vector<PodId> completed;
  for (const RecordedEvent& e : rig.bus.of_kind(EventKind::PodCompleted)) {
    completed.push_back(e.pod);
    CHECK(e.node == rig.node);  // the node it ran on
    CHECK(e.workload == 0);
  }
  CHECK(completed == std::vector<PodId>{0, 1, 2, 3, 4});
  for (const Pod& p : rig.cluster.pods()) {
    CHECK(p.phase == PodPhase::Succeeded);
    CHECK(p.node == kNoNode);
  }
  CHECK(rig.cluster.node(rig.node).requested.is_zero());
}

TEST_CASE("an evicted Job pod is replaced and the Job still needs its completion", "[workload]") {
  WorkloadRig rig;
  rig.controller.add(job("train", 1, 1, seconds(100)), kSimStart);
  rig.run_to(seconds(10));
  rig.bind(0);
  rig.run_to(seconds(50));
  rig.evict_pod(0);  // the work is lost: no checkpoints
  REQUIRE(rig.cluster.pods().size() == 2);
  CHECK(rig.cluster.pod(1).created == at(seconds(50)));
  CHECK(rig.cluster.pod(1).phase == PodPhase::Pending);

  rig.run_to(seconds(60));
  rig.bind(1);
  rig.run_to(hours(1));
  // Pod 0's timer (110 s) finds it evicted; only pod 1 completes, 100 s after its bind.
  REQUIRE(rig.bus.count(EventKind::PodCompleted) == 1);
  CHECK(rig.bus.of_kind(EventKind::PodCompleted).front().pod == 1);
  CHECK(rig.bus.seconds_of(EventKind::PodCompleted) == std::vector<double>{160});
  CHECK(rig.cluster.pod(0).phase == PodPhase::Deleted);
  CHECK(rig.cluster.pods().size() == 2);
}

TEST_CASE("an evicted bare Pod is not replaced", "[workload]") {
  WorkloadRig rig;
  rig.controller.add(bare_pod("solo"), kSimStart);
  rig.run_to(seconds(0));
  REQUIRE(rig.cluster.pods().size() == 1);
  CHECK(rig.cluster.pod(0).name == "solo");  // a Pod manifest keeps its own name
  rig.bind(0);
  rig.run_to(seconds(30));
  rig.evict_pod(0);
  rig.run_to(hours(1));
  CHECK(rig.cluster.pods().size() == 1);
  CHECK(rig.bus.count(EventKind::PodCreated) == 1);
  CHECK(rig.active() == 0);
}

TEST_CASE("a bare Pod with a run time completes once", "[workload]") {
  WorkloadRig rig;
  rig.controller.add(bare_pod("batch", seconds(45)), at(seconds(5)));
  rig.run_to(seconds(5));
  rig.bind(0);
  rig.run_to(hours(1));
  CHECK(rig.bus.seconds_of(EventKind::PodCompleted) == std::vector<double>{50});
  CHECK(rig.cluster.pods().size() == 1);
  CHECK(rig.cluster.pod(0).phase == PodPhase::Succeeded);
}

TEST_CASE(
    "trace jobs arrive at their submit times with the trace's requests and the template's rest",
    "[workload]") {
  TempCsv trace(
      "name,submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n"
      "train-a,5,600,1,4000,16384\n"
      "train-b,12.5,90,2,8000,32768\n");
  WorkloadRig rig;
  rig.controller.add_stream(
      JobStream{.trace = trace.path(), .template_workload = trainer_template()});

  rig.sim.run_until(at(seconds(5)) - micros(1));
  CHECK(rig.cluster.pods().empty());
  CHECK(rig.cluster.workloads().empty());

  rig.run_to(seconds(5));
  REQUIRE(rig.cluster.pods().size() == 1);
  const Pod& a = rig.cluster.pod(0);
  CHECK(matches(a.name, "train-a-" + kSuffixChar + "{5}"));
  CHECK(a.created == at(seconds(5)));
  CHECK(a.run_time == seconds(600));
  // cpu, memory and GPUs from the trace; the pod slot and tolerations from the template.
  CHECK(a.spec->requests == pod_requests(4000, 16384, 1));
  CHECK(a.spec->tolerations == trainer_template().pod.spec.tolerations);
  REQUIRE(rig.cluster.workloads().size() == 1);
  CHECK(rig.cluster.workloads().at(0).name == "trainer");  // grouped under the template
  CHECK(rig.cluster.workloads().at(0).kind == WorkloadKind::Job);

  rig.sim.run_until(at(millis(12'500)));
  REQUIRE(rig.cluster.pods().size() == 2);
  const Pod& b = rig.cluster.pod(1);
  CHECK(matches(b.name, "train-b-" + kSuffixChar + "{5}"));
  CHECK(b.created == at(millis(12'500)));
  CHECK(b.run_time == seconds(90));
  CHECK(b.spec->requests == pod_requests(8000, 32768, 2));
  REQUIRE(rig.cluster.workloads().size() == 2);
  CHECK(rig.cluster.workloads().at(1).name == "trainer");
  // Each job owns its own spec (re-fetched: the pod table grew, so `a` may dangle).
  CHECK(rig.cluster.pod(0).spec->requests == pod_requests(4000, 16384, 1));

  // Run time = the trace's duration, from the bind.
  rig.run_to(seconds(20));
  rig.bind(0);
  rig.run_to(hours(1));
  CHECK(rig.bus.seconds_of(EventKind::PodCompleted) == std::vector<double>{620});
  CHECK(rig.cluster.pods().size() == 2);  // one pod per trace job
}

TEST_CASE("trace GPUs land on the accelerator the template asks for", "[workload]") {
  TempCsv trace(
      "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n"
      "0,60,2,4000,8192\n");
  Workload tpl = trainer_template();
  tpl.pod.spec.requests[resource::kNvidiaGpu] = 0;
  tpl.pod.spec.requests[resource::kNeuron] = 1;
  WorkloadRig rig;
  rig.controller.add_stream(JobStream{.trace = trace.path(), .template_workload = tpl});
  rig.run_to(seconds(0));
  REQUIRE(rig.cluster.pods().size() == 1);
  const Resources& r = rig.cluster.pod(0).spec->requests;
  CHECK(r[resource::kNeuron] == 2);
  CHECK(r[resource::kNvidiaGpu] == 0);
  CHECK(
      matches(rig.cluster.pod(0).name, "job-1-" + kSuffixChar + "{5}"));  // unnamed: job-<data row>
}

TEST_CASE("a template's priority stays when the trace has no priority column", "[workload]") {
  TempCsv trace(
      "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n"
      "0,60,1,4000,8192\n");
  Workload tpl = trainer_template();
  tpl.pod.spec.priority_class_name = "research-high";
  tpl.pod.spec.priority = 1000;  // resolved from the PriorityClass when the scenario loads
  WorkloadRig rig;
  rig.controller.add_stream(JobStream{.trace = trace.path(), .template_workload = tpl});
  rig.run_to(seconds(0));
  REQUIRE(rig.cluster.pods().size() == 1);
  // The trace says nothing about priority, so "a template manifest supplies the rest".
  CHECK(rig.cluster.pod(0).spec->priority == 1000);
}

TEST_CASE("a trace's priority column sets each job's priority", "[workload]") {
  TempCsv trace(
      "submit_time_s,duration_s,gpus,cpu_millis,memory_mib,priority\n"
      "0,60,1,4000,8192,5\n");
  WorkloadRig rig;
  rig.controller.add_stream(
      JobStream{.trace = trace.path(), .template_workload = trainer_template()});
  rig.run_to(seconds(0));
  REQUIRE(rig.cluster.pods().size() == 1);
  CHECK(rig.cluster.pod(0).spec->priority == 5);
}

TEST_CASE("generated pod names depend only on the seed", "[workload]") {
  auto names = [](std::uint64_t seed) {
    WorkloadRig rig(seed);
    rig.controller.add(deployment("web", 3), kSimStart);
    rig.controller.add(job("train", 2, 2, seconds(10)), at(seconds(1)));
    rig.run_to(minutes(1));
    return rig.pod_names();
  };
  const std::vector<std::string> first = names(42);
  CHECK(first.size() == 5);
  CHECK(names(42) == first);
  CHECK(names(43) != first);
}

TEST_CASE("scaling a Deployment up creates pods and reports the change", "[workload]") {
  WorkloadRig rig;
  const WorkloadId id = rig.controller.add(deployment("web", 2), kSimStart);
  rig.run_to(seconds(1));
  rig.controller.scale(id, 5, ReplicasSource::Hpa);
  CHECK(rig.active() == 5);
  CHECK(rig.controller.replicas(id) == 5);
  CHECK(rig.controller.active_pods(id).size() == 5);
  const auto changes = rig.bus.of_kind(EventKind::ReplicasChanged);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].reason == EventReason{ReplicasSource::Hpa});
  CHECK(changes[0].from == 2);
  CHECK(changes[0].to == 5);
  // Writing the same count again changes nothing and reports nothing.
  rig.controller.scale(id, 5, ReplicasSource::Hpa);
  CHECK(rig.bus.count(EventKind::ReplicasChanged) == 1);
}

TEST_CASE("scaling down deletes pending pods at once and drains bound ones", "[workload]") {
  WorkloadRig rig;
  const WorkloadId id = rig.controller.add(deployment("web", 3), kSimStart);
  rig.run_to(seconds(1));
  const std::vector<PodId> pods = rig.controller.active_pods(id);
  rig.bind(pods[0]);
  rig.bind(pods[1]);
  rig.controller.scale(id, 1, ReplicasSource::Keda);
  // The unscheduled pod goes first, then a bound one: both leave the ReplicaSet's count at once.
  CHECK(rig.controller.active_pods(id).size() == 1);
  CHECK(rig.cluster.pod(pods[2]).phase == PodPhase::Deleted);
  CHECK(rig.cluster.pending_pods().empty());
  REQUIRE(rig.bus.terminating.size() == 1);
  const PodId draining = rig.bus.terminating[0];
  CHECK(rig.cluster.pod(draining).terminating);
  CHECK(rig.cluster.pod(draining).node == rig.node);  // still holds its node until it exits
  rig.kubelet.on_terminating(draining);               // nothing runs in it: it exits at once
  CHECK(rig.cluster.pod(draining).phase == PodPhase::Deleted);
  CHECK(rig.cluster.node(rig.node).pods.size() == 1);
  const auto deleted = rig.bus.of_kind(EventKind::PodDeleted);
  REQUIRE(deleted.size() == 2);
  CHECK(deleted[0].pod == pods[2]);
  CHECK(deleted[0].node == kNoNode);
  CHECK(deleted[1].pod == draining);
  CHECK(deleted[1].node == rig.node);
  CHECK(deleted[1].reason == EventReason{PodDeletionReason::ScaleDown});
}

TEST_CASE("a terminating pod evicted with its node is not replaced", "[workload]") {
  WorkloadRig rig;
  const WorkloadId id = rig.controller.add(deployment("web", 2), kSimStart);
  rig.run_to(seconds(1));
  for (PodId p : std::vector<PodId>(rig.controller.active_pods(id))) rig.bind(p);
  rig.controller.scale(id, 1, ReplicasSource::Hpa);
  REQUIRE(rig.bus.terminating.size() == 1);
  rig.evict_pod(rig.bus.terminating[0]);
  CHECK(rig.controller.active_pods(id).size() == 1);
  CHECK(rig.active() == 1);
}

TEST_CASE("a scale before the Deployment exists takes effect at its creation", "[workload]") {
  WorkloadRig rig;
  const WorkloadId id = rig.controller.add(deployment("web", 1, at(seconds(30))), at(seconds(30)));
  rig.controller.scale(id, 3, ReplicasSource::Hpa);
  CHECK(rig.active() == 0);
  rig.run_to(seconds(31));
  CHECK(rig.active() == 3);
}

TEST_CASE("a finished Job is forgotten once the cluster has released its pods", "[workload]") {
  WorkloadRig rig;
  const WorkloadId id = rig.controller.add(job("train", 1, 1, minutes(5)), kSimStart);
  rig.run_to(seconds(1));
  const PodId pod = rig.controller.active_pods(id).front();
  rig.bind(pod);
  rig.run_to(minutes(6));
  CHECK(rig.cluster.pod(pod).phase == PodPhase::Succeeded);
  CHECK(rig.cluster.workloads().count(id) == 1);  // its pod is not released yet
  rig.controller.forget_pods(rig.cluster.collect());
  CHECK(rig.cluster.find_pod(pod) == nullptr);
  CHECK(rig.cluster.workloads().count(id) == 0);
}
