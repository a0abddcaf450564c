#include "fleetsim/service/autoscaler_view.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "unit/service/service_rig.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

// A listed pod in one line: phase, Ready condition, its transition and start time (seconds).
std::string show(const HpaPod& p) {
  const char* phase = p.phase == HpaPodPhase::Running ? "Running" : "Pending";
  std::string ready = "none";
  if (p.ready) ready = *p.ready == ConditionStatus::True ? "True" : "False";
  std::string out = std::string(phase) + " ready=" + ready;
  if (p.ready) out += " since=" + std::to_string(static_cast<int>(to_seconds(p.ready_transition)));
  out += " start=" + (p.start_time ? std::to_string(static_cast<int>(to_seconds(*p.start_time)))
                                   : std::string("none"));
  return out + (p.deleting ? " deleting" : "");
}

std::vector<std::string> show(const std::vector<HpaPod>& pods) {
  std::vector<std::string> out;
  for (const HpaPod& p : pods) out.push_back(show(p));
  return out;
}

// The pods' samples in milli-units ("-" for a pod without one).
std::vector<std::string> samples(const std::vector<PodMetricValue>& values) {
  std::vector<std::string> out;
  for (const PodMetricValue& v : values) out.push_back(v.milli ? std::to_string(*v.milli) : "-");
  return out;
}

// "web" with four replicas, three bound at t = 0 to a node that pulls the image for 10 s before
// the model loads for 20 s (Running at 10 s, Ready at 30 s); the fourth is never scheduled.
struct ThreeOfFourBound {
  ThreeOfFourBound() {
    web = rig.add(web_deployment(4));
    rig.kubelet.manage(web, {.image_bytes = 600'000'000, .model_load = seconds(20)}, nullptr);
    pods = rig.workloads.active_pods(web);
    REQUIRE(pods.size() == 4);
    for (std::size_t i = 0; i < 3; ++i) rig.bind(pods[i]);
  }
  ServiceRig rig;
  WorkloadId web = 0;
  std::vector<PodId> pods;
};

}  // namespace

TEST_CASE("the view lists a Deployment's pods with the phase and Ready condition the HPA reads",
          "[service]") {
  ThreeOfFourBound s;
  s.rig.run_to(seconds(5));
  // Bound but still pulling: Pending with Ready False since it was bound; the unscheduled pod has
  // neither a Ready condition nor a start time yet.
  CHECK(show(s.rig.view().pods(s.web)) ==
        std::vector<std::string>{
            "Pending ready=False since=0 start=0", "Pending ready=False since=0 start=0",
            "Pending ready=False since=0 start=0", "Pending ready=none start=none"});
  s.rig.run_to(seconds(40));
  CHECK(show(s.rig.view().pods(s.web)) ==
        std::vector<std::string>{
            "Running ready=True since=30 start=0", "Running ready=True since=30 start=0",
            "Running ready=True since=30 start=0", "Pending ready=none start=none"});
}

TEST_CASE("the view leaves out a pod that is terminating, as the HPA ignores a deleted pod",
          "[service]") {
  // Upstream's replica calculator puts a pod with a deletionTimestamp among the ignored pods
  // (groupPods); the ReplicaSet controller has already forgotten it here.
  ThreeOfFourBound s;
  s.rig.run_to(seconds(40));
  s.rig.workloads.scale(
      s.web, 2, ReplicasSource::Scripted);  // the unscheduled pod goes, and one Ready pod drains
  int terminating = 0;
  for (std::size_t i = 0; i < 3; ++i) terminating += s.rig.cluster.pod(s.pods[i]).terminating;
  CHECK(terminating == 1);
  CHECK(show(s.rig.view().pods(s.web)) ==
        std::vector<std::string>{"Running ready=True since=30 start=0",
                                 "Running ready=True since=30 start=0"});
}

