// What a `services:` entry of a scenario says: plain data, read by the service module at run
// time and filled in by the scenario loader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/serving/engine_config.hpp"
#include "fleetsim/serving/model_spec.hpp"
#include "fleetsim/serving/number_format.hpp"
#include "fleetsim/serving/serving_settings.hpp"
#include "fleetsim/traffic/traffic_config.hpp"

namespace fleetsim {

// A service's latency objectives: a request slower than either threshold, or dropped, is a miss.
struct LatencySlo {
  std::optional<SimDuration> ttft;  // time to first token
  std::optional<SimDuration> e2e;   // arrival to completion
};

// How a service's pods start once bound (DESIGN.md §4.4): the image is pulled (its size ÷ the
// node's pull bandwidth, once per node), then the server loads the model.
struct ServiceStartup {
  std::int64_t image_bytes = 0;  // 0: the image is small or pre-cached (no pull time)
  SimDuration model_load{0};
};

// A service's `model`: what each replica serves, in which number formats.
struct ServiceModel {
  ModelSpec spec;
  // nullopt: vLLM's "auto": bf16 (fp16 on a GPU without bf16, the T4); the KV cache in the
  // 16-bit type the weights compute in.
  std::optional<NumberFormat> weights;
  std::optional<NumberFormat> kv_cache;
  // No `model:` given: fleetsim assumed kDefaultModel, and said so.
  bool assumed = false;
  SourceLocation where;
};

// The model an LLM service without `model:` serves, with a warning (model-assumed).
inline constexpr std::string_view kDefaultModel = "llama-3.1-8b";

// How the metrics a service's pods export are emulated where fleetsim models no cause for them
// (`services[].metrics`).
struct ServiceMetricsSettings {
  // The share of its CPU request a serving pod uses while its GPU is idle, for Resource cpu
  // metrics; it uses all of it while the GPU is busy, linearly in between with the busy share. An
  // assumption, not a measurement: an idle inference server still runs its event loop, health
  // probes and /metrics endpoint, a small part of a core. 10 % keeps an idle pod above zero, as a
  // real one is, and well under the usual CPU targets (50–80 %), so a CPU HPA scales an idle
  // service in. The pods of a Deployment without a service use this default.
  double idle_cpu_share = 0.1;
  // The share of its memory request a started pod uses, for Resource memory metrics, the same
  // all its life: a server allocates its memory as it starts and holds it. 1 (all of it) is an
  // assumption too; below 1 leaves a memory target room.
  double memory_share = 1.0;
};

// How a service's requests are simulated: one by one through the engine model, or as rates
// (FluidServing: a month of traffic in seconds, within the errors README states).
enum class ServingMode : std::uint8_t { Requests, Fluid };

inline std::string_view to_string(ServingMode mode) {
  return mode == ServingMode::Fluid ? "fluid" : "requests";
}

// `services:` entry: traffic bound to a Deployment of the scenario's manifests.
struct ServiceConfig {
  std::string deployment;            // as written: "name" or "namespace/name"
  std::string deployment_namespace;  // the Deployment it names, resolved by the loader
  std::string deployment_name;
  TrafficConfig traffic;
  ServingConfig serving;
  // Under `serving.service_time.rates`, a measured speed for every replica; otherwise an LLM
  // service's speed comes from its model, engine and each replica's GPUs (EngineServiceTime).
  std::optional<LlmRates> rates;
  std::optional<LatencySlo> slo;
  ServiceStartup startup;
  std::optional<ServiceModel> model;  // LLM services; nullopt for fixed-time ones
  EngineOptions engine;
  bool engine_named = false;       // `engine.name` given (else the engine its server's flags say)
  SourceLocation engine_where;     // its `engine` key, or the entry when not given
  ServiceMetricsSettings metrics;  // how its pods' metrics are emulated
  ServingMode simulation = ServingMode::Requests;
  bool simulation_named = false;    // `simulation` given (else the scenario's serving_mode)
  SourceLocation where;             // the list entry
  SourceLocation deployment_where;  // its `deployment` field
};

}  // namespace fleetsim
