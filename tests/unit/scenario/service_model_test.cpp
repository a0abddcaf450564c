// A service's `model:` and `engine:`: what the engine model serves and how it batches (issue 24).
#include <catch2/catch.hpp>
#include <string>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

namespace fleetsim {
namespace {

// A scenario with one service on the services fixture's model-a; `lines` start on line 8.
struct ModelScenario {
  test::TempDir dir{"svc-model"};
  std::filesystem::path file;
  explicit ModelScenario(std::string_view lines) {
    file = dir.write("scenario.yaml",
                     "name: scratch\nduration: 6h\ncatalog: " +
                         (test::fixtures() / "catalog/aws/us-east-1").string() + "\nmanifests: [" +
                         (test::fixtures() / "services/models.yaml").string() +
                         "]\nservices:\n  - deployment: model-a\n    traffic: {pattern: poisson, "
                         "rps: 1}\n" +
                         std::string(lines));
  }
  std::string error() const {
    const std::string e = test::config_error([&] { load_scenario(file); });
    const std::string prefix = file.string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  }
};

TEST_CASE("a service names a catalog model by an alias, with its formats and engine",
          "[scenario][services]") {
  ModelScenario s(R"(    model: {name: llama-3.3-70b, dtype: fp8, kv_dtype: fp8}
    engine:
      name: vllm
      max_num_seqs: 64
      max_num_batched_tokens: 4096
      gpu_memory_utilization: 0.95
      enable_chunked_prefill: false
      max_model_len: 8192
      calibration: {bandwidth_efficiency: 0.7, step_overhead: 3ms, activation_reserve: 2Gi}
)");
  const ScenarioConfig cfg = load_scenario(s.file);
  const ServiceConfig& svc = cfg.services.at(0);
  REQUIRE(svc.model);
  CHECK(svc.model->spec.name == "llama-3.1-70b");
  CHECK(svc.model->spec.layers == 80);
  CHECK(svc.model->weights == NumberFormat::Fp8);
  CHECK(svc.model->kv_cache == NumberFormat::Fp8);
  CHECK_FALSE(svc.model->assumed);
  CHECK(std::holds_alternative<EngineServiceTime>(svc.serving.service_time));
  CHECK(svc.engine.kind == EngineKind::Vllm);
  CHECK(svc.engine.max_num_seqs == 64u);
  CHECK(svc.engine.max_num_batched_tokens == 4096u);
  CHECK(svc.engine.gpu_memory_utilization == 0.95);
  CHECK(svc.engine.enable_chunked_prefill == false);
  CHECK(svc.engine.max_model_len == 8192u);
  CHECK(svc.engine.calibration_override.bandwidth_efficiency == 0.7);
  CHECK(svc.engine.calibration_override.step_overhead_s == 0.003);
  CHECK(svc.engine.calibration_override.activation_reserve_bytes == 2.0 * (1 << 30));
  CHECK(svc.engine.calibration_override.compute_efficiency == 0);  // the engine's default
}

TEST_CASE("a service gives a model's architecture itself", "[scenario][services]") {
  ModelScenario s(R"(    model:
      parameters: 7B
      layers: 32
      hidden_size: 4096
      attention_heads: 32
      kv_heads: 8
      vocabulary: 32000
      max_context: 32768
      dtype: awq
)");
  const ScenarioConfig cfg = load_scenario(s.file);
  const ModelSpec& m = cfg.services.at(0).model->spec;
  CHECK(m.total_parameters == 7e9);
  CHECK(m.active_parameters == 7e9);
  CHECK(m.head_dim == 128);  // hidden ÷ heads
  CHECK(m.kv_elements_per_token_layer == 2 * 8 * 128);
  CHECK(cfg.services.at(0).model->weights == NumberFormat::Int4);
}

TEST_CASE("a service's model and engine refuse what vLLM and the catalog would",
          "[scenario][services]") {
  CHECK(ModelScenario("    model: {name: llama-3.1-7b}\n").error() ==
        "8:19: services[0].model.name: no model \"llama-3.1-7b\" in the catalog (`fleetsim "
        "models` lists it); did you mean \"llama-3.1-8b\"?");
  CHECK(ModelScenario("    model: {name: llama-3.1-8b, dtype: fp6}\n").error() ==
        "8:40: services[0].model.dtype: unknown number format \"fp6\"; expected one of bf16, "
        "bfloat16, fp16, float16, half, fp8, fp8_e4m3, int8, w8a8, int4, awq, gptq, fp32, float32");
  CHECK(ModelScenario("    model: {name: llama-3.1-8b, layers: 32}\n").error() ==
        "8:41: services[0].model.layers: give a catalog model's name or its architecture, not "
        "both");
  CHECK(ModelScenario("    model: {parameters: 8B, dtype: fp16}\n").error() ==
        "8:12: services[0].model: layers, hidden_size, attention_heads missing: fleetsim "
        "derives speed and memory from the architecture; name a catalog model (`name: "
        "llama-3.1-8b`; `fleetsim models` lists them) or give its config.json figures");
  CHECK(ModelScenario("    model: {memory: 16Gi}\n").error() ==
        "8:21: services[0].model.memory: fleetsim derives a model's memory and speed from its "
        "architecture: name a catalog model (`fleetsim models` lists them) or give its "
        "config.json figures");
  CHECK(ModelScenario("    model: {name: llama-3.1-8b, gpu_memory_utilization: 0.8}\n").error() ==
        "8:57: services[0].model.gpu_memory_utilization: is an engine option: write it under the "
        "service's `engine:`");
  CHECK(ModelScenario("    engine: {name: tgi}\n").error() ==
        "8:20: services[0].engine.name: unknown engine \"tgi\"; expected vllm, tensorrt-llm or "
        "sglang");
  CHECK(ModelScenario("    engine: {max_num_seqs: 512, max_num_batched_tokens: 256}\n").error() ==
        "8:57: services[0].engine.max_num_batched_tokens: max_num_batched_tokens (256) must be "
        "greater than or equal to max_num_seqs (512), as vLLM requires");
  CHECK(ModelScenario("    serving: {concurrency: 8}\n").error() ==
        "8:28: services[0].serving.concurrency: under the engine model a replica batches up to "
        "engine.max_num_seqs requests; set that");
  CHECK(ModelScenario("    serving: {service_time: {model: llm, slowdown: 0.5}}\n").error() ==
        "8:52: services[0].serving.service_time.slowdown: applies to measured rates only; "
        "without `rates` the engine model's batching sets how a replica slows as its batch "
        "grows");
  CHECK(ModelScenario("    serving: {service_time: {model: fixed, duration: 1s}}\n    engine: "
                      "{name: vllm}\n")
            .error() ==
        "9:13: services[0].engine: sets an LLM's speed; this service's "
        "serving.service_time times its requests itself");
}

}  // namespace
}  // namespace fleetsim