TEST_CASE(
    "without a service a started pod uses the idle share of its CPU request and all of its "
    "memory request",
    "[service]") {
  ThreeOfFourBound s;
  s.rig.run_to(seconds(5));
  const std::vector<PodMetricValue> before =
      s.rig.view().resource_usage("cpu", s.web, s.rig.sim.now());
  CHECK(samples(before) == std::vector<std::string>{"-", "-", "-", "-"});  // no container started
  for (const PodMetricValue& v : before) {
    CHECK(v.request_milli == 2000);
    CHECK(v.timestamp == at(seconds(5)));
    CHECK(v.window == kRigScrapeInterval);
  }
  s.rig.run_to(seconds(40));
  // 10 % of 2000m (ServiceMetricsSettings' default idle share).
  CHECK(samples(s.rig.view().resource_usage("cpu", s.web, s.rig.sim.now())) ==
        std::vector<std::string>{"200", "200", "200", "-"});
  const std::string gi8 = std::to_string((8LL << 30) * 1000);
  CHECK(samples(s.rig.view().resource_usage("memory", s.web, s.rig.sim.now())) ==
        std::vector<std::string>{gi8, gi8, gi8, "-"});
}

TEST_CASE(
    "a service's pod uses its idle CPU share plus the rest of its request in proportion to "
    "its GPU's busy share, and its memory share",
    "[service]") {
  // The pod's CPU and memory samples in milli-units at 30 s, under `settings`.
  auto usage_at_half_busy = [](ServiceMetricsSettings settings) {
    ServiceRig rig;
    const WorkloadId web = rig.add(web_deployment(1));
    ServiceConfig config = half_busy_service();
    config.metrics = settings;
    ServiceRuntime& service = rig.add_service(std::move(config), web);
    rig.bind_pending(web);
    const PodId pod = rig.workloads.active_pods(web).at(0);
    for (int t : {15, 30}) {
      rig.run_to(seconds(t));
      service.scrape(rig.sim.now());
    }
    // Requests at 15, 16, …, 29 s each kept the one slot for 500 ms of the 15 s window.
    CHECK(service.busy_fraction(pod) == 0.5);
    std::vector<std::string> out = samples(rig.view().resource_usage("cpu", web, rig.sim.now()));
    out.push_back(samples(rig.view().resource_usage("memory", web, rig.sim.now())).at(0));
    return out;
  };
  const std::string gi8 = std::to_string((8LL << 30) * 1000);
  const std::string gi4 = std::to_string((4LL << 30) * 1000);
  // CPU: 2000m × (idle + (1 − idle) × 0.5), at the default idle share of 0.1, then at 0.2 and 0;
  // memory: 8Gi × the memory share, 1 by default.
  CHECK(usage_at_half_busy({}) == std::vector<std::string>{"1100", gi8});
  CHECK(usage_at_half_busy({.idle_cpu_share = 0.2}) == std::vector<std::string>{"1200", gi8});
  CHECK(usage_at_half_busy({.idle_cpu_share = 0, .memory_share = 0.5}) ==
        std::vector<std::string>{"1000", gi4});
}

TEST_CASE(
    "a Pods metric reads each pod's latest sample by name, an External one the sum of the "
    "matching series",
    "[service]") {
  ServiceRig rig;
  const WorkloadId web = rig.add(web_deployment(3));
  rig.bind_pending(web);
  const std::vector<PodId> pods = rig.workloads.active_pods(web);
  auto pod_sample = [&](const std::string& pod, double value) {
    rig.metrics.record(rig.metrics.series("qps", {{"namespace", "default"}, {"pod", pod}}),
                       rig.sim.now(), value);
  };
  pod_sample(rig.cluster.pod(pods[0]).name, 20);
  pod_sample(rig.cluster.pod(pods[1]).name, 10.5);
  pod_sample("other-0", 99);  // a pod of no Deployment here
  auto queue = [&](LabelSet labels, double value) {
    rig.metrics.record(rig.metrics.series("queue_depth", std::move(labels)), rig.sim.now(), value);
  };
  queue({{"queue", "a"}}, 3);
  queue({{"queue", "a"}, {"shard", "2"}}, 4);
  queue({{"queue", "b"}}, 100);
  rig.run_to(seconds(10));

  const MetricSpec qps{.source = MetricSourceType::Pods,
                       .name = "qps",
                       .target = {.type = MetricTargetType::AverageValue, .milli = 15000}};
  const MetricReading per_pod = rig.view().read(qps, web, rig.sim.now());
  CHECK(per_pod.available);
  CHECK(samples(per_pod.pods) == std::vector<std::string>{"20000", "10500", "-"});

  MetricSpec depth{.source = MetricSourceType::External,
                   .name = "queue_depth",
                   .target = {.type = MetricTargetType::Value, .milli = 5000},
                   .selector = {{"queue", "a"}}};
  const MetricReading sum = rig.view().read(depth, web, rig.sim.now());
  CHECK(sum.available);
  CHECK(sum.milli == 7000);
  depth.selector = {{"queue", "c"}};
  CHECK_FALSE(rig.view().read(depth, web, rig.sim.now()).available);  // no series: an error
}

