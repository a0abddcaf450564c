// The efficiency bounds of whole runs whose optimum is known: GPU pods that each need one GPU,
// on node types whose price per GPU the catalog gives. The pods' bind-to-exit intervals come
// from the run; the expected dollars are those intervals at the cheapest price per GPU.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "fleetsim/runner/run.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "unit/runner/one_type_pool.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// Each pod's seconds from its binding to its exit (or the run's end).
struct PodSeconds final : EventSink {
  void on_event(const SimEvent& e, const Cluster&) override {
    if (e.kind == EventKind::PodScheduled) {
      bound[e.pod] = e.time;
    } else if (e.kind == EventKind::PodCompleted || e.kind == EventKind::PodEvicted ||
               e.kind == EventKind::PodDeleted) {
      auto it = bound.find(e.pod);
      if (it == bound.end()) return;
      seconds += to_seconds(e.time - it->second);
      bound.erase(it);
    }
  }
  void on_end(SimTime end, const Cluster&) override {
    for (const auto& [pod, at] : bound) seconds += to_seconds(end - at);
    bound.clear();
  }
  std::map<PodId, SimTime> bound;
  double seconds = 0.0;
};

std::string trainers(int replicas) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer}
spec:
  replicas: )" +
         std::to_string(replicas) +
         R"(
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 4Gi, nvidia.com/gpu: 1}}
---
)";
}

constexpr std::string_view kTwoTypePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [g5.xlarge, g5.12xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {role: test}
---
)";

struct Ran {
  ScenarioConfig config;
  RunResult result;
  double pod_hours = 0.0;
};

Ran run_manifests(const std::string& manifests, const std::string& name) {
  test::TempDir dir(name);
  dir.write("manifests.yaml", manifests);
  const auto file = dir.write("scenario.yaml", "name: " + name +
                                                   "\nduration: 30m\nseed: 1\n"
                                                   "manifests: [manifests.yaml]\n");
  Ran ran{.config =
              load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog")};
  PodSeconds pods;
  ran.result = run(ran.config, {.event_sinks = {&pods}});
  ran.pod_hours = pods.seconds / kSecondsPerHour;
  return ran;
}

double on_demand_price(const ScenarioConfig& config, std::string_view type) {
  return config.catalog->find(type)->cheapest_offering(CapacityType::OnDemand)->price_per_hour;
}

void check_parts_add_up(const EfficiencyResult& e) {
  const auto& p = e.parts;
  CHECK(p.idle_usd + p.fragmentation_usd + p.startup_usd + p.billing_minimum_usd +
            p.capacity_type_usd + p.type_choice_usd ==
        Approx(e.gap_usd).margin(0.01));
  CHECK(e.accounted_usd == Approx(e.actual_usd).margin(0.01));
}

}  // namespace

TEST_CASE("one pod type on one instance type: both bounds are the pods' GPU-hours at its price",
          "[runner][efficiency]") {
  const Ran ran =
      run_manifests(test::one_type_pool("gpu", "g5.xlarge", "on-demand") + trainers(3), "one-type");
  const EfficiencyResult& e = ran.result.efficiency;
  REQUIRE(ran.pod_hours > 1.0);
  const double expected = ran.pod_hours * on_demand_price(ran.config, "g5.xlarge");
  CHECK(e.fluid_usd == Approx(expected).epsilon(1e-9));
  CHECK(e.packing_usd == Approx(expected).epsilon(1e-9));
  CHECK(e.lower_bound_usd == e.packing_usd);
  CHECK(e.kinds_added == 0);
  // Each node holds one pod for its whole Ready life: the gap is start-up and the end's idle.
  CHECK(e.actual_usd > e.lower_bound_usd);
  CHECK(e.parts.fragmentation_usd == Approx(0.0).margin(1e-9));
  CHECK(e.parts.startup_usd > 0.0);
  check_parts_add_up(e);
}

TEST_CASE("two types where one is cheaper per GPU: the bound prices every GPU-hour at it",
          "[runner][efficiency]") {
  const Ran ran = run_manifests(std::string(kTwoTypePool) + trainers(4), "two-types");
  const EfficiencyResult& e = ran.result.efficiency;
  const double per_gpu_small = on_demand_price(ran.config, "g5.xlarge");
  const double per_gpu_large = on_demand_price(ran.config, "g5.12xlarge") / 4.0;
  REQUIRE(per_gpu_small < per_gpu_large);
  const double expected = ran.pod_hours * per_gpu_small;
  CHECK(e.fluid_usd == Approx(expected).epsilon(1e-9));
  CHECK(e.packing_usd == Approx(expected).epsilon(1e-9));
  CHECK(e.lower_bound_usd <= e.actual_usd);
  check_parts_add_up(e);
}

TEST_CASE("a demand spike shorter than start-up: the bound is the pod's own time",
          "[runner][efficiency]") {
  // One Job pod of 20 s of work: its node takes longer to start than the pod runs.
  const std::string job = R"(apiVersion: batch/v1
kind: Job
metadata:
  name: spike
  annotations: {fleetsim.io/duration: 20s}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          resources: {requests: {cpu: "1", memory: 4Gi, nvidia.com/gpu: 1}}
---
)";
  const Ran ran =
      run_manifests(test::one_type_pool("gpu", "g5.xlarge", "on-demand") + job, "spike");
  const EfficiencyResult& e = ran.result.efficiency;
  const double price = on_demand_price(ran.config, "g5.xlarge");
  REQUIRE(ran.pod_hours > 0.0);
  CHECK(e.fluid_usd == Approx(ran.pod_hours * price).epsilon(1e-9));
  CHECK(e.packing_usd == Approx(ran.pod_hours * price).epsilon(1e-9));
  // What the node cost beyond the pod's time is start-up and what came after the pod.
  CHECK(e.parts.startup_usd > e.lower_bound_usd);
  CHECK(e.actual_usd >= price * 60.0 / kSecondsPerHour);
  check_parts_add_up(e);
}
