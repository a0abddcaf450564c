// A service inside a whole run: cold start, SLO accounting, and the autoscalers driving replicas.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "fleetsim/world/world.hpp"
#include "unit/scenario/scenario_test_util.hpp"

using namespace fleetsim;

namespace {

const std::string kPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["g5.xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
)";

std::string deployment(int replicas) {
  return R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: )" +
         std::to_string(replicas) + R"(
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
        - name: server
          image: example/api:1
          resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}}
)";
}

// An HPA on the Deployment `api` targeting an average of `target` requests running per pod.
std::string hpa_on_running(int min, int max, const std::string& target,
                           const std::string& behavior = "") {
  return R"(---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: )" +
         std::to_string(min) + "\n  maxReplicas: " + std::to_string(max) + R"(
  metrics:
    - type: Pods
      pods:
        metric: {name: "vllm:num_requests_running"}
        target: {type: AverageValue, averageValue: ")" +
         target + "\"}\n" + behavior;
}

// Records the events a test asserts on.
struct Events final : EventSink {
  struct Seen {
    EventKind kind;
    double t;
    PodId pod;
    EventReason source;
    std::int32_t from, to;
  };
  void on_event(const SimEvent& e, const Cluster&) override {
    seen.push_back({e.kind, to_seconds(e.time), e.pod, e.reason, e.from, e.to});
  }
  std::vector<Seen> of(EventKind k) const {
    std::vector<Seen> out;
    for (const Seen& s : seen)
      if (s.kind == k) out.push_back(s);
    return out;
  }
  std::vector<Seen> seen;
};

struct Run {
  explicit Run(const std::string& manifests, const std::string& services,
               const std::string& extra = "")
      : dir("world-serving") {
    dir.write("manifests.yaml", manifests);
    const auto file =
        dir.write("scenario.yaml", "name: serving\nduration: 1h\nmanifests: [manifests.yaml]\n" +
                                       extra + "services:\n" + services);
    config = load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
    world = std::make_unique<World>(config);
    world->add_sink(events);
    world->run();
  }
  const ServiceRuntime& service() const { return *world->services()[0]; }

  test::TempDir dir;
  ScenarioConfig config;
  std::unique_ptr<World> world;
  Events events;
};

}  // namespace

TEST_CASE("a replica is Ready after the image pull and the model load", "[world]") {
  Run run(kPool + deployment(1), R"(  - deployment: api
    traffic: {pattern: constant, rps: 1}
    serving: {concurrency: 1, service_time: {model: fixed, duration: 500ms}}
    startup: {image_size: 6G, model_load: 20s}
    slo: {e2e: 1s}
)",
          "node_latencies: {image_pull_bandwidth: 60M}\n");
  const auto scheduled = run.events.of(EventKind::PodScheduled);
  const auto ready = run.events.of(EventKind::PodReady);
  REQUIRE(scheduled.size() == 1);
  REQUIRE(ready.size() == 1);
  // 6 GB at 60 MB/s is 100 s, then 20 s of model load; no probe.
  CHECK(ready[0].t - scheduled[0].t == 120.0);

  const ServiceRuntime& s = run.service();
  const SloTotals& t = s.stats().totals();
  // Conservation: every arrival is served, dropped or still unfinished.
  const ServingCounters c = s.model().counters();
  CHECK(c.arrived == c.served + c.dropped + c.in_flight + c.queued);
  CHECK(s.stats().requests() == c.arrived);
  CHECK(t.served == c.served);
  CHECK(t.dropped == 0);
  // The backlog of the cold start drains at a net 1 request/s (2/s served, 1/s arriving), so the
  // k-th request (arriving at about k s) waits r + 0.5 − 0.5k s, past the 1 s SLO while k < 2r − 1.
  const double r = ready[0].t;
  CHECK(static_cast<double>(t.misses) >= 2 * r - 3);
  CHECK(static_cast<double>(t.misses) <= 2 * r + 1);
  // One GPU busy 0.5 s per served request (and the one in flight at the end, partly).
  CHECK(s.busy_gpu_seconds() >= 0.5 * static_cast<double>(t.served));
  CHECK(s.busy_gpu_seconds() <= 0.5 * static_cast<double>(t.served + 1));
}

