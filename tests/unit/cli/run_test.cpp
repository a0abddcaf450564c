#include "fleetsim/runner/run.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/report/event_writer.hpp"
#include "fleetsim/report/report_json.hpp"

using namespace fleetsim;

namespace {

std::shared_ptr<const Catalog> bundled_catalog() {
  static auto catalog = std::make_shared<const Catalog>(
      load_catalog(std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog/aws/us-east-1"));
  return catalog;
}

NodePool g5_on_demand() {
  NodePool p;
  p.name = "gpu";
  p.requirements.add(std::string(label::kInstanceFamily), Requirement::make(Operator::In, {"g5"}));
  p.requirements.add(std::string(label::kCapacityType),
                     Requirement::make(Operator::In, {"on-demand"}));
  return p;
}

Workload gpu_job(std::string name, SimDuration run_time, int gpus = 1) {
  Workload w;
  w.kind = WorkloadKind::Job;
  w.name = std::move(name);
  w.run_time = run_time;
  w.pod.spec.requests[resource::kCpu] = 1000;
  w.pod.spec.requests[resource::kMemory] = 4LL << 30;
  w.pod.spec.requests[resource::kPods] = 1;
  w.pod.spec.requests[resource::kNvidiaGpu] = gpus;
  return w;
}

ScenarioConfig base_config() {
  ScenarioConfig c;
  c.name = "world-test";
  c.duration = hours(2);
  c.catalog = bundled_catalog();
  c.nodepools = {g5_on_demand()};
  // Every GPU node starts in the medians' 5 + 40 + 25 s, so the times below are exact.
  c.node_latencies.gpu.sigma = 0;
  c.termination.api_latency = {};  // API calls instant, for the same reason
  return c;
}

struct Run {
  RunResult result;
  std::string events;
};

Run run_with_events(const ScenarioConfig& config) {
  std::ostringstream events;
  EventWriter writer(events);
  RunResult result = run(config, {.event_sinks = {&writer}});
  return {std::move(result), events.str()};
}

}  // namespace

TEST_CASE("a one-GPU job gets a g5.xlarge that is removed once empty", "[cli]") {
  ScenarioConfig config = base_config();
  config.workloads = {gpu_job("train", hours(1))};
  // Lockstep phases: the disruption controller polls on whole 10 s from the start.
  config.phase_offsets.seeded = false;
  const RunResult r = run(config);
  // Batch closes at 1 s; the instance runs at 6 s, registers at 46 s and is initialized at
  // 71 s (GPU defaults); the pod binds at 71 s and completes at 3671 s. Emptiness sees the
  // empty node at the 3680 s poll, validates for 15 s and deletes it at 3695 s; Drained after
  // MinDrainTime, at 3700 s, when Karpenter terminates the instance: EC2 bills no more from then
  // (the instance is gone at the next 5 s poll, 3705 s).
  CHECK(r.cost.by_instance_type.contains("g5.xlarge"));
  CHECK(r.nodes.launched == 1);
  CHECK(r.nodes.terminated_by_reason.at(NodeDeletionReason::Empty) == 1);
  CHECK(r.pods.pending_seconds.max == 71.0);
  CHECK(r.jobs.completed == 1);
  const double billed_hours = (3700.0 - 6.0) / 3600.0;
  const double instance = 1.006 * billed_hours;           // g5.xlarge on-demand, us-east-1
  const double ebs = 20.0 * 0.08 / 730.0 * billed_hours;  // default 20 GiB gp3 root volume
  CHECK(r.cost.on_demand_usd == Approx(instance).margin(1e-6));
  CHECK(r.cost.total_usd == Approx(instance + ebs).margin(1e-6));
  CHECK(r.gpu.allocated_gpu_hours == Approx(1.0).margin(1e-6));
  CHECK(r.gpu.provisioned_gpu_hours == Approx(billed_hours).margin(1e-6));
}

TEST_CASE("a node shorter than a minute is billed for sixty seconds", "[cli]") {
  ScenarioConfig config = base_config();
  config.workloads = {gpu_job("blip", seconds(1))};
  config.nodepools[0].disruption.consolidate_after = seconds(0);
  config.phase_offsets.seeded = false;  // lockstep: the polls on whole 10 s
  // A node that starts in 3 s (1 s per phase, no spread).
  config.node_latencies.gpu = {
      .launch = seconds(1), .registration = seconds(1), .initialization = seconds(1)};
  const RunResult r = run(config);
  // The batch closes at 1 s: launched and billed from 2 s, bound at 4 s, done at 5 s; deleted at
  // the 10 s poll + 15 s = 25 s, Drained and terminated at 30 s: 28 s run, 60 s billed.
  CHECK(r.cost.on_demand_usd == Approx(1.006 * 60.0 / 3600.0).margin(1e-6));
}

TEST_CASE("two runs of the same scenario are byte-identical", "[cli]") {
  ScenarioConfig config = base_config();
  for (int i = 0; i < 6; ++i)
    config.workloads.push_back(gpu_job("job-" + std::to_string(i), minutes(10 + 7 * i), 1 + i % 2));
  Run a = run_with_events(config);
  Run b = run_with_events(config);
  CHECK(report_json_text(a.result) == report_json_text(b.result));
  CHECK(a.events == b.events);
}

TEST_CASE("a spot interruption evicts the pod, which lands on a replacement", "[cli]") {
  ScenarioConfig config = base_config();
  config.nodepools[0].requirements.add(std::string(label::kCapacityType),
                                       Requirement::make(Operator::In, {"spot"}));
  NodePool spot = g5_on_demand();
  spot.requirements = Requirements{};
  spot.requirements.add(std::string(label::kInstanceFamily),
                        Requirement::make(Operator::In, {"g5"}));
  spot.requirements.add(std::string(label::kCapacityType),
                        Requirement::make(Operator::In, {"spot"}));
  config.nodepools = {spot};
  config.workloads = {gpu_job("train", hours(1))};
  ScriptedEvent& drill = config.events.emplace_back();
  drill.at = minutes(30);
  drill.action = SpotInterruptionEvent{.count = 1};
  const RunResult r = run(config);
  CHECK(r.nodes.spot_interruption_notices == 1);
  CHECK(r.nodes.launched == 2);
  CHECK(r.pods.evicted == 1);
  CHECK(r.jobs.completed == 1);
  // The evicted pod had run from 71 s to 1800 s on one GPU: that work is lost.
  CHECK(r.jobs.lost_gpu_hours == Approx((1800.0 - 71.0) / 3600.0).margin(1e-6));
}

TEST_CASE(
    "a scripted scale sets a Deployment's replicas, and a rolling update replaces its GPU "
    "pods through surge capacity",
    "[cli]") {
  ScenarioConfig config = base_config();
  Workload web = gpu_job("web", hours(1));
  web.kind = WorkloadKind::Deployment;
  web.run_time.reset();
  web.replicas = 2;
  web.strategy = {.max_surge = IntOrPercent{1}, .max_unavailable = IntOrPercent{0}};
  config.workloads = {web};
  ScriptedEvent& scale = config.events.emplace_back();
  scale.at = minutes(10);
  scale.action = ScaleDeploymentEvent{.namespace_name = "default", .name = "web", .replicas = 3};
  Workload v2 = web;
  v2.pod.spec.images = {"web:2"};
  ScriptedEvent& update = config.events.emplace_back();
  update.at = minutes(30);
  update.action = ApplyManifestsEvent{.updates = {v2}};
  const Run r = run_with_events(config);
  CHECK(r.events.find(
            R"("kind":"replicas_changed","workload":"web","source":"scripted","from":2,"to":3)") !=
        std::string::npos);
  // 3 replicas, then 3 new ones, one surge pod at a time; the old ones go as the new turn Ready.
  CHECK(r.result.pods.created == 6);
  CHECK(r.events.find(R"("kind":"pod_created","pod":"web-)") != std::string::npos);
  std::size_t deleted = 0;
  for (std::size_t at = r.events.find("pod_deleted"); at != std::string::npos;
       at = r.events.find("pod_deleted", at + 1))
    ++deleted;
  CHECK(deleted == 3);
}
