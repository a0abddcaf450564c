#include "fleetsim/scenario/scenario_loader.hpp"

#include <catch2/catch.hpp>

#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::filesystem::path scenario(std::string_view name) {
  return test::fixtures() / "scenarios" / name;
}

std::string load_error(const std::filesystem::path& file, const std::filesystem::path& root = {}) {
  return test::config_error([&] { load_scenario(file, root); });
}

// A scenario in a scratch directory using the fixture catalog; `body` follows three fixed lines.
struct ScratchScenario {
  test::TempDir dir;
  std::filesystem::path file;
  ScratchScenario(std::string_view name, std::string_view body) : dir(name) {
    file = dir.write("scenario.yaml", "name: scratch\nduration: 6h\ncatalog: " +
                                          (test::fixtures() / "catalog/aws/us-east-1").string() +
                                          "\n" + std::string(body));
  }
  std::string error() const { return load_error(file); }
  std::string at(int line, int col) const {
    return file.string() + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

}  // namespace

TEST_CASE("a complete scenario loads with its manifests, jobs and events", "[scenario]") {
  ScenarioConfig cfg = load_scenario(scenario("basic.yaml"));
  CHECK(cfg.name == "inference-surge");
  CHECK(cfg.seed == 7);
  CHECK(cfg.duration == hours(6));
  CHECK(cfg.region == "us-east-1");
  CHECK(cfg.provisioner == ProvisionerKind::Karpenter);
  CHECK(cfg.report_interval == seconds(30));
  CHECK(cfg.file == scenario("basic.yaml"));
  REQUIRE(cfg.catalog);
  CHECK(cfg.catalog->types().size() == 6);
  CHECK(cfg.karpenter.batch_idle == seconds(2));
  CHECK(cfg.karpenter.batch_max == seconds(20));

  REQUIRE(cfg.nodepools.size() == 1);
  CHECK(cfg.nodepools[0].name == "gpu");
  REQUIRE(cfg.node_classes.size() == 1);
  REQUIRE(cfg.priority_classes.size() == 1);
  CHECK(cfg.priority_classes[0].value == 100000);
  REQUIRE(cfg.workloads.size() == 1);
  CHECK(cfg.workloads[0].name == "vllm-llama");
  CHECK(cfg.workloads[0].pod.spec.priority == 100000);  // the class is defined after the Deployment
  CHECK(cfg.daemonsets.empty());

  REQUIRE(cfg.job_sources.size() == 1);
  const JobSource& js = cfg.job_sources[0];
  CHECK(
      js.trace ==
      std::filesystem::absolute(test::fixtures() / "traces/training-jobs.csv").lexically_normal());
  CHECK(js.template_workload.kind == WorkloadKind::Job);
  CHECK(js.template_workload.name == "finetune");
  CHECK(js.template_workload.pod.spec.requests[resource::kNvidiaGpu] == 4);
  CHECK(js.where.to_string() == scenario("basic.yaml").string() + ":18:5");

  // Sorted by time: the 2h apply comes before the 3h interruption written above it.
  REQUIRE(cfg.events.size() == 2);
  CHECK(cfg.events[0].at == hours(2));
  const auto& apply = std::get<ApplyManifestsEvent>(cfg.events[0].action);
  REQUIRE(apply.nodepools.size() == 1);
  CHECK(apply.nodepools[0].name == "gpu");
  CHECK_FALSE(apply.nodepools[0].expire_after);
  REQUIRE(apply.workloads.size() == 1);
  CHECK(apply.workloads[0].name == "smoke-test");
  CHECK(apply.workloads[0].created_at == at(hours(2)));
  CHECK(cfg.events[1].at == hours(3));
  const auto& spot = std::get<SpotInterruptionEvent>(cfg.events[1].action);
  CHECK(spot.instance_type == "g5.xlarge");
  CHECK(spot.zone == "us-east-1a");
  CHECK(spot.count == 3);
  CHECK(cfg.events[1].where.to_string() == scenario("basic.yaml").string() + ":21:5");

  CHECK(cfg.node_latencies.cpu == kDefaultCpuNodeLatency);
  // A phase the scenario sets is fixed; the others keep the class's median and spread.
  CHECK(cfg.node_latencies.gpu == NodeLatency{.launch = seconds(5),
                                              .registration = seconds(50),
                                              .initialization = seconds(25),
                                              .sigma = kFittedGpuStartupSigma,
                                              .registration_fixed = true});
  REQUIRE(cfg.node_latencies.by_family.size() == 2);
  CHECK(cfg.node_latencies.by_family.at("p5") == NodeLatency{.launch = seconds(5),
                                                             .registration = seconds(50),
                                                             .initialization = seconds(60),
                                                             .sigma = kFittedGpuStartupSigma,
                                                             .registration_fixed = true,
                                                             .initialization_fixed = true});
  CHECK(cfg.node_latencies.by_family.at("m5") == NodeLatency{.launch = seconds(3),
                                                             .registration = seconds(30),
                                                             .initialization = seconds(5),
                                                             .sigma = kFittedCpuStartupSigma,
                                                             .launch_fixed = true});

  std::vector<std::string> fields;
  for (const auto& w : cfg.warnings) fields.push_back(w.field);
  // Warnings come in file order (file, line, column), as a user reads the manifests.
  CHECK(fields == std::vector<std::string>{"EC2NodeClass.spec.amiFamily",
                                           "EC2NodeClass.spec.subnetSelectorTerms",
                                           "Job.spec.backoffLimit"});
  REQUIRE(cfg.hpas.size() == 1);  // decoded and bound to its Deployment, without a warning
  CHECK(cfg.hpas[0].namespace_name == "inference");
  CHECK(cfg.scrape_interval == seconds(15));
}

TEST_CASE("defaults: seed, region, report interval, latencies and the bundled catalog",
          "[scenario]") {
  ScenarioConfig cfg = load_scenario(scenario("minimal.yaml"), test::fixtures() / "catalog");
  CHECK(cfg.name == "minimal");
  CHECK(cfg.seed == 1);
  CHECK(cfg.start_unix_s == kDefaultStartUnixSeconds);  // Monday 2024-01-01T00:00:00Z
  CHECK(cfg.duration == minutes(90));
  CHECK(cfg.region == "us-east-1");
  CHECK(cfg.report_interval == seconds(60));
  CHECK(cfg.catalog->types().size() == 6);
  CHECK(cfg.node_latencies.cpu == NodeLatency{.launch = seconds(5),
                                              .registration = seconds(30),
                                              .initialization = seconds(5),
                                              .sigma = 0.3017});
  CHECK(cfg.node_latencies.gpu == NodeLatency{.launch = seconds(5),
                                              .registration = seconds(40),
                                              .initialization = seconds(25),
                                              .sigma = 0.2704});
  CHECK(cfg.karpenter.batch_idle == seconds(1));
  CHECK(cfg.karpenter.batch_max == seconds(10));
  CHECK(cfg.warnings.empty());
  CHECK(cfg.resources.size() == resource::kWellKnownCount);

  CHECK(load_error(scenario("minimal.yaml")) ==
        scenario("minimal.yaml").string() +
            ": catalog: no catalog given and no bundled catalog is known");
}

TEST_CASE("scenario file errors carry file:line:col and the field", "[scenario]") {
  auto missing = scenario("does-not-exist.yaml");
  CHECK(load_error(missing) == missing.string() + ": file not found");
  CHECK(load_error(scenario("unknown-key.yaml")) ==
        scenario("unknown-key.yaml").string() +
            ":3:1: manifest: unknown key; expected one of name, seed, start, duration, region, "
            "catalog, provisioner, report_interval, scrape_interval, phase_offsets, api_latency, "
            "warmup, manifests, services, serving_mode, "
            "jobs, events, node_latencies, karpenter, cluster_autoscaler, gpu_operator, spot, "
            "reservations, kube_controller_manager, "
            "metrics, "
            "gates, manifest_validation, warnings, lint; did "
            "you mean "
            "\"manifests\"?");
  CHECK(load_error(scenario("services.yaml")) ==
        scenario("services.yaml").string() +
            ":7:17: services[0].deployment: no Deployment named \"vllm-llama\" in the "
            "scenario's manifests");
  CHECK(load_error(scenario("bad-manifest-path.yaml")) ==
        scenario("bad-manifest-path.yaml").string() + ":6:5: manifests[1]: file not found: " +
            (test::fixtures() / "manifests/does-not-exist.yaml").string());
  CHECK(load_error(scenario("malformed.yaml")) ==
        scenario("malformed.yaml").string() + ":4:7: invalid YAML: end of sequence flow not found");
  CHECK(load_error(scenario("wrong-type.yaml")) ==
        scenario("wrong-type.yaml").string() +
            ":5:8: node_latencies.gpu: expected a mapping, got a scalar (\"40s\")");
}

TEST_CASE("top-level values are validated", "[scenario]") {
  auto top = [](std::string_view name, std::string_view yaml) {
    test::TempDir dir(name);
    return load_error(dir.write("s.yaml", yaml), test::fixtures() / "catalog");
  };
  CHECK(top("noname", "duration: 1h\n").ends_with("s.yaml:1:1: name: required field is missing"));
  CHECK(top("long", "name: x\nduration: 9601h\n")
            .ends_with("s.yaml:2:11: duration: the duration must be at most 400 days"));
  CHECK(top("zero", "name: x\nduration: 0s\n")
            .ends_with("s.yaml:2:11: duration: the duration must be positive"));
  CHECK(top("plain", "name: x\nduration: 3600\n")
            .ends_with("s.yaml:2:11: duration: invalid duration \"3600\"; use Go forms such as "
                       "90s, 5m or 1h30m"));
  CHECK(top("seed", "name: x\nduration: 1h\nseed: -3\n")
            .ends_with("s.yaml:3:7: seed: -3 is out of range [0, 9223372036854775807]"));
  CHECK(top("ca", "name: x\nduration: 1h\nprovisioner: cluster-autoscaler\n")
            .ends_with("s.yaml:3:14: provisioner: cluster-autoscaler resizes node groups: give an "
                       "eksctl ClusterConfig with managedNodeGroups or nodeGroups in manifests"));
  CHECK(top("auto", "name: x\nduration: 1h\nprovisioner: eks-auto-mode\n")
            .find("s.yaml:3:14: provisioner: EKS Auto Mode's fees are not in the catalog (") !=
        std::string::npos);
  CHECK(top("karp", "name: x\nduration: 1h\nprovisioner: karpentr\n")
            .ends_with(
                "s.yaml:3:14: provisioner: unknown provisioner \"karpentr\"; expected karpenter, "
                "cluster-autoscaler or eks-auto-mode; did you mean \"karpenter\"?"));
  CHECK(top("region", "name: x\nduration: 1h\nregion: eu-west-9\n")
            .find("s.yaml:3:9: region: no bundled catalog for region \"eu-west-9\"") !=
        std::string::npos);
  CHECK(top("badregion", "name: x\nduration: 1h\nregion: ../../etc\n")
            .ends_with("s.yaml:3:9: region: invalid region \"../../etc\""));
  CHECK(top("nocat", "name: x\nduration: 1h\ncatalog: nowhere\n")
            .find("s.yaml:3:10: catalog: catalog directory not found: ") != std::string::npos);
  CHECK(top("two", "name: x\nduration: 1h\n---\nname: y\n")
            .ends_with("s.yaml:4:1: a scenario file holds one YAML "
                       "document; put manifests in files of their own"));
  CHECK(top("empty", "# nothing\n").ends_with("s.yaml: the scenario file is empty"));
  CHECK(top("start", "name: x\nduration: 1h\nstart: 2025-02-30T00:00:00Z\n")
            .ends_with("s.yaml:3:8: start: 2025-02-30 is not a date"));
  CHECK(top("latency", "name: x\nduration: 1h\nnode_latencies: {families: {g6: {launch: 1s}}}\n")
            .ends_with("s.yaml:3:29: node_latencies.families.g6: instance family \"g6\" is not in "
                       "the catalog; did "
                       "you mean \"g5\"?"));
  CHECK(top("batch", "name: x\nduration: 1h\nkarpenter: {batch_idle: 0s}\n")
            .ends_with("s.yaml:3:25: karpenter.batch_idle: must be positive"));
  CHECK(top("bomb",
            "name: x\nduration: 1h\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, "
            "*a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, "
            "*c, *c, *c]\n"
            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, "
            "*e, *e, *e]\n"
            "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n")
            .ends_with("s.yaml:1:1: too many YAML nodes (alias expansion?); at most 1000000 are "
                       "read per file"));
}

TEST_CASE("a broken catalog surfaces as a CatalogError", "[scenario]") {
  test::TempDir dir("badcatalog");
  std::filesystem::create_directories(dir.path() / "cat");
  dir.write("cat/instance-types.csv", "instance_type,family\ng5.xlarge,g5\n");
  dir.write("cat/offerings.csv",
            "instance_type,zone,capacity_type,price_usd_per_hour,interruption_bucket,capacity\n");
  auto file = dir.write("s.yaml", "name: x\nduration: 1h\ncatalog: cat\n");
  CHECK_THROWS_AS(load_scenario(file), CatalogError);
}

TEST_CASE("jobs and events are checked against the catalog and each other", "[scenario]") {
  std::string manifests = (test::fixtures() / "manifests").string();
  {
    ScratchScenario s("spot-type",
                      "events:\n  - at: 1h\n    spot_interruption: {instance_type: g5.xlarg}\n");
    CHECK(s.error() ==
          s.at(6, 40) +
              ": events[0].spot_interruption.instance_type: instance type \"g5.xlarg\" is "
              "not in the catalog; did you mean \"g5.xlarge\"?");
  }
  {
    ScratchScenario s("spot-zone",
                      "events:\n  - at: 1h\n    spot_interruption: {instance_type: g5.xlarge, "
                      "zone: us-east-1c}\n");
    CHECK(s.error() ==
          s.at(6, 57) +
              ": events[0].spot_interruption.zone: g5.xlarge has no spot offering in zone "
              "\"us-east-1c\" (zones: us-east-1a, us-east-1b)");
  }
  {
    ScratchScenario s("late", "events:\n  - {at: 7h, spot_interruption: {count: 1}}\n");
    CHECK(s.error() ==
          s.at(5, 10) +
              ": events[0].at: the event at 7h0m0s comes after the end of the scenario (6h0m0s)");
  }
  {
    ScratchScenario s("both", "events:\n  - {at: 1h}\n");
    CHECK(s.error() == s.at(5, 5) +
                           ": events[0]: an event needs exactly one of apply, spot_interruption, "
                           "scale or capacity");
  }
  {
    ScratchScenario s("evkey", "events:\n  - {at: 1h, aply: x.yaml}\n");
    CHECK(s.error() == s.at(5, 14) +
                           ": events[0].aply: unknown key; expected one of at, apply, "
                           "spot_interruption, scale, capacity; did you mean \"apply\"?");
  }
  {
    ScratchScenario s(
        "tmpl", "jobs:\n  - trace: " + (test::fixtures() / "traces/training-jobs.csv").string() +
                    "\n    template: " + manifests + "/vllm-deployment.yaml\n");
    CHECK(s.error() ==
          s.at(6, 15) +
              ": jobs[0].template: a job template must be exactly one Job or Pod manifest; "
              "found 1 Deployment, 1 HorizontalPodAutoscaler");
  }
  {
    ScratchScenario s(
        "trace", "jobs:\n  - {trace: missing.csv, template: " + manifests + "/train-job.yaml}\n");
    CHECK(s.error() == s.at(5, 13) + ": jobs[0].trace: file not found: " +
                           (s.dir.path() / "missing.csv").string());
  }
}

TEST_CASE(
    "a Job of the manifests without a run time warns that it never completes (issue 12, "
    "finding 6)",
    "[scenario]") {
  // A trace's template needs no annotation: the trace gives each job its run time.
  const std::string job =
      "{apiVersion: batch/v1, kind: Job, metadata: {name: train}, spec: {template: {spec: "
      "{restartPolicy: Never, containers: [{name: c, resources: {requests: {cpu: '1'}}}]}}}}";
  test::TempDir dir("endless-template");
  dir.write("job.yaml", job + "\n");
  ScratchScenario s("endless", "manifests:\n  - " + job + "\njobs:\n  - {trace: " +
                                   (test::fixtures() / "traces/training-jobs.csv").string() +
                                   ", template: " + (dir.path() / "job.yaml").string() + "}\n");
  ScenarioConfig cfg = load_scenario(s.file);
  REQUIRE(cfg.warnings.size() == 2);
  CHECK(cfg.warnings[1].field == "NodePool");  // the scenario has none
  CHECK(cfg.warnings[0].field == "Job.metadata.annotations.fleetsim.io/duration");
  CHECK(cfg.warnings[0].where.to_string() == s.at(5, 56));  // metadata.name
  CHECK(cfg.warnings[0].message ==
        "Job \"train\" has no fleetsim.io/duration annotation (on the Job or its pod template): "
        "its pods run until the end of the run and it never completes");
}

TEST_CASE("node class references: an error when classes exist, a warning when none do",
          "[scenario]") {
  std::string pool =
      "  - apiVersion: karpenter.sh/v1\n    kind: NodePool\n    metadata: {name: gpu}\n"
      "    spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, "
      "name: defualt}}}}\n";
  {
    ScratchScenario s("noclass", "manifests:\n" + pool);
    ScenarioConfig cfg = load_scenario(s.file);
    REQUIRE(cfg.warnings.size() == 1);
    CHECK(cfg.warnings[0].field == "NodePool.spec.template.spec.nodeClassRef.name");
    CHECK(cfg.warnings[0].message == "no EC2NodeClass named \"defualt\"; using defaults");
    // At the reference itself, not the NodePool's name (issue 12, finding 6).
    CHECK(cfg.warnings[0].where.to_string() == s.at(8, 97));
  }
  {
    ScratchScenario s("withclass", "manifests:\n" + pool +
                                       "  - {apiVersion: karpenter.k8s.aws/v1, kind: EC2NodeClass, "
                                       "metadata: {name: default}, spec: {}}\n");
    CHECK(s.error() ==
          s.at(8, 97) +
              ": spec.template.spec.nodeClassRef.name: no EC2NodeClass named \"defualt\"; did "
              "you mean \"default\"?");
  }
  {
    ScratchScenario s("dupe", "manifests:\n" + pool + pool);
    CHECK(s.error() == s.at(11, 22) +
                           ": metadata.name: a second NodePool named \"gpu\" (the first is at " +
                           s.at(7, 22) + ")");
  }
}

TEST_CASE("manifest directories, inline job templates and server bookkeeping fields",
          "[scenario]") {
  ScratchScenario s(
      "dir", "manifests:\n  - " + (test::fixtures() / "manifests-dir").string() +
                 "\njobs:\n  - trace: " + (test::fixtures() / "traces/training-jobs.csv").string() +
                 "\n    template:\n      apiVersion: v1\n      kind: Pod\n"
                 "      metadata: {name: one-shot}\n"
                 "      spec: {restartPolicy: Never, containers: [{name: c, resources: {limits: "
                 "{nvidia.com/gpu: 1}}}]}\n");
  ScenarioConfig cfg = load_scenario(s.file);
  REQUIRE(cfg.node_classes.size() == 1);  // a-class.yml is read before b-pool.yaml
  REQUIRE(cfg.nodepools.size() == 1);
  CHECK(cfg.nodepools[0].name == "cpu");
  REQUIRE(cfg.job_sources.size() == 1);
  CHECK(cfg.job_sources[0].template_workload.kind == WorkloadKind::Pod);
  CHECK(cfg.job_sources[0].template_workload.pod.spec.requests[resource::kNvidiaGpu] == 1);
  // uid, resourceVersion, creationTimestamp, generation, managedFields and status are silent.
  CHECK(cfg.warnings.empty());
}

TEST_CASE("node start-up spread: sigma per class and family and its bounds", "[scenario]") {
  {
    ScratchScenario s("sigma",
                      "node_latencies:\n  cpu: {sigma: 0}\n  gpu: {sigma: 0.5, launch: 7s}\n"
                      "  families: {g5: {sigma: 0.1}, p5: {registration: 1m}}\n");
    ScenarioConfig cfg = load_scenario(s.file);
    CHECK(cfg.node_latencies.cpu == NodeLatency{.launch = seconds(5),
                                                .registration = seconds(30),
                                                .initialization = seconds(5),
                                                .sigma = 0});
    CHECK(cfg.node_latencies.gpu == NodeLatency{.launch = seconds(7),
                                                .registration = seconds(40),
                                                .initialization = seconds(25),
                                                .sigma = 0.5,
                                                .launch_fixed = true});
    // A family starts from its class: g5 keeps the fixed 7 s launch, p5 the sigma 0.5.
    CHECK(cfg.node_latencies.by_family.at("g5") == NodeLatency{.launch = seconds(7),
                                                               .registration = seconds(40),
                                                               .initialization = seconds(25),
                                                               .sigma = 0.1,
                                                               .launch_fixed = true});
    CHECK(cfg.node_latencies.by_family.at("p5") == NodeLatency{.launch = seconds(7),
                                                               .registration = seconds(60),
                                                               .initialization = seconds(25),
                                                               .sigma = 0.5,
                                                               .launch_fixed = true,
                                                               .registration_fixed = true});
  }
  auto error = [](std::string_view body) {
    ScratchScenario s("sigma-err", body);
    std::string e = s.error();
    std::string prefix = s.file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error("node_latencies: {gpu: {sigma: -0.1}}\n") ==
        "4:31: node_latencies.gpu.sigma: sigma must be in [0, 1.5]");
  CHECK(error("node_latencies: {cpu: {sigma: 2}}\n") ==
        "4:31: node_latencies.cpu.sigma: sigma must be in [0, 1.5]");
  CHECK(error("node_latencies: {cpu: {sigma: wide}}\n") ==
        "4:31: node_latencies.cpu.sigma: expected a finite number, got a scalar (\"wide\")");
  CHECK(error("node_latencies: {families: {g5: {sigma: .nan}}}\n") ==
        "4:41: node_latencies.families.g5.sigma: expected a finite number, got a scalar "
        "(\".nan\")");
  CHECK(error("node_latencies: {gpu: {launch: -5s}}\n") ==
        "4:32: node_latencies.gpu.launch: invalid duration \"-5s\"; use Go forms such as 90s, "
        "5m or 1h30m");
  CHECK(error("node_latencies: {gpu: {spread: 0.2}}\n") ==
        "4:24: node_latencies.gpu.spread: unknown key; expected one of launch, registration, "
        "initialization, sigma");
}

TEST_CASE("image pull bandwidth and scrape interval: defaults, values and bounds", "[scenario]") {
  {
    ScratchScenario s("pull-default", "");
    ScenarioConfig cfg = load_scenario(s.file);
    CHECK(cfg.node_latencies.image_pull_bytes_per_s == 60'000'000);
    CHECK(cfg.scrape_interval == seconds(15));
  }
  {
    ScratchScenario s("pull-mi",
                      "node_latencies: {image_pull_bandwidth: 100Mi}\n"
                      "scrape_interval: 30s\n");
    ScenarioConfig cfg = load_scenario(s.file);
    CHECK(cfg.node_latencies.image_pull_bytes_per_s == 100 * 1024 * 1024);
    CHECK(cfg.node_latencies.gpu == kDefaultGpuNodeLatency);
    CHECK(cfg.scrape_interval == seconds(30));
  }
  {
    ScratchScenario s("pull-m",
                      "node_latencies:\n  gpu: {registration: 50s}\n"
                      "  image_pull_bandwidth: 250M\nscrape_interval: 10m\n");
    ScenarioConfig cfg = load_scenario(s.file);
    CHECK(cfg.node_latencies.image_pull_bytes_per_s == 250'000'000);
    CHECK(cfg.node_latencies.gpu.registration == seconds(50));
    CHECK(cfg.scrape_interval == minutes(10));
  }
  auto error = [](std::string_view body) {
    ScratchScenario s("pull-err", body);
    std::string e = s.error();
    std::string prefix = s.file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error("node_latencies: {image_pull_bandwidth: 0}\n") ==
        "4:40: node_latencies.image_pull_bandwidth: the image pull bandwidth must be positive");
  CHECK(error("node_latencies: {image_pull_bandwidth: -60M}\n") ==
        "4:40: node_latencies.image_pull_bandwidth: quantity \"-60M\" must not be negative");
  CHECK(error("node_latencies: {image_pull_bandwidth: 60MB/s}\n") ==
        "4:40: node_latencies.image_pull_bandwidth: invalid quantity \"60MB/s\"; use Kubernetes "
        "forms such as 500m, 2 or 16Gi");
  // Issue 25, item 8: a well-formed quantity past the bound is too large, not invalid.
  CHECK(error("node_latencies: {image_pull_bandwidth: 16Ei}\n") ==
        "4:40: node_latencies.image_pull_bandwidth: quantity \"16Ei\" is too large: at most "
        "2305843009213693");
  CHECK(error("node_latencies: {image_pull_bandwith: 60M}\n") ==
        "4:18: node_latencies.image_pull_bandwith: unknown key; expected one of cpu, gpu, "
        "families, image_pull_bandwidth; did you mean "
        "\"image_pull_bandwidth\"?");
  CHECK(error("scrape_interval: 0s\n") ==
        "4:18: scrape_interval: the scrape interval must be at least 1s");
  // Issue 13, class 3: floors on periodic work (a microsecond hung the run).
  CHECK(error("scrape_interval: 1us\n") ==
        "4:18: scrape_interval: the scrape interval must be at least 1s");
  CHECK(error("report_interval: 999ms\n") ==
        "4:18: report_interval: the report interval must be at least 1s");
  CHECK(error("scrape_interval: 10m1s\n") ==
        "4:18: scrape_interval: the scrape interval must be at most 10m0s");
  CHECK(error("scrape_interval: 15\n") ==
        "4:18: scrape_interval: invalid duration \"15\"; use Go forms such as 90s, 5m or 1h30m");
  CHECK(error("scrape_intervall: 15s\n") ==
        "4:1: scrape_intervall: unknown key; expected one of name, seed, start, duration, region, "
        "catalog, provisioner, report_interval, scrape_interval, phase_offsets, api_latency, "
        "warmup, manifests, services, serving_mode, "
        "jobs, events, node_latencies, karpenter, cluster_autoscaler, gpu_operator, spot, "
        "reservations, "
        "kube_controller_manager, "
        "metrics, gates, manifest_validation, warnings, lint; did "
        "you mean "
        "\"scrape_interval\"?");
}

namespace {

// An HPA manifest inline in `manifests:`: four lines, its name on the third at column 22.
std::string hpa(std::string_view name, std::string_view target, std::string_view ns = "default") {
  return "  - apiVersion: autoscaling/v2\n    kind: HorizontalPodAutoscaler\n"
         "    metadata: {name: " +
         std::string(name) + ", namespace: " + std::string(ns) +
         "}\n    spec: {scaleTargetRef: " + std::string(target) + ", maxReplicas: 4}\n";
}

// A ScaledObject manifest inline in `manifests:`: four lines, its name on the third at column 22.
std::string scaled_object(std::string_view name, std::string_view target) {
  return "  - apiVersion: keda.sh/v1alpha1\n    kind: ScaledObject\n"
         "    metadata: {name: " +
         std::string(name) + "}\n    spec: {scaleTargetRef: " + std::string(target) +
         ", minReplicaCount: 1, triggers: [{type: cpu, metricType: Utilization, "
         "metadata: {value: \"60\"}}]}\n";
}

// A scenario whose manifests are the services fixture's Deployments (model-a … model-f, `shared`
// in team-1 and team-2, and a Job) followed by `objects`, which start on line 6.
struct AutoscalerScenario : ScratchScenario {
  explicit AutoscalerScenario(std::string_view objects)
      : ScratchScenario("autoscalers", "manifests:\n  - " +
                                           (test::fixtures() / "services/models.yaml").string() +
                                           "\n" + std::string(objects)) {}
  std::string short_error() const {
    std::string e = error();
    std::string prefix = file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  }
};

}  // namespace

TEST_CASE("an autoscaler reads a metric the run produces, or a scenario alias of one",
          "[scenario]") {
  // Issue 12, finding 1: the GPU guides' HPA reads `gpu_utilization`, which no simulation
  // produces; without an error it would never scale.
  const std::string pods_hpa =
      "  - apiVersion: autoscaling/v2\n    kind: HorizontalPodAutoscaler\n"
      "    metadata: {name: a}\n"
      "    spec: {scaleTargetRef: {kind: Deployment, name: model-a}, maxReplicas: 4, metrics: "
      "[{type: Pods, pods: {metric: {name: gpu_utilization}, target: {type: AverageValue, "
      "averageValue: \"60\"}}}]}\n";
  const std::string so =
      "  - apiVersion: keda.sh/v1alpha1\n    kind: ScaledObject\n    metadata: {name: so}\n"
      "    spec: {scaleTargetRef: {name: model-b}, triggers: [{type: prometheus, metadata: "
      "{serverAddress: \"http://prometheus:9090\", threshold: \"5\", query: "
      "\"sum(vllm_num_requests_waiting{pod=~'model-b.*'})\"}}]}\n";
  CHECK(AutoscalerScenario(pods_hpa).short_error() ==
        "9:124: metric.name: metric \"gpu_utilization\" is never produced in a simulation, so the "
        "autoscaler could not act on it; fleetsim produces DCGM_FI_DEV_GPU_UTIL, "
        "DCGM_FI_PROF_GR_ENGINE_ACTIVE, vllm:num_requests_running, vllm:num_requests_waiting, "
        "vllm:request_success_total, "
        "vllm:gpu_cache_usage_perc, vllm:kv_cache_usage_perc, "
        "fleetsim_service_requests_total, fleetsim_service_queue_length, or name your "
        "exporter's metric with `metrics: {aliases: {gpu_utilization: DCGM_FI_DEV_GPU_UTIL}}`");
  CHECK_THAT(AutoscalerScenario(so).short_error(),
             Catch::StartsWith("9:") &&
                 Catch::Contains("metadata.query: metric \"vllm_num_requests_waiting\" is never "
                                 "produced in a simulation") &&
                 Catch::Contains("`metrics: {aliases: {vllm_num_requests_waiting: "
                                 "vllm:num_requests_waiting}}`") &&
                 Catch::EndsWith("did you mean \"vllm:num_requests_waiting\"?"));
  // vLLM's KV-cache gauge, under either of its names, is one the run produces.
  for (std::string_view kv : {"vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"}) {
    std::string hpa = pods_hpa;
    hpa.replace(hpa.find("gpu_utilization"), std::string_view("gpu_utilization").size(),
                "\"" + std::string(kv) + "\"");
    CHECK(AutoscalerScenario(hpa).error() == "no error");
  }
  const std::string aliases =
      "metrics:\n  aliases:\n    gpu_utilization: DCGM_FI_DEV_GPU_UTIL\n"
      "    vllm_num_requests_waiting: \"vllm:num_requests_waiting\"\n";
  ScenarioConfig cfg = load_scenario(AutoscalerScenario(pods_hpa + so + aliases).file);
  CHECK(cfg.metric_aliases ==
        MetricAliases{{"gpu_utilization", "DCGM_FI_DEV_GPU_UTIL"},
                      {"vllm_num_requests_waiting", "vllm:num_requests_waiting"}});
  // An alias names a metric fleetsim does not produce, under a valid name, for one that it does.
  CHECK(AutoscalerScenario("metrics: {aliases: {gpu_utilization: DCGM_FI_DEV_GPU_UTILS}}\n")
            .short_error() ==
        "6:38: metrics.aliases.gpu_utilization: \"DCGM_FI_DEV_GPU_UTILS\" is not a metric fleetsim "
        "produces; expected one of DCGM_FI_DEV_GPU_UTIL, DCGM_FI_PROF_GR_ENGINE_ACTIVE, "
        "vllm:num_requests_running, "
        "vllm:num_requests_waiting, vllm:request_success_total, vllm:gpu_cache_usage_perc, "
        "vllm:kv_cache_usage_perc, fleetsim_service_requests_total, "
        "fleetsim_service_queue_length; did you mean \"DCGM_FI_DEV_GPU_UTIL\"?");
  CHECK(AutoscalerScenario("metrics: {aliases: {DCGM_FI_DEV_GPU_UTIL: DCGM_FI_DEV_GPU_UTIL}}\n")
            .short_error() ==
        "6:21: metrics.aliases.DCGM_FI_DEV_GPU_UTIL: DCGM_FI_DEV_GPU_UTIL is a metric fleetsim "
        "produces itself");
  CHECK(
      AutoscalerScenario("metrics: {aliases: {gpu-util: DCGM_FI_DEV_GPU_UTIL}}\n").short_error() ==
      "6:21: metrics.aliases.gpu-util: \"gpu-util\" is not a Prometheus metric name");
  CHECK(
      AutoscalerScenario("metrics: {aliasses: {gpu_util: DCGM_FI_DEV_GPU_UTIL}}\n").short_error() ==
      "6:11: metrics.aliasses: unknown key; expected one of aliases; did you mean \"aliases\"?");
}

TEST_CASE("HPAs and ScaledObjects bind to Deployments of their namespace, one each", "[scenario]") {
  {
    AutoscalerScenario s(hpa("a", "{apiVersion: apps/v1, kind: Deployment, name: model-a}") +
                         hpa("b", "{kind: Deployment, name: model-b}") +
                         hpa("s", "{kind: Deployment, name: shared}", "team-1") +
                         scaled_object("c", "{name: model-c}") +
                         scaled_object("d",
                                       "{apiVersion: apps/v1, kind: Deployment, "
                                       "name: model-d}"));
    ScenarioConfig cfg = load_scenario(s.file);
    CHECK(cfg.hpas.size() == 3);
    CHECK(cfg.scaled_objects.size() == 2);
    REQUIRE(cfg.warnings.size() == 1);  // not "does not scale replicas in `fleetsim run` yet"
    CHECK(cfg.warnings[0].field == "NodePool");
  }
  CHECK(AutoscalerScenario(hpa("a", "{kind: Deployment, name: modle-a}")).short_error() ==
        "8:22: spec.scaleTargetRef.name: no Deployment named \"modle-a\" in namespace default in "
        "the scenario's manifests; did you mean \"model-a\"?");
  CHECK(AutoscalerScenario(hpa("a", "{kind: Deployment, name: shared}")).short_error() ==
        "8:22: spec.scaleTargetRef.name: no Deployment named \"shared\" in namespace default in "
        "the scenario's manifests");
  CHECK(AutoscalerScenario(hpa("a", "{kind: Deployment, name: model-a}", "team-1")).short_error() ==
        "8:22: spec.scaleTargetRef.name: no Deployment named \"model-a\" in namespace team-1 in "
        "the scenario's manifests");
  CHECK(AutoscalerScenario(hpa("a", "{kind: Deployment, name: not-a-deployment}")).short_error() ==
        "8:22: spec.scaleTargetRef.name: no Deployment named \"not-a-deployment\" in namespace "
        "default in the scenario's manifests");
  CHECK(AutoscalerScenario(scaled_object("so", "{name: model-z}")).short_error() ==
        "8:22: spec.scaleTargetRef.name: no Deployment named \"model-z\" in namespace default in "
        "the scenario's manifests; did you mean \"model-a\"?");
  CHECK(AutoscalerScenario(hpa("a", "{apiVersion: apps/v1, kind: StatefulSet, name: model-a}"))
            .short_error() ==
        "8:22: spec.scaleTargetRef.kind: HorizontalPodAutoscaler \"a\" scales a StatefulSet; "
        "fleetsim scales only Deployments");
  CHECK(
      AutoscalerScenario(scaled_object("so", "{kind: StatefulSet, name: model-a}")).short_error() ==
      "8:22: spec.scaleTargetRef.kind: ScaledObject \"so\" scales a StatefulSet; fleetsim "
      "scales only Deployments");
  CHECK(AutoscalerScenario(hpa("a",
                               "{apiVersion: extensions/v1beta1, kind: Deployment, "
                               "name: model-a}"))
            .short_error() ==
        "8:22: spec.scaleTargetRef.apiVersion: apiVersion \"extensions/v1beta1\" is not "
        "supported for a Deployment; use apps/v1");
  {
    AutoscalerScenario s(hpa("a", "{kind: Deployment, name: model-a}") +
                         hpa("b", "{kind: Deployment, name: model-a}"));
    CHECK(s.error() == s.at(12, 22) +
                           ": spec.scaleTargetRef.name: Deployment \"model-a\" in namespace "
                           "default already has an autoscaler (HorizontalPodAutoscaler \"a\" at " +
                           s.at(8, 22) + "); a Deployment takes one");
  }
  {
    // KEDA refuses a ScaledObject whose Deployment an HPA already scales, wherever it is written.
    AutoscalerScenario s(scaled_object("so", "{name: model-a}") +
                         hpa("a", "{kind: Deployment, name: model-a}"));
    CHECK(s.error() == s.at(8, 22) +
                           ": spec.scaleTargetRef.name: Deployment \"model-a\" in namespace "
                           "default already has an autoscaler (HorizontalPodAutoscaler \"a\" at " +
                           s.at(12, 22) + "); a Deployment takes one");
  }
  {
    AutoscalerScenario s(scaled_object("x", "{name: model-b}") +
                         scaled_object("y", "{name: model-b}"));
    CHECK(s.error() == s.at(12, 22) +
                           ": spec.scaleTargetRef.name: Deployment \"model-b\" in namespace "
                           "default already has an autoscaler (ScaledObject \"x\" at " +
                           s.at(8, 22) + "); a Deployment takes one");
  }
}

TEST_CASE("events cannot apply autoscalers", "[scenario]") {
  AutoscalerScenario s(
      "events:\n  - at: 1h\n    apply:\n      - apiVersion: autoscaling/v2\n"
      "        kind: HorizontalPodAutoscaler\n        metadata: {name: a}\n"
      "        spec: {scaleTargetRef: {kind: Deployment, name: model-a}, maxReplicas: 4}\n");
  CHECK(s.short_error() ==
        "11:26: an event cannot apply a HorizontalPodAutoscaler yet; put it in manifests");
}

TEST_CASE("a scripted apply carries EC2NodeClasses, kinds it cannot change are located errors",
          "[scenario]") {
  const std::string pool =
      "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\nspec:\n  template:\n"
      "    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: "
      "next}\n      requirements: []\n";
  const std::string node_class =
      "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: next}\nspec:\n"
      "  amiSelectorTerms: [{alias: al2023@v20250101}]\n";
  {
    ScratchScenario s("apply-class", "events:\n  - {at: 1h, apply: next.yaml}\n");
    s.dir.write("next.yaml", node_class + "---\n" + pool);
    const ScenarioConfig cfg = load_scenario(s.file);
    const auto& apply = std::get<ApplyManifestsEvent>(cfg.events.at(0).action);
    REQUIRE(apply.node_classes.size() == 1);
    CHECK(apply.node_classes[0].name == "next");
    CHECK(apply.node_classes[0].spec_hash != 0);
    REQUIRE(apply.nodepools.size() == 1);  // its nodeClassRef names the applied class
  }
  {
    ScratchScenario s("apply-hpa", "events:\n  - {at: 1h, apply: hpa.yaml}\n");
    s.dir.write("hpa.yaml",
                "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
                "value: 1000\n");
    CHECK(s.error().ends_with("an event cannot apply a PriorityClass yet; put it in manifests"));
  }
}

TEST_CASE("an EC2NodeClass's spec hash ignores key order and sees every field", "[scenario]") {
  auto hash_of = [](std::string_view spec) {
    ScratchScenario s("hash", "events:\n  - {at: 1h, apply: c.yaml}\n");
    s.dir.write("c.yaml",
                "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: "
                "{name: c}\nspec:\n" +
                    std::string(spec));
    const ScenarioConfig cfg = load_scenario(s.file);
    return std::get<ApplyManifestsEvent>(cfg.events.at(0).action).node_classes.at(0).spec_hash;
  };
  const auto a = hash_of("  role: r\n  amiSelectorTerms: [{alias: al2023@v1}]\n");
  CHECK(hash_of("  amiSelectorTerms: [{alias: al2023@v1}]\n  role: r\n") == a);
  CHECK(hash_of("  role: r\n  amiSelectorTerms: [{alias: al2023@v2}]\n") != a);
}

TEST_CASE("karpenter feature gates and the Balanced policy are read", "[scenario]") {
  ScratchScenario s("gates", "karpenter: {feature_gates: {spot_to_spot_consolidation: true}}\n");
  CHECK(load_scenario(s.file).karpenter.spot_to_spot_consolidation);
  CHECK_FALSE(load_scenario(s.file).karpenter.node_overlay);  // off by default, as upstream
  ScratchScenario overlay("gates-overlay", "karpenter: {feature_gates: {node_overlay: true}}\n");
  CHECK(load_scenario(overlay.file).karpenter.node_overlay);
  ScratchScenario bad("gates-bad", "karpenter: {feature_gates: {spot_to_spot: true}}\n");
  CHECK(bad.error() == bad.at(4, 29) +
                           ": karpenter.feature_gates.spot_to_spot: unknown key; expected "
                           "one of capacity_buffer, node_overlay, spot_to_spot_consolidation");
  // Karpenter's CapacityBuffer gate is off by default (FEATURE_GATES CapacityBuffer=false).
  CHECK_FALSE(load_scenario(s.file).karpenter.capacity_buffer);
}

TEST_CASE("karpenter.version: v1.0 to v1.14, and what the release's API accepts", "[scenario]") {
  {
    ScratchScenario s("version-default", "");
    CHECK(load_scenario(s.file).karpenter.version.minor == 14);
  }
  for (const char* text : {"1.10", "v1.10", "v1.10.2"}) {
    ScratchScenario s("version", std::string("karpenter: {version: \"") + text + "\"}\n");
    CHECK(load_scenario(s.file).karpenter.version.minor == 10);
  }
  for (const char* text : {"1.15", "0.37", "v2.0", "1.x", "1.-1"}) {
    ScratchScenario bad("version-bad", std::string("karpenter: {version: \"") + text + "\"}\n");
    CHECK(bad.error() == bad.at(4, 22) + ": karpenter.version: \"" + text +
                             "\" is not a modelled Karpenter release: give v1.0 to v1.14");
  }
  // Karpenter's CRD has no Balanced before v1.14: the API server refuses the NodePool.
  const std::string pool =
      "manifests:\n  - apiVersion: karpenter.sh/v1\n    kind: NodePool\n    metadata: {name: p}\n"
      "    spec:\n      template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: "
      "EC2NodeClass, name: default}, requirements: []}}\n"
      "      disruption: {consolidationPolicy: Balanced}\n";
  ScratchScenario old("version-balanced", "karpenter: {version: \"1.13\"}\n" + pool);
  CHECK(old.error() == old.at(11, 41) +
                           ": manifests[0].spec.disruption.consolidationPolicy: "
                           "consolidationPolicy Balanced needs Karpenter v1.14 or later "
                           "(karpenter.version is v1.13)");
  // Before v1.12 karpenter.sh/do-not-disrupt honours only "true": a duration is ignored, warned.
  const std::string pod =
      "manifests:\n  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: p\n"
      "      annotations: {karpenter.sh/do-not-disrupt: 10m}\n"
      "    spec: {containers: [{name: c, image: i}]}\n";
  for (const char* version : {"1.11", "1.12"}) {
    ScratchScenario s("version-dnd",
                      "karpenter: {version: \"" + std::string(version) + "\"}\n" + pod);
    const ScenarioConfig cfg = load_scenario(s.file);
    REQUIRE(cfg.workloads.size() == 1);
    const bool ignored = std::string(version) == "1.11";
    CHECK(cfg.workloads[0].pod.spec.do_not_disrupt.has_value() == !ignored);
    const bool warned = std::any_of(cfg.warnings.begin(), cfg.warnings.end(), [](const Warning& w) {
      return w.message ==
             "Karpenter v1.11 honours only \"true\" (a duration needs v1.12); \"10m\" is "
             "ignored";
    });
    CHECK(warned == ignored);
  }
}

TEST_CASE("scripted scale and Deployment updates are resolved, a re-applied Job is an error",
          "[scenario]") {
  const std::string manifests = (test::fixtures() / "manifests").string();
  const std::string deployment =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 4\n"
      "  selector: {matchLabels: {app: web}}\n  strategy:\n    rollingUpdate: {maxSurge: 1, "
      "maxUnavailable: 0}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n"
      "      containers: [{name: c, image: web:2, resources: {requests: {cpu: 100m}}}]\n";
  {
    ScratchScenario s("scale",
                      "manifests: [api.yaml]\nevents:\n"
                      "  - {at: 2h, apply: web.yaml}\n"
                      "  - {at: 1h, scale: {deployment: default/api, replicas: 3}}\n"
                      "  - {at: 3h, apply: web.yaml}\n");
    std::string api = deployment;
    api.replace(api.find("name: web"), 9, "name: api");
    s.dir.write("api.yaml", api);
    s.dir.write("web.yaml", deployment);
    const ScenarioConfig cfg = load_scenario(s.file);
    REQUIRE(cfg.events.size() == 3);
    const auto& scale = std::get<ScaleDeploymentEvent>(cfg.events[0].action);
    CHECK(scale.namespace_name == "default");
    CHECK(scale.name == "api");
    CHECK(scale.replicas == 3);
    const auto& created = std::get<ApplyManifestsEvent>(cfg.events[1].action);
    REQUIRE(created.workloads.size() == 1);
    CHECK(created.workloads[0].strategy ==
          DeploymentStrategy{.max_surge = IntOrPercent{1}, .max_unavailable = IntOrPercent{0}});
    CHECK(created.workloads[0].replicas_set);
    const auto& updated = std::get<ApplyManifestsEvent>(cfg.events[2].action);
    CHECK(updated.workloads.empty());
    REQUIRE(updated.updates.size() == 1);  // the second apply of web updates it
  }
  {
    ScratchScenario s("scale-missing",
                      "events:\n  - {at: 1h, scale: {deployment: webb, replicas: 3}}\n");
    CHECK(s.error() == s.at(5, 34) +
                           ": events[0].scale.deployment: no Deployment named \"webb\" exists "
                           "by then");
  }
  {
    ScratchScenario s("job-again", "manifests: [" + manifests +
                                       "/train-job.yaml]\nevents:\n  - {at: 1h, apply: " +
                                       manifests + "/train-job.yaml}\n");
    CHECK(s.error().find("exists; Jobs are immutable: give the new one another name") !=
          std::string::npos);
  }
  {
    ScratchScenario s("both-zero", "events:\n  - {at: 1h, apply: web.yaml}\n");
    std::string bad = deployment;
    bad.replace(bad.find("maxSurge: 1"), 11, "maxSurge: 0");
    s.dir.write("web.yaml", bad);
    CHECK(s.error().ends_with(
        "spec.strategy.rollingUpdate: maxSurge and maxUnavailable cannot both be zero"));
  }
}

TEST_CASE(
    "a dangling symlink in a manifests directory and a trace that is a directory are "
    "errors that say so (issue 13, class 7)",
    "[scenario]") {
  {
    ScratchScenario s("dangling", "manifests: [dir]\n");
    std::filesystem::create_directories(s.dir.path() / "dir");
    std::filesystem::create_symlink(s.dir.path() / "nowhere.yaml",
                                    s.dir.path() / "dir" / "broken.yaml");
    CHECK(s.error() == s.at(4, 13) + ": manifests[0]: " +
                           (s.dir.path() / "dir" / "broken.yaml").string() + ": dangling symlink");
  }
  {
    ScratchScenario s("trace-dir", "jobs:\n  - {trace: traces, template: job.yaml}\n");
    std::filesystem::create_directories(s.dir.path() / "traces");
    CHECK(s.error() == s.at(5, 13) + ": jobs[0].trace: is a directory, not a file: " +
                           (s.dir.path() / "traces").string());
  }
}

TEST_CASE("a scenario name must be bounded, valid UTF-8 (issue 13, class 8)", "[scenario]") {
  test::TempDir dir("badname");
  auto file = dir.write("s.yaml", "name: bad\xff\nduration: 1h\n");  // a raw 0xff byte
  CHECK(load_error(file).ends_with(
      "s.yaml:1:7: name: the name must be valid UTF-8 of at most 253 bytes without control "
      "characters"));
  auto long_name = dir.write("l.yaml", "name: " + std::string(254, 'x') + "\nduration: 1h\n");
  CHECK(load_error(long_name).ends_with("at most 253 bytes without control characters"));
}

TEST_CASE("gates: bounds for fleetsim check, each with min, max or both", "[scenario]") {
  auto error = [](std::string_view body) {
    ScratchScenario s("gates", body);
    std::string e = s.error();
    return e.substr(s.file.string().size() + 1);
  };
  ScratchScenario ok("gates-ok",
                     "gates: {sla.miss_ratio: {max: 0.01}, gpu.utilization: {min: 0.5}}\n");
  ScenarioConfig cfg = load_scenario(ok.file);
  REQUIRE(cfg.gates.size() == 2);
  CHECK(cfg.gates[0].metric == "sla.miss_ratio");
  CHECK(cfg.gates[0].max == 0.01);
  CHECK_FALSE(cfg.gates[0].min);
  CHECK(cfg.gates[1].min == 0.5);
  CHECK(error("gates: {sla.miss_ratio: {}}\n") ==
        "4:25: gates.sla.miss_ratio: a gate needs min, max or both");
  CHECK(error("gates: {sla.miss_ratio: {min: 2, max: 1}}\n") ==
        "4:25: gates.sla.miss_ratio: min 2 is above max 1");
  CHECK(error("gates: {sla.miss_ratio: {mx: 1}}\n") ==
        "4:26: gates.sla.miss_ratio.mx: unknown key; expected one of min, max; did you mean "
        "\"max\"?");
}

TEST_CASE("spot: the interruption model, its defaults and its bad input", "[scenario]") {
  {
    ScratchScenario s("spot-none", "");
    CHECK_FALSE(load_scenario(s.file).spot_market);
  }
  {
    ScratchScenario s("spot-full",
                      "spot:\n"
                      "  interruption_rate: band_max\n"
                      "  families: {g5: {per_month: 0.3}, p4d: {band_quantile: 0.9}}\n"
                      "  scale: 2\n"
                      "  waves: {share: 0.25, spread: 1m}\n"
                      "  rebalance: {share: 0, lead: 5m}\n");
    const ScenarioConfig cfg = load_scenario(s.file);
    REQUIRE(cfg.spot_market);
    const SpotMarketSettings& spot = *cfg.spot_market;
    CHECK(*spot.rate == SpotRate{.kind = SpotRate::Kind::BandQuantile, .value = 1.0});
    CHECK(spot.by_family.at("g5") == SpotRate{.kind = SpotRate::Kind::PerMonth, .value = 0.3});
    CHECK(spot.by_family.at("p4d") == SpotRate{.kind = SpotRate::Kind::BandQuantile, .value = 0.9});
    CHECK(spot.scale == 2);
    CHECK(spot.wave_share == 0.25);
    CHECK(spot.wave_spread == minutes(1));
    CHECK(spot.rebalance_share == 0);
    CHECK(spot.rebalance_lead == minutes(5));
  }
  {
    ScratchScenario s("spot-defaults", "spot: {interruption_rate: band_midpoint}\n");
    const SpotMarketSettings spot = *load_scenario(s.file).spot_market;
    CHECK(*spot.rate == SpotRate{.kind = SpotRate::Kind::BandQuantile, .value = 0.5});
    CHECK(spot.wave_share == 0.5);
    CHECK(spot.wave_spread == minutes(3));
    CHECK(spot.rebalance_share == 0.5);
    CHECK(spot.rebalance_lead == minutes(10));
  }
  auto error = [](std::string_view body) {
    ScratchScenario s("spot-err", body);
    std::string e = s.error();
    std::string prefix = s.file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error("spot: {interruption_rate: band_mid}\n") ==
        "4:27: spot.interruption_rate: unknown interruption rate \"band_mid\"; expected "
        "band_midpoint, band_max, {band_quantile: Q} or {per_month: SHARE}; did you mean "
        "\"band_max\"?");
  CHECK(error("spot: {interruption_rate: {per_month: -0.1}}\n") ==
        "4:39: spot.interruption_rate.per_month: the monthly interruption share is from 0 to "
        "0.99");
  CHECK(error("spot: {interruption_rate: {per_month: 0.1, band_quantile: 0.5}}\n") ==
        "4:27: spot.interruption_rate: give exactly one of band_quantile or per_month");
  CHECK(error("spot: {interruption_rate: band_max, families: {g6: band_max}}\n") ==
        "4:48: spot.families.g6: instance family \"g6\" is not in the catalog; did you mean "
        "\"g5\"?");
  CHECK(error("spot: {interruption_rate: band_max, waves: {share: 0}}\n") ==
        "4:52: spot.waves.share: a wave takes a share from 0.01 to 1");
  // Issue 25, item 8: waves at the hazard ÷ 1e-300 would never let the run end.
  CHECK(error("spot: {interruption_rate: band_max, waves: {share: 1e-300}}\n") ==
        "4:52: spot.waves.share: a wave takes a share from 0.01 to 1");
  CHECK(error("spot: {interruption_rate: band_max, scale: -1}\n") ==
        "4:44: spot.scale: the scale is from 0 to 100");
  CHECK(error("spot: {families: {}}\n") ==
        "4:7: spot: give at least one of interruption_rate, availability, prices or capacity");
}

TEST_CASE("phase offsets: seeded by default and zero or fixed per controller", "[scenario]") {
  {
    ScratchScenario s("phase-default", "");
    const ScenarioConfig cfg = load_scenario(s.file);
    CHECK(cfg.phase_offsets.seeded);
    for (const auto& fixed : cfg.phase_offsets.fixed) CHECK(!fixed.has_value());
  }
  {
    ScratchScenario s("phase-zero", "phase_offsets: zero\n");
    CHECK(!load_scenario(s.file).phase_offsets.seeded);
  }
  {
    ScratchScenario s("phase-seeded", "phase_offsets: seeded\n");
    CHECK(load_scenario(s.file).phase_offsets.seeded);
  }
  {
    ScratchScenario s("phase-fixed",
                      "phase_offsets: {hpa: 2s, scrape: 7s, karpenter_disruption: 0s, "
                      "cluster_autoscaler: 9999ms, auto_scaling_groups: 5s}\n");
    const PhaseOffsetSettings p = load_scenario(s.file).phase_offsets;
    CHECK(p.seeded);  // the controllers not named still draw theirs
    CHECK(p.fixed_for(PeriodicController::Hpa) == seconds(2));
    CHECK(p.fixed_for(PeriodicController::Scrape) == seconds(7));
    CHECK(p.fixed_for(PeriodicController::KarpenterDisruption) == seconds(0));
    CHECK(p.fixed_for(PeriodicController::ClusterAutoscaler) == millis(9999));
    CHECK(p.fixed_for(PeriodicController::AutoScalingGroups) == seconds(5));
    CHECK(!p.fixed_for(PeriodicController::Keda).has_value());
  }
  {
    // A ScaledObject polls every 30 s unless it says otherwise.
    AutoscalerScenario s(scaled_object("so", "{name: model-a}") + "phase_offsets: {keda: 29s}\n");
    CHECK(load_scenario(s.file).phase_offsets.fixed_for(PeriodicController::Keda) == seconds(29));
  }
  auto error = [](std::string_view body) {
    ScratchScenario s("phase-err", body);
    std::string e = s.error();
    std::string prefix = s.file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error("phase_offsets: lockstep\n") ==
        "4:16: phase_offsets: unknown value \"lockstep\"; expected seeded, zero or a map of "
        "offsets by controller (hpa, keda, scrape, cluster_autoscaler, karpenter_disruption, "
        "auto_scaling_groups)");
  CHECK(error("phase_offsets: {hpa: 15s}\n") ==
        "4:22: phase_offsets.hpa: the offset (15s) must be shorter than the period (15s)");
  CHECK(error("scrape_interval: 20s\nphase_offsets: {scrape: 25s}\n") ==
        "5:25: phase_offsets.scrape: the offset (25s) must be shorter than the period (20s)");
  CHECK(error("cluster_autoscaler: {scan_interval: 30s}\nphase_offsets: {cluster_autoscaler: "
              "30s}\n") ==
        "5:37: phase_offsets.cluster_autoscaler: the offset (30s) must be shorter than the "
        "period (30s)");
  CHECK(error("phase_offsets: {karpenter_disruption: -1s}\n") ==
        "4:39: phase_offsets.karpenter_disruption: invalid duration \"-1s\"; use Go forms such "
        "as 90s, 5m or 1h30m");
  CHECK(error("phase_offsets: {hap: 1s}\n") ==
        "4:17: phase_offsets.hap: unknown key; expected one of hpa, keda, scrape, "
        "cluster_autoscaler, karpenter_disruption, auto_scaling_groups; did you mean \"hpa\"?");
  CHECK(error("phase_offsets: {scrape: 7}\n") ==
        "4:25: phase_offsets.scrape: invalid duration \"7\"; use Go forms such as 90s, 5m or "
        "1h30m");
  {
    AutoscalerScenario s(scaled_object("so", "{name: model-a}") + "phase_offsets: {keda: 30s}\n");
    CHECK(s.short_error() ==
          "10:23: phase_offsets.keda: the offset (30s) must be shorter than the period (30s)");
  }
}

TEST_CASE("api_latency sets the API's time: the default, zero or a median and p99", "[scenario]") {
  {
    ScratchScenario s("api-default", "");
    const ApiLatency l = load_scenario(s.file).termination.api_latency;
    CHECK(l.median == millis(20));
    CHECK(l.p99 == millis(200));
  }
  {
    ScratchScenario s("api-zero", "api_latency: zero\n");
    CHECK(load_scenario(s.file).termination.api_latency.zero());
  }
  {
    ScratchScenario s("api-default-word", "api_latency: default\n");
    CHECK(load_scenario(s.file).termination.api_latency.p99 == millis(200));
  }
  {
    ScratchScenario s("api-map", "api_latency: {median: 50ms, p99: 1s}\n");
    const ApiLatency l = load_scenario(s.file).termination.api_latency;
    CHECK(l.median == millis(50));
    CHECK(l.p99 == seconds(1));
  }
  auto error = [](std::string_view body) {
    ScratchScenario s("api-err", body);
    std::string e = s.error();
    std::string prefix = s.file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error("api_latency: fast\n") ==
        "4:14: api_latency: unknown value \"fast\"; expected zero, default or {median: 20ms, "
        "p99: 200ms}");
  CHECK(error("api_latency: {median: 0s, p99: 1s}\n") ==
        "4:23: api_latency.median: must be positive (use `api_latency: zero`)");
  CHECK(error("api_latency: {median: 50ms, p99: 20ms}\n") ==
        "4:34: api_latency.p99: must be at least the median (50ms)");
  CHECK(error("api_latency: {median: 50ms, p99: 2m}\n") ==
        "4:34: api_latency.p99: must be at most 1m0s");
  CHECK(error("api_latency: {median: 50ms}\n") ==
        "4:14: api_latency.p99: required field is missing");
  CHECK(error("api_latency: {median: 50ms, p99: 1s, p50: 1s}\n") ==
        "4:38: api_latency.p50: unknown key; expected one of median, p99");
}
