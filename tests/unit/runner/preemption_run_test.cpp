// Priority and preemption over whole runs (issue 27): a high-priority Job applied at 10 minutes
// preempts a low-priority balloon pod holding a node's room and binds there; the balloon's
// replacement is what the provisioner buys a node for. With preemptionPolicy Never the Job waits
// for a node of its own instead. The Cluster Autoscaler never scales up for expendable pods.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/runner/one_type_pool.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

struct Seen final : EventSink {
  void on_event(const SimEvent& e, const Cluster& cluster) override {
    if (e.kind == EventKind::PodPreempted) {
      preempted.push_back(cluster.pod(e.pod).name.substr(0, 7));  // the workload's name
      preemptors.push_back(std::string(e.message).substr(0, 6));
    }
    if (e.kind == EventKind::PodScheduled)
      bound.push_back({cluster.pod(e.pod).name.substr(0, 6), cluster.node(e.node).name, e.time});
    if (e.kind == EventKind::PodDeleted && e.node != kNoNode)
      left.push_back({cluster.pod(e.pod).name.substr(0, 6), cluster.node(e.node).name, e.time});
    if (e.kind == EventKind::NodeLaunched) {
      const Node& node = cluster.node(e.node);
      nodes.push_back(node.name);
      rate[node.name] = node.price_per_hour + node.ebs_price_per_hour;
    }
    if (e.kind == EventKind::ScaleUp) ++scale_ups;
    if (e.kind == EventKind::NodeDeleting) ++deleting;
  }
  struct Bound {
    std::string pod, node;
    SimTime time;
  };
  // Where and when the first pod whose name starts with `prefix` bound.
  const Bound* first(std::string_view prefix) const {
    for (const Bound& b : bound)
      if (b.pod.starts_with(prefix)) return &b;
    return nullptr;
  }
  std::vector<std::string> preempted, preemptors, nodes;
  std::vector<Bound> bound, left;      // left: pods that left their node once deleted
  std::map<std::string, double> rate;  // each node's hourly price with its EBS volumes
  int scale_ups = 0;
  int deleting = 0;
  RunResult result;  // the run's report
};

std::string priority_classes() {
  return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: critical}\n"
         "value: 1000\n---\n"
         "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: polite}\n"
         "value: 1000\npreemptionPolicy: Never\n---\n"
         "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: balloon}\n"
         "value: -1\n---\n"
         "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: expendable}\n"
         "value: -20\n---\n";
}

// A Deployment of pause pods holding 3 CPUs each, at the given PriorityClass.
std::string balloon(const std::string& priority_class) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: balloon}\nspec:\n"
         "  replicas: 1\n  selector: {matchLabels: {app: balloon}}\n  template:\n"
         "    metadata: {labels: {app: balloon}}\n    spec:\n"
         "      priorityClassName: " +
         priority_class +
         "\n      containers:\n        - name: pause\n"
         "          resources: {requests: {cpu: \"3\", memory: 1Gi}}\n---\n";
}

// A one-pod Job of 3 CPUs running an hour.
std::string urgent(const std::string& priority_class) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: urgent}\nspec:\n  template:\n"
         "    metadata:\n      annotations: {fleetsim.io/duration: 1h}\n    spec:\n"
         "      priorityClassName: " +
         priority_class +
         "\n      restartPolicy: Never\n      containers:\n        - name: c\n"
         "          resources: {requests: {cpu: \"3\", memory: 1Gi}}\n";
}

std::string node_group(int min, int max, int desired) {
  return "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
         "managedNodeGroups:\n  - name: cpu\n    instanceType: m5.xlarge\n    minSize: " +
         std::to_string(min) + "\n    maxSize: " + std::to_string(max) +
         "\n    desiredCapacity: " + std::to_string(desired) +
         "\n    availabilityZones: [us-east-1a]\n---\n";
}

// Runs `manifests` for an hour, applying the urgent Job of `job_class` at `job_at` (none when
// empty), under Karpenter or the Cluster Autoscaler (`extra` adds scenario keys).
Seen run_scenario(const std::string& manifests, const std::string& job_class,
                  bool cluster_autoscaler, const std::string& extra = "",
                  const std::string& job_at = "10m") {
  test::TempDir dir("preemption-run");
  dir.write("manifests.yaml", priority_classes() + manifests);
  std::string scenario = "name: preemption\nduration: 1h\nmanifests: [manifests.yaml]\n";
  if (cluster_autoscaler) scenario += "provisioner: cluster-autoscaler\n";
  if (!job_class.empty()) {
    dir.write("urgent.yaml", urgent(job_class));
    scenario += "events:\n  - {at: " + job_at + ", apply: urgent.yaml}\n";
  }
  const auto file = dir.write("scenario.yaml", scenario + extra);
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  Seen seen;
  seen.result = run(config, {.event_sinks = {&seen}});
  return seen;
}

}  // namespace