TEST_CASE(
    "a Pods metric read with a kept cache sees series come and go and a freed id reused as a "
    "fresh read does",
    "[service]") {
  ServiceRig rig;  // the store keeps samples for the 5-minute lookback delta
  const WorkloadId web = rig.add(web_deployment(2));
  rig.bind_pending(web);
  const std::vector<PodId> pods = rig.workloads.active_pods(web);
  const std::string first = rig.cluster.pod(pods[0]).name;
  const std::string second = rig.cluster.pod(pods[1]).name;
  const MetricSpec qps{.source = MetricSourceType::Pods,
                       .name = "qps",
                       .target = {.type = MetricTargetType::AverageValue, .milli = 15000}};
  PodSeriesCache cache;
  MetricReading kept;
  // The kept read's samples at `s` seconds, checked against a read that finds every series anew.
  auto read_at = [&](std::int64_t s) {
    rig.view().read(qps, web, at(seconds(s)), cache, kept);
    CHECK(samples(kept.pods) == samples(rig.view().read(qps, web, at(seconds(s))).pods));
    return samples(kept.pods);
  };
  CHECK(read_at(0) == std::vector<std::string>{"-", "-"});
  const SeriesId a = rig.metrics.series("qps", {{"pod", first}});
  rig.metrics.record(a, at(seconds(0)), 20);
  CHECK(read_at(0) == std::vector<std::string>{"20000", "-"});
  // A later series of the same pod wins, as the adapter's map keyed by pod name would have it.
  const SeriesId b = rig.metrics.series("qps", {{"pod", first}, {"shard", "2"}});
  rig.metrics.record(b, at(seconds(15)), 30);
  rig.metrics.record(rig.metrics.series("qps", {{"pod", second}}), at(seconds(15)), 5);
  CHECK(read_at(15) == std::vector<std::string>{"30000", "5000"});
  // The first pod's series end and leave retention; their ids go to other pods' series, which the
  // kept look-up must not read as the first pod's.
  rig.metrics.retire(a, at(seconds(30)));
  rig.metrics.retire(b, at(seconds(30)));
  CHECK(read_at(30) == std::vector<std::string>{"-", "5000"});
  rig.metrics.scrape(at(seconds(331)));
  const SeriesId reused = rig.metrics.series("qps", {{"pod", "other-0"}});
  const SeriesId reused_too = rig.metrics.series("qps", {{"pod", "other-1"}});
  CHECK((reused == a || reused == b || reused_too == a || reused_too == b));
  rig.metrics.record(reused, at(seconds(331)), 99);
  rig.metrics.record(reused_too, at(seconds(331)), 98);
  CHECK(read_at(331) == std::vector<std::string>{"-", "-"});
  // A new series under the first pod's name is found again.
  rig.metrics.record(rig.metrics.series("qps", {{"pod", first}}), at(seconds(345)), 7);
  CHECK(read_at(345) == std::vector<std::string>{"7000", "-"});
}
