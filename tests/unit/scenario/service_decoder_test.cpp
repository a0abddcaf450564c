#include "fleetsim/scenario/service_decoder.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// A scenario in a scratch directory using the fixture catalog and the services fixture's
// Deployments; `body` starts on line 5.
struct ServiceScenario {
  test::TempDir dir;
  std::filesystem::path file;
  ServiceScenario(std::string_view name, std::string_view body) : dir(name) {
    file = dir.write("scenario.yaml", "name: scratch\nduration: 6h\ncatalog: " +
                                          (test::fixtures() / "catalog/aws/us-east-1").string() +
                                          "\nmanifests: [" +
                                          (test::fixtures() / "services/models.yaml").string() +
                                          "]\n" + std::string(body));
  }
  ScenarioConfig load() const { return load_scenario(file); }
  std::string error() const {
    return test::config_error([&] { load_scenario(file); });
  }
  std::string at(int line, int col) const {
    return file.string() + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

// The error of a scenario with one service whose traffic is `traffic` (a flow mapping on line 7,
// starting at column 14) and whose extra lines are `extra`.
std::string traffic_error(std::string_view traffic, std::string_view extra = "") {
  ServiceScenario s("svc-err", "services:\n  - deployment: model-a\n    traffic: " +
                                   std::string(traffic) + "\n" + std::string(extra));
  std::string e = s.error();
  std::string prefix = s.file.string() + ":";
  return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
}

// The error of a service whose `serving:` or `slo:` lines follow a valid traffic line.
std::string service_error(std::string_view lines) {
  return traffic_error("{pattern: poisson, rps: 1}", lines);
}

}  // namespace

TEST_CASE("a constant service decodes every field", "[scenario][services]") {
  ServiceScenario s("svc-constant", R"(services:
  - deployment: model-a
    traffic:
      pattern: constant
      rps: 2.5
      first_arrival: 30s
      tokens: {input: 500, output: {median: 200, sigma: 0.8}}
    serving:
      concurrency: 8
      queue_timeout: 30s
      max_queue: 1000
      service_time:
        model: llm
        slowdown: 0.5
        rates: {prefill_tokens_per_s: 9000, time_per_output_token: 20ms}
    slo: {ttft: 500ms, e2e: 10s}
)");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.services.size() == 1);
  const ServiceConfig& svc = cfg.services[0];
  CHECK(svc.deployment == "model-a");
  CHECK(svc.where.to_string() == s.at(6, 5));
  CHECK(svc.deployment_where.to_string() == s.at(6, 17));
  const auto& c = std::get<ConstantConfig>(svc.traffic);
  CHECK(c.rps == 2.5);
  CHECK(c.first_arrival == seconds(30));
  CHECK(c.tokens.input.shape == TokenShape::Fixed);
  CHECK(c.tokens.input.median == 500);
  CHECK(c.tokens.output.shape == TokenShape::LogNormal);
  CHECK(c.tokens.output.median == 200);
  CHECK(c.tokens.output.sigma == 0.8);
  CHECK(c.where.to_string() == s.at(8, 7));
  CHECK(svc.serving.concurrency == 8);
  CHECK(svc.serving.queue_timeout == seconds(30));
  CHECK(svc.serving.max_queue == 1000);
  CHECK(std::get<LlmServiceTime>(svc.serving.service_time).slowdown_alpha == 0.5);
  REQUIRE(svc.rates);
  CHECK(svc.rates->prefill_tokens_per_s == 9000);
  CHECK(svc.rates->time_per_output_token_s == 0.02);
  REQUIRE(svc.slo);
  CHECK(svc.slo->ttft == millis(500));
  CHECK(svc.slo->e2e == seconds(10));
}

TEST_CASE("a poisson service takes the serving defaults", "[scenario][services]") {
  ServiceScenario s("svc-poisson", R"(services:
  - deployment: model-b
    traffic: {pattern: poisson, rps: 12}
)");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.services.size() == 1);
  const ServiceConfig& svc = cfg.services[0];
  const auto& p = std::get<PoissonConfig>(svc.traffic);
  CHECK(p.rps == 12);
  CHECK(p.tokens.input.median == kDefaultInputTokens);
  CHECK(p.tokens.output.median == kDefaultOutputTokens);
  CHECK_FALSE(svc.serving.queue_timeout);
  CHECK(svc.serving.max_queue == 0);
  // An LLM service without measured rates runs the engine model: vLLM, on the default model,
  // with a warning that names it.
  CHECK(std::holds_alternative<EngineServiceTime>(svc.serving.service_time));
  CHECK_FALSE(svc.rates);
  REQUIRE(svc.model);
  CHECK(svc.model->spec.name == "llama-3.1-8b");
  CHECK(svc.model->assumed);
  CHECK_FALSE(svc.model->weights);
  CHECK(svc.engine.kind == EngineKind::Vllm);
  CHECK_FALSE(svc.engine.max_num_seqs);
  CHECK_FALSE(svc.slo);
  CHECK(cfg.warmup == SimDuration{0});
  // Two warnings, ordered by file path (the scratch directory's place varies), the other one
  // the fixture's lack of a NodePool.
  REQUIRE(cfg.warnings.size() == 2);
  auto assumed = std::find_if(cfg.warnings.begin(), cfg.warnings.end(),
                              [](const auto& w) { return w.code == WarningCode::ModelAssumed; });
  REQUIRE(assumed != cfg.warnings.end());
  CHECK(assumed->message ==
        "names no model: its speed is that of llama-3.1-8b in bf16 on vLLM; name the model it "
        "serves (`fleetsim models` lists them)");
}

TEST_CASE("diurnal, bursty, surge and replay services decode exactly", "[scenario][services]") {
  ServiceScenario s("svc-patterns", R"(warmup: 10m
services:
  - deployment: model-a
    traffic: {pattern: diurnal, mean_rps: 40, peak_to_trough: 3, peak_hour: 18.5}
    serving: {service_time: {model: fixed, duration: 200ms}}
  - deployment: model-b
    traffic:
      pattern: bursty
      quiet_rps: 0
      burst_rps: 50
      mean_quiet: 10m
      mean_burst: 1m
      start_state: burst
      tokens: {input: {median: 1000, sigma: 1}, output: 64}
    serving: {service_time: {model: exponential, mean: 200ms}}
  - deployment: model-c
    traffic:
      pattern: surge
      base: {pattern: poisson, rps: 10, tokens: {input: 256}}
      factor: 3
      at: 2h
      duration: 30m
      ramp_up: 5m
      ramp_down: 4m
    serving: {service_time: {model: lognormal, median: 150ms, sigma: 0.6}}
  - deployment: team-2/shared
    traffic:
      pattern: replay
      trace: traces/requests.csv
      time_scale: 0.5
      rate_scale: 2
      offset: 1s
      start: 1m
      loop: true
      loop_period: 1h
)");
  std::filesystem::create_directories(s.dir.path() / "traces");
  std::filesystem::copy_file(test::fixtures() / "services/requests.csv",
                             s.dir.path() / "traces/requests.csv");
  ScenarioConfig cfg = s.load();
  CHECK(cfg.warmup == minutes(10));
  REQUIRE(cfg.services.size() == 4);

  const auto& d = std::get<DiurnalConfig>(cfg.services[0].traffic);
  CHECK(d.mean_rps == 40);
  CHECK(d.peak_to_trough == 3);
  CHECK(d.peak_hour == 18.5);
  CHECK(std::get<FixedServiceTime>(cfg.services[0].serving.service_time).duration == millis(200));

  const auto& b = std::get<MmppConfig>(cfg.services[1].traffic);
  CHECK(b.quiet_rps == 0);
  CHECK(b.burst_rps == 50);
  CHECK(b.mean_quiet == minutes(10));
  CHECK(b.mean_burst == minutes(1));
  CHECK(b.start == MmppStart::Burst);
  CHECK(b.tokens.input.shape == TokenShape::LogNormal);
  CHECK(b.tokens.input.median == 1000);
  CHECK(b.tokens.input.sigma == 1);
  CHECK(b.tokens.output.shape == TokenShape::Fixed);
  CHECK(b.tokens.output.median == 64);
  CHECK(std::get<ExponentialServiceTime>(cfg.services[1].serving.service_time).mean == millis(200));

  const auto& u = std::get<SurgeConfig>(cfg.services[2].traffic);
  const auto& base = std::get<PoissonConfig>(u.base);
  CHECK(base.rps == 10);
  CHECK(base.tokens.input.median == 256);
  CHECK(base.tokens.output.median == kDefaultOutputTokens);
  CHECK(base.where.to_string() == s.at(23, 13));
  CHECK(u.factor == 3);
  CHECK(u.start == hours(2));
  CHECK(u.duration == minutes(30));
  CHECK(u.ramp_up == minutes(5));
  CHECK(u.ramp_down == minutes(4));
  const auto& ln = std::get<LogNormalServiceTime>(cfg.services[2].serving.service_time);
  CHECK(ln.median == millis(150));
  CHECK(ln.sigma == 0.6);

  CHECK(cfg.services[3].deployment == "team-2/shared");
  const auto& r = std::get<ReplayConfig>(cfg.services[3].traffic);
  CHECK(r.trace ==
        std::filesystem::absolute(s.dir.path() / "traces/requests.csv").lexically_normal());
  CHECK(r.time_scale == 0.5);
  CHECK(r.rate_scale == 2);
  CHECK(r.trace_offset == seconds(1));
  CHECK(r.start == minutes(1));
  CHECK(r.loop);
  CHECK(r.loop_period == hours(1));
}

TEST_CASE("services load without warnings", "[scenario][services]") {
  ServiceScenario s("svc-warn", R"(services:
  - deployment: model-a
    traffic: {pattern: poisson, rps: 1}
    model: {name: llama-3.1-8b}
  - deployment: model-b
    traffic: {pattern: poisson, rps: 1}
    model: {name: mistral-7b, dtype: fp8}
)");
  ScenarioConfig cfg = s.load();
  CHECK(cfg.services.size() == 2);
  REQUIRE(cfg.warnings.size() == 1);  // the fixture has no NodePool, which is said once
  CHECK(cfg.warnings[0].message ==
        "the scenario has no NodePool, so the pods of its 9 workloads stay Pending");
}

TEST_CASE("a service's startup: image size and model load time", "[scenario][services]") {
  ServiceScenario s("svc-startup", R"(services:
  - deployment: model-a
    traffic: {pattern: poisson, rps: 1}
    startup: {image_size: 15Gi, model_load: 1m30s}
  - deployment: model-b
    traffic: {pattern: poisson, rps: 1}
    startup:
      image_size: 8G
  - deployment: model-c
    traffic: {pattern: poisson, rps: 1}
    startup: {model_load: 0s}
  - deployment: model-d
    traffic: {pattern: poisson, rps: 1}
)");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.services.size() == 4);
  CHECK(cfg.services[0].startup.image_bytes == 15LL * 1024 * 1024 * 1024);
  CHECK(cfg.services[0].startup.model_load == seconds(90));
  CHECK(cfg.services[1].startup.image_bytes == 8'000'000'000);
  CHECK(cfg.services[1].startup.model_load == SimDuration{0});
  CHECK(cfg.services[2].startup.image_bytes == 0);
  CHECK(cfg.services[2].startup.model_load == SimDuration{0});
  CHECK(cfg.services[3].startup.image_bytes == 0);  // no startup: no pull, no load time
  CHECK(cfg.services[3].startup.model_load == SimDuration{0});
}

TEST_CASE("startup errors are reported at the field", "[scenario][services]") {
  CHECK(service_error("    startup: {image_size: -1Gi}\n") ==
        "8:27: services[0].startup.image_size: quantity \"-1Gi\" must not be negative");
  CHECK(service_error("    startup: {image_size: 15 GB}\n") ==
        "8:27: services[0].startup.image_size: invalid quantity \"15 GB\"; use Kubernetes forms "
        "such as 500m, 2 or 16Gi");
  CHECK(service_error("    startup: {image_size: 2Ti}\n") ==
        "8:27: services[0].startup.image_size: 2Ti is larger than any container image (at most "
        "1Ti)");
  CHECK(service_error("    startup: {model_load: -5s}\n") ==
        "8:27: services[0].startup.model_load: invalid duration \"-5s\"; use Go forms such as "
        "90s, 5m or 1h30m");
  CHECK(service_error("    startup: {image_size: 1Gi, model_laod: 1m}\n") ==
        "8:32: services[0].startup.model_laod: unknown key; expected one of image_size, "
        "model_load; did you mean \"model_load\"?");
  CHECK(service_error("    startup: 15Gi\n") ==
        "8:14: services[0].startup: expected a mapping, got a scalar (\"15Gi\")");
  CHECK(service_error("    statup: {model_load: 1m}\n") ==
        "8:5: services[0].statup: unknown key; expected one of deployment, traffic, serving, "
        "slo, startup, model, engine, metrics, simulation; did you mean \"startup\"?");
}

TEST_CASE("a service's metrics: the CPU share of an idle pod and the memory share",
          "[scenario][services]") {
  ServiceScenario s("svc-metrics", R"(services:
  - deployment: model-a
    traffic: {pattern: poisson, rps: 1}
    metrics: {idle_cpu_share: 0.25}
  - deployment: model-b
    traffic: {pattern: poisson, rps: 1}
    metrics:
      idle_cpu_share: 0
      memory_share: 0.75
  - deployment: model-c
    traffic: {pattern: poisson, rps: 1}
)");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.services.size() == 3);
  CHECK(cfg.services[0].metrics.idle_cpu_share == 0.25);
  CHECK(cfg.services[0].metrics.memory_share == 1);  // the default
  CHECK(cfg.services[1].metrics.idle_cpu_share == 0);
  CHECK(cfg.services[1].metrics.memory_share == 0.75);
  CHECK(cfg.services[2].metrics.idle_cpu_share == 0.1);  // no metrics: the defaults
  CHECK(cfg.services[2].metrics.memory_share == 1);
}

TEST_CASE("metrics errors are reported at the field", "[scenario][services]") {
  CHECK(service_error("    metrics: {idle_cpu_share: 1.5}\n") ==
        "8:31: services[0].metrics.idle_cpu_share: must be between 0 and 1, got 1.5");
  CHECK(service_error("    metrics: {idle_cpu_share: -0.1}\n") ==
        "8:31: services[0].metrics.idle_cpu_share: must be between 0 and 1, got -0.1");
  CHECK(service_error("    metrics: {memory_share: 2}\n") ==
        "8:29: services[0].metrics.memory_share: must be between 0 and 1, got 2");
  CHECK(service_error("    metrics: {idle_cpu_share: 10%}\n") ==
        "8:31: services[0].metrics.idle_cpu_share: expected a finite number, got \"10%\"");
  CHECK(service_error("    metrics: {idel_cpu_share: 0.2}\n") ==
        "8:15: services[0].metrics.idel_cpu_share: unknown key; expected one of idle_cpu_share, "
        "memory_share; did you mean \"idle_cpu_share\"?");
  CHECK(service_error("    metrics: 0.2\n") ==
        "8:14: services[0].metrics: expected a mapping, got a scalar (\"0.2\")");
}

TEST_CASE("a service must name one Deployment of the manifests", "[scenario][services]") {
  auto error = [](std::string_view deployment, std::string_view second = "") {
    std::string body = "services:\n  - deployment: " + std::string(deployment) +
                       "\n    traffic: {pattern: poisson, rps: 1}\n";
    if (!second.empty()) {
      body +=
          "  - deployment: " + std::string(second) + "\n    traffic: {pattern: poisson, rps: 1}\n";
    }
    ServiceScenario s("svc-deploy", body);
    std::string e = s.error();
    std::string prefix = s.file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error("modle-a") ==
        "6:17: services[0].deployment: no Deployment named \"modle-a\" in the scenario's "
        "manifests; did you mean \"model-a\"?");
  CHECK(error("not-a-deployment") ==
        "6:17: services[0].deployment: no Deployment named \"not-a-deployment\" in the "
        "scenario's manifests");
  CHECK(error("team-3/shared") ==
        "6:17: services[0].deployment: no Deployment named \"team-3/shared\" in the scenario's "
        "manifests; did you mean \"shared\"?");
  CHECK(error("shared") ==
        "6:17: services[0].deployment: Deployments named \"shared\" exist in namespaces team-1 "
        "and team-2; write NAMESPACE/NAME");
  CHECK(error("model-a", "default/model-a") ==
        "8:17: services[1].deployment: Deployment \"default/model-a\" already has a service "
        "(services[0])");
  CHECK(error("\"\"") == "6:17: services[0].deployment: the deployment name must not be empty");
  CHECK(error("team-1/shared", "team-2/shared") == "no error");
}

TEST_CASE("warmup is a duration shorter than the scenario", "[scenario][services]") {
  CHECK(ServiceScenario("svc-warmup", "warmup: 1h30m\n").load().warmup == minutes(90));
  ServiceScenario too_long("svc-warmup-long", "warmup: 6h\n");
  CHECK(too_long.error() == too_long.at(5, 9) +
                                ": warmup: the warmup (6h0m0s) must be shorter than the duration "
                                "(6h0m0s)");
  ServiceScenario bad("svc-warmup-bad", "warmup: ten\n");
  CHECK(bad.error() ==
        bad.at(5, 9) + ": warmup: invalid duration \"ten\"; use Go forms such as 90s, 5m or 1h30m");
}

TEST_CASE("unknown keys in a service are errors with hints", "[scenario][services]") {
  CHECK(traffic_error("{pattern: poisson, rps: 1}", "    slos: {e2e: 1s}\n") ==
        "8:5: services[0].slos: unknown key; expected one of deployment, traffic, serving, slo, "
        "startup, model, engine, metrics, simulation; did you mean \"slo\"?");
  CHECK(traffic_error("{pattern: poisson, rps: 1, rsp: 2}") ==
        "7:41: services[0].traffic.rsp: unknown key; expected one of pattern, rps, tokens; did "
        "you mean \"rps\"?");
  CHECK(traffic_error("{pattern: diurnl, mean_rps: 1}") ==
        "7:24: services[0].traffic.pattern: unknown traffic pattern \"diurnl\"; expected constant, "
        "poisson, diurnal, surge, bursty, replay, batch or closed; did you mean \"diurnal\"?");
  CHECK(traffic_error("{pattern: poisson, rps: 1, tokens: {inputs: 5}}") ==
        "7:50: services[0].traffic.tokens.inputs: unknown key; expected one of input, output, "
        "file; did you mean \"input\"?");
  CHECK(service_error("    serving: {concurency: 2}\n") ==
        "8:15: services[0].serving.concurency: unknown key; expected one of concurrency, "
        "queue_timeout, max_queue, service_time; did you mean \"concurrency\"?");
  CHECK(service_error("    serving: {service_time: {model: fixed, mean: 1s}}\n") ==
        "8:44: services[0].serving.service_time.mean: unknown key; expected one of model, "
        "duration");
  CHECK(service_error("    serving: {service_time: {model: gamma}}\n") ==
        "8:37: services[0].serving.service_time.model: unknown service-time model \"gamma\"; "
        "expected llm, fixed, exponential or lognormal");
  CHECK(traffic_error("{pattern: bursty, quiet_rps: 0, burst_rps: 5, mean_quiet: 1m, "
                      "mean_burst: 1m, start_state: bursting}") ==
        "7:105: services[0].traffic.start_state: unknown start_state \"bursting\"; expected "
        "stationary, quiet or burst");
}

TEST_CASE("missing and misshapen service fields are errors", "[scenario][services]") {
  CHECK(traffic_error("{pattern: poisson}") ==
        "7:14: services[0].traffic.rps: required field is missing");
  {
    ServiceScenario s("svc-missing", "services:\n  - deployment: model-a\n");
    CHECK(s.error() == s.at(6, 5) + ": services[0].traffic: required field is missing");
  }
  CHECK(traffic_error("{pattern: poisson, rps: fast}") ==
        "7:38: services[0].traffic.rps: expected a finite number, got \"fast\"");
  CHECK(traffic_error("{pattern: poisson, rps: .inf}") ==
        "7:38: services[0].traffic.rps: expected a finite number, got \".inf\"");
  CHECK(service_error("    slo: {}\n") == "8:10: services[0].slo: an slo needs ttft, e2e or both");
  CHECK(service_error("    slo: {ttft: 0s}\n") == "8:17: services[0].slo.ttft: must be positive");
}

TEST_CASE("bad rates and shapes are errors at the field", "[scenario][services]") {
  CHECK(traffic_error("{pattern: poisson, rps: -1}") ==
        "7:38: services[0].traffic.rps: must be positive, got -1");
  CHECK(traffic_error("{pattern: constant, rps: 0}") ==
        "7:39: services[0].traffic.rps: must be positive, got 0");
  CHECK(traffic_error("{pattern: poisson, rps: 2e6}") ==
        "7:38: services[0].traffic.rps: must be at most 1000000 requests per second, got 2000000");
  CHECK(traffic_error("{pattern: diurnal, mean_rps: 10, peak_to_trough: 0.5}") ==
        "7:63: services[0].traffic.peak_to_trough: must be at least 1 (the peak is the larger "
        "rate), got 0.5");
  CHECK(traffic_error("{pattern: diurnal, mean_rps: 10, peak_hour: 24}") ==
        "7:58: services[0].traffic.peak_hour: must be in [0, 24), got 24");
  CHECK(traffic_error("{pattern: bursty, quiet_rps: -2, burst_rps: 5, mean_quiet: 1m, "
                      "mean_burst: 1m}") ==
        "7:43: services[0].traffic.quiet_rps: must not be negative, got -2");
  CHECK(traffic_error("{pattern: bursty, quiet_rps: 0, burst_rps: 5, mean_quiet: 0s, "
                      "mean_burst: 1m}") ==
        "7:72: services[0].traffic.mean_quiet: must be at least 1ms, got 0s");
  CHECK(traffic_error("{pattern: poisson, rps: 1, tokens: {input: 10.5}}") ==
        "7:57: services[0].traffic.tokens.input: a fixed count must be a whole number, got 10.5");
  CHECK(traffic_error("{pattern: poisson, rps: 1, tokens: {output: {median: 0.5, sigma: 1}}}") ==
        "7:67: services[0].traffic.tokens.output.median: a log-normal median must be at least 1 "
        "token, got 0.5");
}

TEST_CASE("surge and replay options are checked at their fields", "[scenario][services]") {
  CHECK(traffic_error("{pattern: surge, base: {pattern: poisson, rps: 1}, factor: 1000, at: 1h, "
                      "duration: 1m}") ==
        "7:73: services[0].traffic.factor: must be between 0 and 100, got 1000");
  CHECK(traffic_error("{pattern: surge, base: {pattern: poisson, rps: 1, tokens: {output: -3}}, "
                      "factor: 2, at: 1h, duration: 1m}") ==
        "7:81: services[0].traffic.base.tokens.output: must not be negative, got -3");
  CHECK(
      traffic_error("{pattern: surge, base: {pattern: surge}, factor: 2, at: 1h, duration: 1m}") ==
      "7:47: services[0].traffic.base.pattern: a surge's base cannot itself be a surge");
  CHECK(traffic_error(
            "{pattern: surge, base: {pattern: poisson, rps: 1}, factor: 2, duration: 1m}") ==
        "7:14: services[0].traffic.at: required field is missing");
  const std::string missing = traffic_error("{pattern: replay, trace: nowhere.csv}");
  CHECK(missing.starts_with("7:39: services[0].traffic.trace: file not found: /"));
  CHECK(missing.ends_with("/nowhere.csv"));
  CHECK(traffic_error("{pattern: replay, trace: " +
                      (test::fixtures() / "services/requests.csv").string() + ", time_scale: 0}")
            .ends_with("services[0].traffic.time_scale: must be between 0.001 and 1000, got 0"));
  CHECK(traffic_error("{pattern: replay, trace: " +
                      (test::fixtures() / "services/requests.csv").string() + ", offset: -1m}")
            .ends_with("services[0].traffic.offset: invalid duration \"-1m\"; use Go forms such "
                       "as 90s, 5m or 1h30m"));
  CHECK(
      traffic_error("{pattern: replay, trace: " +
                    (test::fixtures() / "services/requests.csv").string() + ", loop: maybe}")
          .ends_with("services[0].traffic.loop: expected true or false, got a scalar (\"maybe\")"));
}

TEST_CASE("serving options are bounded", "[scenario][services]") {
  CHECK(service_error("    serving: {concurrency: 0}\n") ==
        "8:28: services[0].serving.concurrency: 0 is out of range [1, 4096]");
  CHECK(service_error("    serving: {concurrency: 5000}\n") ==
        "8:28: services[0].serving.concurrency: 5000 is out of range [1, 4096]");
  CHECK(service_error("    serving: {max_queue: 0}\n") ==
        "8:26: services[0].serving.max_queue: 0 is out of range [1, 10000000]");
  CHECK(service_error("    serving: {queue_timeout: 0s}\n") ==
        "8:30: services[0].serving.queue_timeout: must be positive");
  CHECK(service_error("    serving: {service_time: {model: fixed, duration: 0s}}\n") ==
        "8:54: services[0].serving.service_time.duration: must be positive");
  CHECK(service_error("    serving: {service_time: {model: lognormal, median: 1s, sigma: -1}}\n") ==
        "8:67: services[0].serving.service_time.sigma: must not be negative, got -1");
  CHECK(service_error("    serving: {service_time: {slowdown: -0.5}}\n") ==
        "8:40: services[0].serving.service_time.slowdown: must be between 0 and 100, got -0.5");
  CHECK(service_error("    serving: {service_time: {rates: {prefill_tokens_per_s: 0, "
                      "time_per_output_token: 20ms}}}\n") ==
        "8:60: services[0].serving.service_time.rates.prefill_tokens_per_s: must be positive");
  CHECK(service_error("    serving: {service_time: {rates: {prefill_tokens_per_s: 100}}}\n") ==
        "8:37: services[0].serving.service_time.rates.time_per_output_token: required field is "
        "missing");
}

TEST_CASE("a replay's trace checks run at load, so validate and run agree (issue 13, class 9)",
          "[scenario][services]") {
  test::TempDir dir("one-instant");
  const auto trace = dir.write("instant.csv", "time_s,input_tokens,output_tokens\n0,1,1\n0,2,2\n");
  // Every row at one instant: a loop has no length of its own. The run refused it, but validate
  // passed it; now loading refuses it, naming the scenario key.
  CHECK(traffic_error("{pattern: replay, trace: " + trace.string() + ", loop: true}") ==
        "7:14: services[0].traffic.loop_period: is needed to loop " + trace.string() +
            ": its replayed rows all arrive at one instant, so it has no length of its own");
  CHECK(traffic_error("{pattern: replay, trace: " + trace.string() + ", offset: 1m}")
            .ends_with("services[0].traffic.offset: 1m0s is past the trace's last request (at 0s) "
                       "in " +
                       trace.string()));
}

TEST_CASE("diurnal traffic learns the hour of day the run starts at (issue 12, finding 5)",
          "[scenario][services]") {
  ServiceScenario s("svc-start", R"(start: 2025-03-03T06:30:00Z
services:
  - deployment: model-a
    traffic: {pattern: diurnal, mean_rps: 2, peak_hour: 14}
  - deployment: model-b
    traffic: {pattern: surge, base: {pattern: diurnal, mean_rps: 1}, factor: 2, at: 1h,
              duration: 1h}
)");
  ScenarioConfig cfg = s.load();
  CHECK(cfg.start_unix_s == 1'740'983'400);
  REQUIRE(cfg.services.size() == 2);
  CHECK(std::get<DiurnalConfig>(cfg.services[0].traffic).start_hour == 6.5);
  CHECK(std::get<DiurnalConfig>(std::get<SurgeConfig>(cfg.services[1].traffic).base).start_hour ==
        6.5);
}

TEST_CASE("batch and closed services decode every field, lengths files relative to the scenario",
          "[scenario][services]") {
  ServiceScenario s("svc-benchmark", R"(services:
  - deployment: model-a
    traffic: {pattern: batch, requests: 500, at: 2m, tokens: {file: lengths/sharegpt.csv}}
  - deployment: model-b
    traffic:
      pattern: closed
      users: 16
      think_time: 2s
      think_distribution: exponential
      requests: 1000
      tokens: {input: 512, output: {median: 128, sigma: 0.5}}
  - deployment: team-2/shared
    traffic: {pattern: closed, users: 1}
)");
  std::filesystem::create_directories(s.dir.path() / "lengths");
  s.dir.write("lengths/sharegpt.csv", "input_tokens,output_tokens\n100,20\n");
  ScenarioConfig cfg = s.load();
  REQUIRE(cfg.services.size() == 3);
  const auto& b = std::get<BatchConfig>(cfg.services[0].traffic);
  CHECK(b.requests == 500);
  CHECK(b.at == minutes(2));
  CHECK(b.tokens.file ==
        std::filesystem::absolute(s.dir.path() / "lengths/sharegpt.csv").lexically_normal());
  CHECK(std::find(cfg.input_files.begin(), cfg.input_files.end(), b.tokens.file) !=
        cfg.input_files.end());
  const auto& c = std::get<ClosedConfig>(cfg.services[1].traffic);
  CHECK(c.users == 16);
  CHECK(c.think_time == seconds(2));
  CHECK(c.think == ThinkShape::Exponential);
  CHECK(c.requests == 1000);
  CHECK(c.tokens.input.median == 512);
  CHECK(c.tokens.output.shape == TokenShape::LogNormal);
  CHECK(c.where.to_string() == s.at(10, 7));
  const auto& d = std::get<ClosedConfig>(cfg.services[2].traffic);
  CHECK(d.users == 1);
  CHECK(d.think_time == SimDuration::zero());
  CHECK(d.think == ThinkShape::Fixed);
  CHECK_FALSE(d.requests);
  CHECK(d.tokens.file.empty());
}

TEST_CASE("batch, closed and lengths-file options are errors at the field",
          "[scenario][services]") {
  CHECK(traffic_error("{pattern: batch, requests: 0}") ==
        "7:41: services[0].traffic.requests: 0 is out of range [1, 10000000]");
  CHECK(traffic_error("{pattern: batch}") ==
        "7:14: services[0].traffic.requests: required field is missing");
  CHECK(traffic_error("{pattern: batch, requests: 3, at: -1s}") ==
        "7:48: services[0].traffic.at: invalid duration \"-1s\"; use Go forms such as 90s, 5m or "
        "1h30m");
  CHECK(traffic_error("{pattern: batch, requests: 3, at: 6h}") ==
        "7:48: services[0].traffic.at: 6h0m0s is not before the run ends (duration 6h0m0s): no "
        "request would be served");
  CHECK(traffic_error("{pattern: batch, requests: 3, rps: 2}") ==
        "7:44: services[0].traffic.rps: unknown key; expected one of pattern, requests, at, "
        "tokens");
  CHECK(traffic_error("{pattern: closed, users: 0}") ==
        "7:39: services[0].traffic.users: 0 is out of range [1, 1000000]");
  CHECK(traffic_error("{pattern: closed, users: -4}") ==
        "7:39: services[0].traffic.users: -4 is out of range [1, 1000000]");
  CHECK(traffic_error("{pattern: closed, users: 2, think_time: -1s}") ==
        "7:54: services[0].traffic.think_time: invalid duration \"-1s\"; use Go forms such as 90s, "
        "5m or 1h30m");
  CHECK(traffic_error("{pattern: closed, users: 2, requests: 0}") ==
        "7:52: services[0].traffic.requests: 0 is out of range [1, 9223372036854775807]");
  CHECK(traffic_error("{pattern: closed, users: 2, think_distribution: poisson}") ==
        "7:62: services[0].traffic.think_distribution: unknown think distribution \"poisson\"; "
        "expected fixed or exponential");
  CHECK(traffic_error("{pattern: closed, users: 2, concurrency: 4}") ==
        "7:42: services[0].traffic.concurrency: unknown key; expected one of pattern, users, "
        "think_time, think_distribution, requests, tokens");
  CHECK(traffic_error("{pattern: surge, base: {pattern: closed, users: 2}, factor: 2, at: 1h, "
                      "duration: 1m}") ==
        "7:47: services[0].traffic.base.pattern: a surge's base must be an open pattern (its "
        "arrivals scaled by the factor), not closed");
  // Rejected users would send again at the same instant, for ever.
  CHECK(traffic_error("{pattern: closed, users: 8}", "    serving: {max_queue: 4}\n") ==
        "7:14: services[0].traffic.think_time: a closed loop of 8 users with no think time needs "
        "serving.max_queue of at least 8 (it is 4): the users a full queue turns away would send "
        "again at the same instant, for ever");
  CHECK(traffic_error("{pattern: closed, users: 8, think_time: 1s}",
                      "    serving: {max_queue: 4}\n") == "no error");

  const std::string missing = traffic_error("{pattern: poisson, rps: 1, tokens: {file: no.csv}}");
  CHECK(missing.starts_with("7:56: services[0].traffic.tokens.file: file not found: /"));
  CHECK(missing.ends_with("/no.csv"));
  test::TempDir dir("lengths");
  const auto good = dir.write("good.csv", "input_tokens,output_tokens\n1,2\n");
  CHECK(
      traffic_error("{pattern: closed, users: 1, tokens: {file: " + good.string() + ", input: 5}}")
          .starts_with("7:57: services[0].traffic.tokens.file: give either a lengths file or "
                       "input and output counts, not both"));
  // The file's own problems are named at its line and column, when the scenario loads.
  auto file_error = [](const std::filesystem::path& file) {
    ServiceScenario s("svc-lengths",
                      "services:\n  - deployment: model-a\n    traffic: {pattern: "
                      "batch, requests: 1, tokens: {file: " +
                          file.string() + "}}\n");
    try {
      s.load();
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto bad = dir.write("bad.csv", "input_tokens,output_tokens\n1,2\n3,many\n");
  CHECK(file_error(bad) == bad.string() + ":3:3: output_tokens: expected a number, got \"many\"");
  const auto empty = dir.write("empty.csv", "input_tokens,output_tokens\n");
  CHECK(file_error(empty) == empty.string() + ":1:1: token table has no rows (only a header)");
}