TEST_CASE("under Karpenter a critical Job preempts the balloon and Karpenter buys its replacement",
          "[runner][preemption]") {
  const std::string pool = test::one_type_pool("general", "m5.xlarge", "on-demand");
  const Seen seen = run_scenario(pool + balloon("balloon"), "critical", false);
  CHECK(seen.preempted == std::vector<std::string>{"balloon"});
  CHECK(seen.preemptors == std::vector<std::string>{"urgent"});
  CHECK(seen.result.pods.preempted == 1);
  const Seen::Bound* first_balloon = seen.first("balloo");
  const Seen::Bound* job = seen.first("urgent");
  REQUIRE(first_balloon != nullptr);
  REQUIRE(job != nullptr);
  // The Job takes the balloon's node within its first back-off (1 s), not a new node's minute.
  CHECK(job->node == first_balloon->node);
  CHECK(job->time > at(minutes(10)));
  CHECK(job->time <= at(minutes(10) + seconds(2)));
  // Two nodes: the balloon's first, then one for its replacement; none for the Job.
  REQUIRE(seen.nodes.size() == 2);
  CHECK(seen.bound.back().pod == "balloo");
  CHECK(seen.bound.back().node == seen.nodes[1]);
  // Headroom: the first node until the preempted balloon left it, the second from its
  // replacement's binding to the end, each at its own rate.
  REQUIRE(seen.left.size() == 1);
  CHECK(seen.left[0].node == seen.nodes[0]);
  const double first_s = to_seconds(seen.left[0].time - first_balloon->time);
  const double second_s = to_seconds(at(hours(1)) - seen.bound.back().time);
  CHECK(seen.result.headroom.node_hours == Approx((first_s + second_s) / 3600).epsilon(1e-12));
  CHECK(seen.result.headroom.usd ==
        Approx((first_s * seen.rate.at(seen.nodes[0]) + second_s * seen.rate.at(seen.nodes[1])) /
               3600)
            .epsilon(1e-9));
}

TEST_CASE("a Job whose preemptionPolicy is Never waits for a node of its own",
          "[runner][preemption]") {
  const std::string pool = test::one_type_pool("general", "m5.xlarge", "on-demand");
  const Seen seen = run_scenario(pool + balloon("balloon"), "polite", false);
  CHECK(seen.preempted.empty());
  CHECK(seen.result.pods.preempted == 0);
  const Seen::Bound* job = seen.first("urgent");
  REQUIRE(job != nullptr);
  REQUIRE(seen.nodes.size() == 2);
  CHECK(job->node == seen.nodes[1]);
  CHECK(job->time > at(minutes(10) + seconds(20)));  // a node's launch and start-up
  // The balloon holds the first node alone to the end: headroom the Job never used.
  const double held_s = to_seconds(at(hours(1)) - seen.first("balloo")->time);
  CHECK(seen.result.headroom.node_hours == Approx(held_s / 3600).epsilon(1e-12));
  CHECK(seen.result.headroom.usd ==
        Approx(held_s * seen.rate.at(seen.nodes[0]) / 3600).epsilon(1e-9));
}

TEST_CASE("under the Cluster Autoscaler the balloon's replacement scales the group up",
          "[runner][preemption]") {
  // The autoscaler grows the group for the balloon while the first node starts (a node of the
  // initial desired capacity is no scale-up it waits for) and removes the spare node after the
  // unneeded time: the Job comes at 30 minutes, onto one node held by the balloon.
  const Seen seen =
      run_scenario(node_group(1, 3, 1) + balloon("balloon"), "critical", true, "", "30m");
  CHECK(seen.preempted == std::vector<std::string>{"balloon"});
  const Seen::Bound* job = seen.first("urgent");
  REQUIRE(job != nullptr);
  CHECK(job->node == seen.first("balloo")->node);
  CHECK(job->time <= at(minutes(30) + seconds(2)));
  CHECK(seen.scale_ups == 2);
  REQUIRE(seen.nodes.size() == 3);
  CHECK(seen.bound.back().pod == "balloo");
  CHECK(seen.bound.back().node == seen.nodes[2]);
}

// utils TestIsExpandablePod: below --expendable-pods-priority-cutoff (−10) a pod is expendable
// and never a reason to scale up; a lower cutoff makes it one.
TEST_CASE("expendable pods never scale the Cluster Autoscaler up", "[runner][preemption]") {
  const std::string manifests = node_group(0, 2, 0) + balloon("expendable");
  CHECK(run_scenario(manifests, "", true).scale_ups == 0);
  CHECK(run_scenario(manifests, "", true,
                     "cluster_autoscaler: {expendable_pods_priority_cutoff: -30}\n")
            .scale_ups == 1);
}

// static_autoscaler.go: the snapshot holds no expendable pod, so a node that holds only them is
// empty and goes after the unneeded time; the critical Job binds there by preemption, no
// scale-up.
TEST_CASE("a node holding only expendable pods is empty to the Cluster Autoscaler",
          "[runner][preemption]") {
  const Seen idle = run_scenario(node_group(0, 2, 1) + balloon("expendable"), "", true);
  CHECK(idle.scale_ups == 0);
  CHECK(idle.deleting == 1);
  const Seen busy = run_scenario(node_group(1, 2, 1) + balloon("expendable"), "critical", true);
  CHECK(busy.preempted == std::vector<std::string>{"balloon"});
  CHECK(busy.scale_ups == 0);
  CHECK(busy.nodes.size() == 1);
}