TEST_CASE("an HPA on requests running scales the Deployment to its maximum under overload",
          "[world]") {
  const std::string hpa = hpa_on_running(1, 4, "500m");
  Run run(kPool + deployment(1) + hpa, R"(  - deployment: api
    traffic: {pattern: constant, rps: 3}
    serving: {concurrency: 1, queue_timeout: 30s, service_time: {model: fixed, duration: 1s}}
)");
  const auto changes = run.events.of(EventKind::ReplicasChanged);
  REQUIRE(!changes.empty());
  std::int32_t last = 1;
  for (const auto& c : changes) {
    CHECK(c.source == EventReason{ReplicasSource::Hpa});
    CHECK(c.from == last);
    CHECK(c.to > c.from);  // a constant overload only ever scales up
    last = c.to;
  }
  CHECK(last == 4);
  CHECK(run.events.of(EventKind::PodReady).size() == 4);
}

TEST_CASE(
    "an HPA on an exporter's own metric name scales through a scenario alias (issue 12, "
    "finding 1)",
    "[world]") {
  // The GPU guides' HPA reads a Pods metric `gpu_utilization`; the run produces the DCGM
  // exporter's name. The alias mirrors every series, so the HPA acts as on the DCGM metric.
  std::string hpa = hpa_on_running(1, 4, "50");
  hpa.replace(hpa.find("vllm:num_requests_running"), 25, "gpu_utilization");
  Run run(kPool + deployment(1) + hpa, R"(  - deployment: api
    traffic: {pattern: constant, rps: 3}
    serving: {concurrency: 1, queue_timeout: 30s, service_time: {model: fixed, duration: 1s}}
)",
          "metrics: {aliases: {gpu_utilization: DCGM_FI_DEV_GPU_UTIL}}\n");
  const auto changes = run.events.of(EventKind::ReplicasChanged);
  REQUIRE(!changes.empty());
  CHECK(changes.front().from == 1);
  CHECK(changes.back().to == 4);  // every replica busy at 100% against a 50% target
}

TEST_CASE("a ScaledObject on requests in the system scales its Deployment", "[world]") {
  const std::string so = R"(---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: api}
spec:
  scaleTargetRef: {name: api}
  minReplicaCount: 1
  maxReplicaCount: 3
  pollingInterval: 15
  triggers:
    - type: prometheus
      metadata:
        serverAddress: http://prometheus:9090
        query: sum(vllm:num_requests_running{model_name="api"}) + sum(vllm:num_requests_waiting{model_name="api"})
        threshold: "1"
)";
  Run run(kPool + deployment(1) + so, R"(  - deployment: api
    traffic: {pattern: constant, rps: 2.5}
    serving: {concurrency: 1, queue_timeout: 30s, service_time: {model: fixed, duration: 1s}}
)");
  const auto changes = run.events.of(EventKind::ReplicasChanged);
  REQUIRE(!changes.empty());
  for (const auto& c : changes) CHECK(c.source == EventReason{ReplicasSource::Keda});
  CHECK(changes.back().to == 3);
  CHECK(run.world->cluster().pods().size() >= 3);
}

TEST_CASE("a scaled-down replica drains its requests within the grace period", "[world]") {
  // Two replicas, each always running about 10 requests of 20 s; the HPA wants one.
  const std::string hpa =
      hpa_on_running(1, 2, "100", "  behavior:\n    scaleDown: {stabilizationWindowSeconds: 0}\n");
  const std::string service = R"(  - deployment: api
    traffic: {pattern: constant, rps: 1}
    serving: {concurrency: 30, service_time: {model: fixed, duration: 20s}}
)";
  auto with_grace = [&](const std::string& grace) {
    std::string d = deployment(2);
    d.replace(d.find("terminationGracePeriodSeconds: 30"), 33,
              "terminationGracePeriodSeconds: " + grace);
    return kPool + d + hpa;
  };
  SECTION("a 30 s grace period: every request in flight finishes") {
    Run run(with_grace("30"), service);
    const auto changes = run.events.of(EventKind::ReplicasChanged);
    const auto deleted = run.events.of(EventKind::PodDeleted);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].to == 1);
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].t > changes[0].t);
    CHECK(deleted[0].t <= changes[0].t + 20);
    CHECK(run.service().stats().totals().dropped == 0);
  }
  SECTION("a 5 s grace period: what is still running at its end is lost") {
    Run run(with_grace("5"), service);
    const auto changes = run.events.of(EventKind::ReplicasChanged);
    const auto deleted = run.events.of(EventKind::PodDeleted);
    REQUIRE(changes.size() == 1);
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0].t == changes[0].t + 5);
    CHECK(run.service().stats().totals().dropped > 0);
  }
}