namespace fleetsim {
namespace {

// A Deployment `srv` whose container runs `args` (a YAML flow sequence) on one GPU, with a
// service on it whose extra lines are `lines`.
struct ArgsScenario {
  test::TempDir dir{"svc-server-args"};
  std::filesystem::path file;
  ArgsScenario(const std::string& args, const std::string& lines) {
    dir.write("manifests.yaml",
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: srv}\nspec:\n"
              "  replicas: 1\n  selector: {matchLabels: {app: srv}}\n  template:\n"
              "    metadata: {labels: {app: srv}}\n    spec:\n      containers:\n"
              "        - name: vllm\n          image: vllm/vllm-openai:v0.10.1\n"
              "          args: " +
                  args +
                  "\n          resources: {requests: {cpu: \"4\", memory: 32Gi, nvidia.com/gpu: "
                  "4}}\n");
    file = dir.write(
        "scenario.yaml",
        "name: s\nduration: 1h\ncatalog: " + (test::fixtures() / "catalog/aws/us-east-1").string() +
            "\nmanifests: [manifests.yaml]\nservices:\n  - deployment: srv\n"
            "    traffic: {pattern: poisson, rps: 1}\n" +
            lines);
  }
};

TEST_CASE("a Deployment's vLLM flags give the service its model and engine",
          "[scenario][services]") {
  ArgsScenario s(
      R"(["--model", "meta-llama/Llama-3.3-70B-Instruct", "--tensor-parallel-size", "4", "--max-model-len", "8192", "--max-num-seqs", "64"])",
      "");
  const ScenarioConfig cfg = load_scenario(s.file);
  const ServiceConfig& svc = cfg.services.at(0);
  REQUIRE(svc.model);
  CHECK(svc.model->spec.name == "llama-3.1-70b");
  CHECK_FALSE(svc.model->assumed);
  CHECK(svc.engine.tensor_parallel_size == 4u);
  CHECK(svc.engine.max_model_len == 8192u);
  CHECK(svc.engine.max_num_seqs == 64u);
  for (const Warning& w : cfg.warnings) CHECK(w.code != WarningCode::ModelAssumed);
}

TEST_CASE("a service that says otherwise than its server's flags is refused naming both",
          "[scenario][services]") {
  ArgsScenario conflict(R"(["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-num-seqs", "8"])",
                        "    engine: {max_num_seqs: 16}\n");
  const std::string e = test::config_error([&] { load_scenario(conflict.file); });
  CHECK_THAT(e, Catch::EndsWith("8:13: services[0].engine.max_num_seqs: is 16, but Deployment "
                                "default/srv's server runs with 8: give one value (the server's "
                                "flags are read as it would run)"));
  ArgsScenario model(R"(["--model", "meta-llama/Llama-3.1-8B-Instruct"])",
                     "    model: {name: mistral-7b}\n");
  CHECK_THAT(test::config_error([&] { load_scenario(model.file); }),
             Catch::EndsWith("8:12: services[0].model: is mistral-7b, but Deployment "
                             "default/srv's server serves meta-llama/Llama-3.1-8B-Instruct "
                             "(llama-3.1-8b)"));
}

TEST_CASE("a server serving a model the catalog does not know gets the default with a warning",
          "[scenario][services]") {
  ArgsScenario s(R"(["--model", "acme/chat-13b", "--max-num-seqs", "lots"])", "");
  const ScenarioConfig cfg = load_scenario(s.file);
  REQUIRE(cfg.services.at(0).model);
  CHECK(cfg.services.at(0).model->assumed);
  std::vector<std::string> messages;
  for (const Warning& w : cfg.warnings)
    if (w.code == WarningCode::ModelAssumed || w.code == WarningCode::ServerFlagNotRead)
      messages.push_back(w.message);
  CHECK(messages == std::vector<std::string>{
                        "its server serves acme/chat-13b, which the catalog does not know (give "
                        "`model:` its architecture): its speed is that of llama-3.1-8b in bf16 "
                        "on vLLM; name the model it serves (`fleetsim models` lists them)",
                        "Deployment default/srv's server flag --max-num-seqs lots: expected a "
                        "positive whole number; fleetsim runs the engine's default instead"});
}

}  // namespace
}  // namespace fleetsim
