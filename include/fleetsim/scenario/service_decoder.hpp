// Decoder for the scenario's `services:` section: traffic, serving and SLO of each service.
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/scenario/scenario_config.hpp"
#include "fleetsim/scenario/scenario_sections.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// A concurrency above this is a unit mistake: no inference engine batches more sequences per
// replica (vLLM's --max-num-seqs defaults to 256; 4096 leaves room for small models).
inline constexpr std::int64_t kMaxServiceConcurrency = 4096;
// A queue bound above ten million requests is, for any simulated horizon, no bound at all.
inline constexpr std::int64_t kMaxServiceQueue = 10'000'000;
// A decode slowdown alpha beyond 100 (a full batch a hundred times slower than a lone request)
// is a unit mistake.
inline constexpr double kMaxSlowdownAlpha = 100;
// An image above 1 TiB is a unit mistake: deep-learning images run to tens of gigabytes.
inline constexpr std::int64_t kMaxImageBytes = 1LL << 40;

// `services:` — a list of
//   deployment: NAME or NAMESPACE/NAME        (required)
//   traffic: {pattern: …, …}                  (required; keys by pattern:)
//     constant  rps (required), first_arrival, tokens
//     poisson   rps (required), tokens
//     diurnal   mean_rps (required), peak_to_trough, peak_hour, tokens
//     bursty    quiet_rps, burst_rps, mean_quiet, mean_burst (all required),
//               start_state (stationary | quiet | burst), tokens
//     surge     base (required: a nested traffic mapping of any other pattern), factor, at,
//               duration (required), ramp_up, ramp_down
//     replay    trace (required; relative to the scenario file), time_scale, rate_scale,
//               offset, start, loop, loop_period
//     tokens    {input: N | {median, sigma}, output: N | {median, sigma}}
//   serving: {concurrency (1), queue_timeout, max_queue,
//             service_time: {model: llm (default), slowdown, rates: {prefill_tokens_per_s,
//                                                                  time_per_output_token}}
//                         | {model: fixed, duration} | {model: exponential, mean}
//                         | {model: lognormal, median, sigma}}
//   slo: {ttft, e2e}                          (at least one when given)
//   startup: {image_size: QUANTITY (bytes, e.g. 15Gi; 0), model_load: DURATION (0s)}
//                                             pulled once per node at node_latencies'
//                                             image_pull_bandwidth, then the model loads
//   simulation: requests | fluid              (the scenario's serving_mode; requests)
// Every config is validated here; errors carry the offending field's file:line:col. Trace files
// must exist but are read only when the service runs.
std::vector<ServiceConfig> decode_services(const YamlValue& list, const SectionContext& sc);

// `simulation:` of a service, or the scenario's `serving_mode:`: requests | fluid.
ServingMode decode_serving_mode(const YamlValue& v);
// The scenario's `serving_mode:` (or `run --serving-mode`) for every service that does not name
// its own; services that cannot run as rates (closed loops, services not on the engine model)
// stay request by request with a fluid-mode-not-applied warning.
void apply_serving_mode(std::vector<ServiceConfig>& services, ServingMode mode,
                        WarningLog& warnings);
void apply_serving_mode(std::vector<ServiceConfig>& services, const YamlValue& v,
                        WarningLog& warnings);

// Each service's `deployment` must name exactly one Deployment of `workloads` (manifests), and
// no two services may share one; sets its deployment_namespace and deployment_name. Throws
// ConfigError at the `deployment` field.
void resolve_service_deployments(std::vector<ServiceConfig>& services,
                                 const std::vector<Workload>& workloads);

// Under the engine model, the flags the Deployment's inference server runs with (vLLM, SGLang,
// TensorRT-LLM: service/server_args.hpp) fill what the service's `model` and `engine` leave
// unset; a flag that says otherwise than the service is an error naming both. A service that
// names no model, and whose server names none the catalog knows, serves kDefaultModel, with a
// warning. After resolve_service_deployments.
void apply_server_args(std::vector<ServiceConfig>& services, const std::vector<Workload>& workloads,
                       WarningLog& warnings);

}  // namespace fleetsim