TEST_CASE("a service names a Deployment in another namespace by its name alone", "[world]") {
  std::string d = deployment(1);
  d.replace(d.find("metadata: {name: api}"), 21, "metadata: {name: api, namespace: inference}");
  Run run(kPool + d, R"(  - deployment: api
    traffic: {pattern: constant, rps: 1}
    serving: {concurrency: 1, service_time: {model: fixed, duration: 100ms}}
)");
  CHECK(run.events.of(EventKind::PodReady).size() == 1);
  CHECK(run.service().stats().totals().served > 3000);
}

TEST_CASE("KEDA scales a Deployment to zero when idle and back from zero on the gateway's rate",
          "[world]") {
  const std::string so = R"(---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: api}
spec:
  scaleTargetRef: {name: api}
  minReplicaCount: 0
  maxReplicaCount: 2
  pollingInterval: 10
  cooldownPeriod: 60
  triggers:
    - type: prometheus
      metadata:
        serverAddress: http://prometheus:9090
        query: sum(rate(fleetsim_service_requests_total{service="api"}[1m]))
        threshold: "1"
)";
  // Traffic starts only at 20 minutes: the first replica goes idle and KEDA scales to zero.
  Run run(kPool + deployment(1) + so, R"(  - deployment: api
    traffic: {pattern: constant, rps: 0.5, first_arrival: 20m}
    serving: {concurrency: 1, service_time: {model: fixed, duration: 1s}}
)");
  const auto changes = run.events.of(EventKind::ReplicasChanged);
  REQUIRE(changes.size() >= 2);
  CHECK(changes[0].source == EventReason{ReplicasSource::Keda});
  CHECK(changes[0].to == 0);
  CHECK(changes[0].t < 20 * 60);
  // The first request activates it again: seen by the next scrape (15 s), acted on by the next
  // poll (10 s). (vLLM's own metrics could not do this: they vanish with the last pod.)
  CHECK(changes[1].from == 0);
  CHECK(changes[1].to == 1);
  CHECK(changes[1].t >= 20 * 60);
  CHECK(changes[1].t <= 20 * 60 + 25);
  // Every request was eventually served: the cold start only delayed the first ones.
  CHECK(run.service().stats().totals().dropped == 0);
  CHECK(run.service().stats().totals().served > 1000);
}

// The warning that keeps a service's pods off the types its model cannot run on, if any.
std::string keeps_off(const ScenarioConfig& cfg) {
  for (const Warning& w : cfg.warnings)
    if (w.code == WarningCode::ModelKeepsOffTypes) return w.message;
  return "";
}

