#include "fleetsim/world/service_checks.hpp"

#include <fmt/format.h>

#include <set>

#include "fleetsim/serving/serving_time.hpp"

namespace fleetsim {

namespace {

constexpr std::size_t kTypesNamed = 5;

const Workload* deployment_of(const ScenarioConfig& config, const ServiceConfig& service) {
  for (const Workload& w : config.workloads)
    if (w.kind == WorkloadKind::Deployment && w.name == service.deployment_name &&
        w.namespace_name == service.deployment_namespace)
      return &w;
  return nullptr;
}

}  // namespace

void check_llm_rates_cover(const ScenarioConfig& config, const SchedulingContext& context) {
  const auto& types = context.catalog().types();
  for (const ServiceConfig& service : config.services) {
    if (service.rates || !std::holds_alternative<LlmServiceTime>(service.serving.service_time))
      continue;
    const Workload* deployment = deployment_of(config, service);
    if (deployment == nullptr) continue;  // the loader reports it
    std::set<std::string> uncovered;      // "type (accelerator)", sorted
    for (std::uint32_t pool = 0; pool < context.pools().size(); ++pool) {
      context.types_for(deployment->pod.spec, pool).for_each([&](std::size_t t) {
        const InstanceType& type = types[t];
        const std::string& accelerator = type.gpu_count > 0 ? type.gpu_name : type.accelerator_name;
        if (!type.has_gpu() || !parse_gpu_model(accelerator))
          uncovered.insert(
              fmt::format("{} ({})", type.name, type.has_gpu() ? accelerator : "no accelerator"));
      });
    }
    if (uncovered.empty()) continue;
    std::string listed;
    std::size_t n = 0;
    for (const std::string& u : uncovered) {
      if (n++ == kTypesNamed) break;
      listed += (listed.empty() ? "" : ", ") + u;
    }
    if (uncovered.size() > kTypesNamed)
      listed += fmt::format(" and {} more", uncovered.size() - kTypesNamed);
    throw ConfigError(
        service.where, "serving.service_time.rates",
        fmt::format("replicas of {} can be launched on {}, which the default LLM rate table "
                    "(T4, A10G, L4, L40S, A100, H100, H200, Inferentia2) does not cover; give "
                    "the rates, or keep the Deployment off those types",
                    service.deployment, listed));
  }
}

}  // namespace fleetsim
