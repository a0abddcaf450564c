// The engine an LLM service's replica runs on one instance type: the service's model, formats
// and engine options resolved for that type's GPUs, or why vLLM would not start there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/service/service_config.hpp"
#include "fleetsim/serving/gpu_share.hpp"
#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim {

struct ReplicaEngine {
  std::optional<StepCost> cost;  // nullopt: it cannot run there, for the reason in why_not
  std::string why_not;
  std::string note;  // how it runs there, when users may not expect it (fp8 weight-only, …)
};

// `gpus` is the pod's accelerator request. The service must have a model. `share`: what each
// of those devices is of a GPU (a MIG slice, an MPS client), whole by default.
ReplicaEngine replica_engine(const ServiceConfig& service, const InstanceType& type,
                             std::uint32_t gpus, const GpuShare& share = {});

// The formats a model's weights and KV cache take on a GPU when the scenario leaves them to the
// engine ("auto"): bf16, or fp16 where the GPU has no bf16.
ServedModel served_model(const ServiceModel& model, const GpuHardware& gpu);

}  // namespace fleetsim