TEST_CASE("an LLM service keeps off GPUs the catalog has no figures for", "[world]") {
  std::string pool = kPool;
  const std::string one_type = R"(values: ["g5.xlarge"])";
  pool.replace(pool.find(one_type), one_type.size(), R"(values: ["g5.xlarge", "p3.2xlarge"])");
  const std::string service = R"(  - deployment: api
    traffic: {pattern: constant, rps: 1}
)";
  test::TempDir dir("world-rates");
  dir.write("manifests.yaml", pool + deployment(1));
  const auto file = dir.write(
      "scenario.yaml", "name: s\nduration: 1h\nmanifests: [manifests.yaml]\nservices:\n" + service);
  const auto catalogs = std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog";
  const ScenarioConfig cfg = load_scenario(file, catalogs);
  CHECK(keeps_off(cfg) ==
        "llama-3.1-8b cannot be served on p3.2xlarge (the catalog has no hardware figures for its "
        "v100), so api's pods keep off them, as a nodeAffinity node.kubernetes.io/instance-type "
        "NotIn would");
  const Requirement* types =
      cfg.workloads.at(0).pod.spec.node_requirements.get(label::kInstanceType);
  REQUIRE(types != nullptr);
  CHECK_FALSE(types->allows("p3.2xlarge"));
  CHECK(test::config_error([&] { World world(cfg); }) == "no error");
  // Measured rates time every replica alike: the pool is used whole.
  dir.write("scenario.yaml",
            "name: s\nduration: 1h\nmanifests: [manifests.yaml]\nservices:\n" + service +
                "    serving: {service_time: {model: llm, rates: {prefill_tokens_per_s: 4000, "
                "time_per_output_token: 40ms}}}\n");
  const ScenarioConfig with_rates = load_scenario(file, catalogs);
  CHECK(keeps_off(with_rates).empty());
  CHECK(test::config_error([&] { World world(with_rates); }) == "no error");
}

TEST_CASE("a NodePool a scripted apply brings in is checked against the model too", "[world]") {
  test::TempDir dir("world-rates-apply");
  dir.write("manifests.yaml", kPool + deployment(1));
  std::string later = kPool;
  const std::string one_type = R"(values: ["g5.xlarge"])";
  later.replace(later.find(one_type), one_type.size(), R"(values: ["p3.2xlarge"])");
  dir.write("later.yaml", later);
  const auto file = dir.write("scenario.yaml",
                              "name: s\nduration: 1h\nmanifests: [manifests.yaml]\n"
                              "events:\n  - {at: 30m, apply: later.yaml}\nservices:\n"
                              "  - deployment: api\n    traffic: {pattern: constant, rps: 1}\n");
  const ScenarioConfig cfg =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  CHECK_THAT(keeps_off(cfg), Catch::StartsWith("llama-3.1-8b cannot be served on p3.2xlarge"));
}

// The case that once passed validation and then stopped the run with an internal error (exit 3):
// a PreferNoSchedule taint only steers pods, so Karpenter relaxes it and may launch the tainted
// pool's GPUs; validation must see that pool too.
TEST_CASE("a pool with a PreferNoSchedule taint is checked against the model", "[world]") {
  std::string tainted = kPool;
  const std::string one_type = R"(values: ["g5.xlarge"])";
  tainted.replace(tainted.find(one_type), one_type.size(), R"(values: ["p3.2xlarge"])");
  const std::string name = "{name: gpu}";
  tainted.replace(tainted.find(name), name.size(), "{name: v100}");
  tainted += "      taints: [{key: gpu-tier, value: old, effect: PreferNoSchedule}]\n";
  test::TempDir dir("world-rates-prefer");
  dir.write("manifests.yaml", kPool + "---\n" + tainted + deployment(1));
  const auto file = dir.write("scenario.yaml",
                              "name: s\nduration: 1h\nmanifests: [manifests.yaml]\nservices:\n"
                              "  - deployment: api\n    traffic: {pattern: constant, rps: 1}\n");
  const ScenarioConfig cfg =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  CHECK_THAT(keeps_off(cfg), Catch::StartsWith("llama-3.1-8b cannot be served on p3.2xlarge"));
  CHECK(test::config_error([&] { World world(cfg); }) == "no error");
}

namespace {

// An HPA on the gateway's arrivals: one replica per request that has arrived, up to 5.
const std::string kHpaOnArrivals = R"(---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 1
  maxReplicas: 5
  metrics:
    - type: External
      external:
        metric: {name: fleetsim_service_requests_total, selector: {matchLabels: {service: api}}}
        target: {type: AverageValue, averageValue: "1"}
)";

// Three requests at 10 s; the HPA wants three replicas once a scrape has counted them.
const std::string kBatchAt10s = R"(  - deployment: api
    traffic: {pattern: batch, requests: 3, at: 10s}
    serving: {concurrency: 1, service_time: {model: fixed, duration: 1s}}
)";

// When the HPA scaled 1 -> 3 (the run's only change).
double scaled_at(const Run& run) {
  const auto changes = run.events.of(EventKind::ReplicasChanged);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].from == 1);
  CHECK(changes[0].to == 3);
  return changes[0].t;
}

}  // namespace

TEST_CASE("an HPA sync reads the last scrape before it as stale as the phases make it", "[world]") {
  // Scrapes at 7 s, 22 s, …; syncs at 2 s, 17 s, 32 s, …: the sync at 17 s reads the scrape of
  // 7 s (no arrival yet), the one at 32 s the scrape of 22 s, 10 s old, that counted the batch.
  CHECK(scaled_at(Run(kPool + deployment(1) + kHpaOnArrivals, kBatchAt10s,
                      "phase_offsets: {hpa: 2s, scrape: 7s}\n")) == 32.0);
  // Syncs at 8 s, 23 s: the scrape of 22 s is 1 s old.
  CHECK(scaled_at(Run(kPool + deployment(1) + kHpaOnArrivals, kBatchAt10s,
                      "phase_offsets: {hpa: 8s, scrape: 7s}\n")) == 23.0);
  // In lockstep the sync at 15 s reads the scrape of that very instant.
  CHECK(scaled_at(Run(kPool + deployment(1) + kHpaOnArrivals, kBatchAt10s,
                      "phase_offsets: zero\n")) == 15.0);
}

TEST_CASE("seeded phases set the HPA and the scrape apart and follow the seed", "[world]") {
  Run run(kPool + deployment(1) + kHpaOnArrivals, kBatchAt10s);
  const RunPhases& p = run.world->phases();
  // Seed 1's draws from the streams phase/hpa and phase/scrape.
  CHECK(p.hpa == millis(5728));
  CHECK(p.scrape == millis(8052));
  CHECK(p.karpenter_disruption == millis(3155));
  // The first scrape at or after the batch, then the first sync at or after it (a scrape goes
  // before a sync at the same instant).
  const double period = 15;
  const double scrape = to_seconds(p.scrape);
  const double hpa = to_seconds(p.hpa);
  const double seen = scrape + period * std::ceil((10 - scrape) / period);
  const double acted = hpa + period * std::ceil((seen - hpa) / period);
  CHECK(scaled_at(run) == Approx(acted).margin(1e-9));
  // That is the sync at 35.728 s on the scrape of 23.052 s, 12.676 s old.
  CHECK(acted == Approx(35.728).margin(1e-9));

  ScenarioConfig other = run.config;
  CHECK(draw_run_phases(other).hpa == p.hpa);
  other.seed = 2;
  const RunPhases two = draw_run_phases(other);
  CHECK(two.hpa != p.hpa);
  CHECK(two.scrape != p.scrape);
}

namespace {

// The mixed strategy's p4de: all-3g.40gb gives 16 nvidia.com/mig-3g.40gb; the overlay tells
// Karpenter so before launch.
const std::string kMigPool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    metadata:
      labels: {nvidia.com/mig.config: all-3g.40gb}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: ["p4de.24xlarge"]}
        - {key: karpenter.sh/capacity-type, operator: In, values: ["on-demand"]}
---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: slices}
spec:
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: ["p4de.24xlarge"]}
  capacity: {nvidia.com/mig-3g.40gb: "16"}
)";

std::string mig_deployment() {
  std::string d = deployment(1);
  const std::string whole = "nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 1}";
  d.replace(d.find(whole), whole.size(),
            "nvidia.com/mig-3g.40gb: 1}, limits: {nvidia.com/mig-3g.40gb: 1}");
  return d;
}

std::string slice_scaled_object(const std::string& profile) {
  return R"(---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: api}
spec:
  scaleTargetRef: {name: api}
  minReplicaCount: 1
  maxReplicaCount: 3
  pollingInterval: 15
  triggers:
    - type: prometheus
      metadata:
        serverAddress: http://prometheus:9090
        query: sum(DCGM_FI_PROF_GR_ENGINE_ACTIVE{GPU_I_PROFILE=")" +
         profile + R"("})
        threshold: "0.5"
)";
}

struct Samples final : MetricSampleSink {
  void on_sample(std::string_view metric, const LabelSet& labels, SimTime, double) override {
    if (metric == "DCGM_FI_DEV_GPU_UTIL") ++gpu_util;
    if (metric != "DCGM_FI_PROF_GR_ENGINE_ACTIVE") return;
    std::string pod, id, gpu, profile;
    for (const auto& [k, v] : labels) {
      if (k == "pod") pod = v;
      if (k == "GPU_I_ID") id = v;
      if (k == "gpu") gpu = v;
      if (k == "GPU_I_PROFILE") profile = v;
    }
    instances[pod] = gpu + "/" + id + " " + profile;
  }
  std::map<std::string, std::string> instances;  // pod -> "gpu/GPU_I_ID profile"
  int gpu_util = 0;
};

const std::string kBusyService = R"(  - deployment: api
    traffic: {pattern: constant, rps: 2.5}
    serving: {concurrency: 1, queue_timeout: 30s, service_time: {model: fixed, duration: 1s}}
)";

}  // namespace

TEST_CASE("a KEDA prometheus trigger on a MIG profile's engine activity scales", "[world]") {
  // dcgm-exporter writes a MIG instance's series with GPU_I_PROFILE and GPU_I_ID beside the GPU
  // (as quoted in dcgm-exporter#272: DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",...,GPU_I_PROFILE=
  // "3g.40gb",GPU_I_ID="1",...}); DCGM_FI_DEV_GPU_UTIL has no MIG series (dcgm-exporter#216).
  // Each replica is busy all the time (2.5 requests/s of 1 s on one slot), so the sum is the
  // replicas and a 0.5 threshold asks for twice as many, up to the maximum of 3.
  const std::string scenario =
      "gpu_operator: {mig_strategy: mixed}\n"
      "karpenter: {feature_gates: {node_overlay: true}}\n";
  test::TempDir dir("world-mig-keda");
  dir.write("manifests.yaml", kMigPool + mig_deployment() + slice_scaled_object("3g.40gb"));
  const auto file =
      dir.write("scenario.yaml", "name: serving\nduration: 1h\nmanifests: [manifests.yaml]\n" +
                                     scenario + "services:\n" + kBusyService);
  const ScenarioConfig config =
      load_scenario(file, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  World world(config);
  Events events;
  Samples samples;
  world.add_sink(events);
  world.add_metric_sink(samples);
  world.run();
  const auto changes = events.of(EventKind::ReplicasChanged);
  REQUIRE(!changes.empty());
  for (const auto& c : changes) CHECK(c.source == EventReason{ReplicasSource::Keda});
  CHECK(changes.back().to == 3);
  // Three pods on the one node's first GPU's two instances, then the second GPU's first: the
  // kubelet hands out the first free device.
  REQUIRE(samples.instances.size() == 3);
  std::vector<std::string> seen;
  for (const auto& [pod, where] : samples.instances) seen.push_back(where);
  std::sort(seen.begin(), seen.end());
  CHECK(seen == std::vector<std::string>{"0/1 3g.40gb", "0/2 3g.40gb", "1/1 3g.40gb"});
  CHECK(samples.gpu_util == 0);

  // A query on a profile no node has selects nothing: KEDA's scaler gets no value, and the
  // Deployment stays at its one replica.
  test::TempDir other("world-mig-keda-other");
  other.write("manifests.yaml", kMigPool + mig_deployment() + slice_scaled_object("1g.10gb"));
  const auto file2 =
      other.write("scenario.yaml", "name: serving\nduration: 1h\nmanifests: [manifests.yaml]\n" +
                                       scenario + "services:\n" + kBusyService);
  const ScenarioConfig config2 =
      load_scenario(file2, std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog");
  World world2(config2);
  Events events2;
  world2.add_sink(events2);
  world2.run();
  for (const auto& c : events2.of(EventKind::ReplicasChanged)) CHECK(c.to <= 1);
}
