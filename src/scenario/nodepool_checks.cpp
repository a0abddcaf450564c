#include "fleetsim/scenario/nodepool_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "fleetsim/catalog/gpu_sharing.hpp"
#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/pool_sets.hpp"
#include "fleetsim/scheduling/scheduler.hpp"
#include "fleetsim/service/replica_engine.hpp"

namespace fleetsim {

namespace {

// The instance types any pool of any set could launch for the pod.
std::set<std::size_t> launchable_types(const PodSpec& pod, const std::vector<PoolSet>& sets) {
  std::set<std::size_t> out;
  for (const PoolSet& set : sets)
    for (std::uint32_t pool = 0; pool < set.context->pools().size(); ++pool)
      set.context->types_for(pod, pool).for_each([&](std::size_t t) { out.insert(t); });
  return out;
}

// "a, b, c, d, e and 3 more", in name order.
std::string first_few(const std::set<std::string>& names) {
  return first_names(std::vector<std::string>(names.begin(), names.end()));
}

Workload* deployment_of(std::vector<Workload>& workloads, const ServiceConfig& service) {
  for (Workload& w : workloads)
    if (w.kind == WorkloadKind::Deployment && w.name == service.deployment_name &&
        w.namespace_name == service.deployment_namespace)
      return &w;
  return nullptr;
}

// Adds `requirement` to the Deployment's pods and to the updates scripted applies make to it.
void narrow_pods(ScenarioConfig& config, Workload& deployment, const std::string& key,
                 const Requirement& requirement) {
  auto narrow = [&](PodSpec& spec) {
    Requirements r;
    r.add(key, requirement);
    spec.node_requirements.add(r);
    for (Requirements& term : spec.alternative_node_requirements) term.add(r);
  };
  narrow(deployment.pod.spec);
  for (ScriptedEvent& e : config.events)
    if (auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (Workload& update : apply->updates)
        if (update.name == deployment.name && update.namespace_name == deployment.namespace_name)
          narrow(update.pod.spec);
}

// "reason: type, type; reason: type" for the types grouped by reason.
std::string by_reason(const std::map<std::string, std::set<std::string>>& groups) {
  std::vector<std::string> parts;
  for (const auto& [reason, names] : groups)
    parts.push_back(fmt::format("{} ({})", first_few(names), reason));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// Tensor parallelism as vLLM checks it when it starts, whatever the GPU.
void check_tensor_parallelism(const ServiceConfig& service, std::size_t i, std::int64_t gpus,
                              WarningLog& warnings) {
  const std::uint32_t tp =
      service.engine.tensor_parallel_size.value_or(static_cast<std::uint32_t>(gpus));
  const bool given = service.engine.tensor_parallel_size.has_value();
  const SourceLocation& where = given ? service.engine_where : service.model->where;
  const std::string field = given ? fmt::format("services[{}].engine.tensor_parallel_size", i)
                                  : fmt::format("services[{}].model", i);
  if (tp > gpus)
    throw ConfigError(where, field,
                      fmt::format("tensor_parallel_size {} needs {} GPUs per replica; {}'s pods "
                                  "request {}",
                                  tp, tp, service.deployment, gpus));
  if (service.model->spec.attention_heads % tp != 0)
    throw ConfigError(where, field,
                      fmt::format("Total number of attention heads ({}) must be divisible by "
                                  "tensor parallel size ({}), as vLLM requires{}",
                                  service.model->spec.attention_heads, tp,
                                  given ? "" : " (tensor_parallel_size is the pods' GPU count)"));
  if (tp < gpus)
    warnings.add(WarningCode::GpusUnused, service.engine_where,
                 fmt::format("services[{}].engine.tensor_parallel_size", i),
                 fmt::format("{} of the {} GPUs each pod requests do no work: the engine shards "
                             "the model over {}",
                             gpus - tp, gpus, tp));
}

// An LLM service's replicas run its model on the GPUs of whatever type they land on. Where vLLM
// would not start (the weights and a max_model_len sequence do not fit, a number format the GPU
// lacks, no hardware figures) its pods keep off the type, as a nodeAffinity
// node.kubernetes.io/instance-type NotIn would, with a warning; with none left it is an error.
void keep_to_types_that_serve_the_model(ScenarioConfig& config, const std::vector<PoolSet>& sets,
                                        WarningLog& warnings) {
  const auto& types = config.catalog->types();
  for (std::size_t i = 0; i < config.services.size(); ++i) {
    const ServiceConfig& service = config.services[i];
    if (!service.model) continue;
    const std::string field = fmt::format("services[{}].model", i);
    Workload* deployment = deployment_of(config.workloads, service);
    if (deployment == nullptr) continue;  // the loader reports it
    const std::optional<MigRequest> mig =
        mig_request(deployment->pod.spec.requests, config.resources);
    const std::int64_t gpus = deployment->pod.spec.requests.gpus() + (mig ? mig->devices : 0);
    if (gpus <= 0 && !deployment->pod.spec.resource_claims.empty())
      throw ConfigError(service.model->where, field,
                        fmt::format("Deployment {} takes its GPUs through ResourceClaims, and the "
                                    "serving model does not run on DRA devices yet; request "
                                    "nvidia.com/gpu (the device plugin's) for a served model",
                                    service.deployment));
    if (gpus <= 0)
      throw ConfigError(service.model->where, field,
                        fmt::format("Deployment {} requests no GPU; the model runs on its pods' "
                                    "GPUs",
                                    service.deployment));
    check_tensor_parallelism(service, i, gpus, warnings);
    std::map<std::string, std::set<std::string>> excluded, notes, nominal;
    std::set<std::string> kept;
    std::set<std::size_t> candidates = launchable_types(deployment->pod.spec, sets);
    // A MIG device's size is known before launch: where no type is launchable (Karpenter sees
    // no MIG devices without a NodeOverlay: the pods stay pending, which the lint explains), the
    // model must still fit the profile on some GPU that has it.
    const bool launchable = !candidates.empty();
    if (mig && !launchable)
      for (std::size_t t = 0; t < types.size(); ++t)
        if (mig_profile_share(config.gpu_operator.mig_layouts, types[t], mig->profile))
          candidates.insert(t);
    for (std::size_t t : candidates) {
      const InstanceType& type = types[t];
      GpuShare share;
      if (mig) {
        const std::optional<GpuShare> slice =
            mig_profile_share(config.gpu_operator.mig_layouts, type, mig->profile);
        if (!slice) continue;  // its GPUs never offer the profile
        share = *slice;
      }
      ReplicaEngine engine = replica_engine(service, type, static_cast<std::uint32_t>(gpus), share);
      if (!engine.cost && mig)
        engine.why_not = fmt::format("on a MIG {} device: {}", mig->profile, engine.why_not);
      if (!engine.cost) {
        excluded[engine.why_not].insert(type.name);
        continue;
      }
      kept.insert(type.name);
      if (!engine.note.empty()) notes[engine.note].insert(type.name);
      if (!type.gpu_hardware) nominal[type.accelerator_name].insert(type.name);
    }
    const std::string model = fmt::format(
        "{}{}", service.model->spec.name,
        service.model->weights ? fmt::format(" in {}", to_string(*service.model->weights)) : "");
    if (kept.empty() && !excluded.empty() && !launchable)
      throw ConfigError(service.model->where, field,
                        fmt::format("{} cannot be served on a MIG {} device of any GPU that has "
                                    "the profile: {}",
                                    model, mig->profile, by_reason(excluded)));
    if (kept.empty() && !excluded.empty())
      throw ConfigError(service.model->where, field,
                        fmt::format("{} cannot be served on any instance type {}'s pods can be "
                                    "launched on: {}",
                                    model, service.deployment, by_reason(excluded)));
    if (!excluded.empty() && launchable) {
      std::vector<std::string> names;
      for (const auto& [reason, group] : excluded)
        names.insert(names.end(), group.begin(), group.end());
      std::sort(names.begin(), names.end());
      narrow_pods(config, *deployment, std::string(label::kInstanceType),
                  Requirement::make(Operator::NotIn, names));
      warnings.add(
          WarningCode::ModelKeepsOffTypes, service.model->where, field,
          fmt::format("{} cannot be served on {}, so {}'s pods keep off them, as a "
                      "nodeAffinity {} NotIn would",
                      model, by_reason(excluded), service.deployment, label::kInstanceType));
    }
    for (const auto& [note, group] : notes)
      warnings.add(WarningCode::EngineNote, service.model->where, field + ".dtype",
                   fmt::format("on {}: {}", first_few(group), note));
    for (const auto& [accelerator, group] : nominal)
      warnings.add(WarningCode::NominalAccelerator, service.engine_where,
                   fmt::format("services[{}].engine", i),
                   fmt::format("on {}: no engine for {} is modelled; its replicas run the GPU "
                               "engine model on the chip's nominal figures (32 GiB at 820 GB/s, "
                               "190 TFLOPS bf16)",
                               first_few(group), accelerator));
  }
}

// A lone pod of each workload, solved on an empty cluster by the provisioner's own solver:
// when no set of NodePools places it, its pods would stay Pending for the whole run.
void warn_unhostable_workloads(const ScenarioConfig& config, const std::vector<PoolSet>& sets,
                               WarningLog& warnings) {
  std::vector<const Workload*> workloads;
  for (const Workload& w : config.workloads) workloads.push_back(&w);
  for (const ScriptedEvent& e : config.events)
    if (const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
      for (const Workload& w : apply->workloads) workloads.push_back(&w);
  if (workloads.empty()) return;
  const std::string_view noun =
      config.provisioner == ProvisionerKind::ClusterAutoscaler ? "node group" : "NodePool";
  if (std::all_of(sets.begin(), sets.end(), [](const PoolSet& s) { return s.pools.empty(); })) {
    warnings.add(WarningCode::NoNodePool, workloads.front()->where, "NodePool",
                 fmt::format("the scenario has no NodePool, so the pods of its {} workload{} "
                             "stay Pending",
                             workloads.size(), workloads.size() == 1 ? "" : "s"));
    return;
  }
  std::vector<std::unique_ptr<Scheduler>> schedulers;
  for (const PoolSet& set : sets) schedulers.push_back(std::make_unique<Scheduler>(*set.context));
  auto check = [&](const Workload& w) {
    const PendingPod pod{.spec = &w.pod.spec,
                         .labels = &w.pod.labels,
                         .namespace_name = w.namespace_name,
                         .uid = w.name};
    std::string reason;
    for (const auto& scheduler : schedulers) {
      const SolveResult result = scheduler->solve(SolveInput{.pods = {&pod, 1}});
      if (result.failures.empty()) return;
      if (reason.empty()) reason = result.failures.front().reason;
    }
    warnings.add(
        WarningCode::PodsUnhostable, w.where,
        fmt::format("{} {}/{}", to_string(w.kind), w.namespace_name, w.name),
        fmt::format("no {} can host its pods{}, so they stay Pending: {}", noun,
                    sets.size() > 1 ? " (nor any NodePools a scripted apply brings)" : "", reason));
  };
  for (const Workload* w : workloads) check(*w);
}

// An LLM service's replicas on shared GPUs: on a MIG slice or an MPS client's share the model
// must fit what the share has (vLLM would not start: an error); on a time-sliced GPU every
// replica sees the whole memory, and a second one at a gpu_memory_utilization above 1/replicas
// finds too little free memory and fails to start (a warning).
void check_shared_gpus(const ScenarioConfig& config, const std::vector<PoolSet>& sets,
                       WarningLog& warnings) {
  const auto& types = config.catalog->types();
  for (std::size_t i = 0; i < config.services.size(); ++i) {
    const ServiceConfig& service = config.services[i];
    if (!service.model) continue;
    const Workload* deployment = nullptr;
    for (const Workload& w : config.workloads)
      if (w.kind == WorkloadKind::Deployment && w.name == service.deployment_name &&
          w.namespace_name == service.deployment_namespace)
        deployment = &w;
    if (deployment == nullptr) continue;
    const auto gpus = static_cast<std::uint32_t>(deployment->pod.spec.requests.gpus());
    std::set<std::string> warned;
    for (const PoolSet& set : sets) {
      for (std::uint32_t p = 0; p < set.context->pools().size(); ++p) {
        const PoolTemplate& tpl = set.context->pools()[p];
        set.context->types_for(deployment->pod.spec, p).for_each([&](std::size_t t) {
          const NodeGpuSetup setup = node_gpu_setup(types[t], tpl.pool->labels, tpl.allocatable[t],
                                                    config.gpu_operator, config.resources);
          if (!setup.device_share.whole()) {
            const ReplicaEngine engine =
                replica_engine(service, types[t], gpus, setup.device_share);
            if (!engine.cost)
              throw ConfigError(
                  service.model->where, fmt::format("services[{}].model", i),
                  fmt::format(
                      "{} cannot be served on a share of {}'s GPU ({} of pool {}): {}",
                      service.model->spec.name, types[t].name,
                      setup.layout.empty() ? "an MPS client" : "a MIG slice of " + setup.layout,
                      tpl.pool->name, engine.why_not));
            return;
          }
          if (setup.sharing != GpuSharingKind::TimeSlicing || gpus != 1) return;
          const ReplicaEngine engine = replica_engine(service, types[t], gpus);
          if (!engine.cost) return;
          const double u = engine.cost->limits().gpu_memory_utilization;
          if (u * setup.replicas <= 1.0 ||
              !warned.insert(tpl.pool->name + "/" + types[t].name).second)
            return;
          const int fit = std::max(1, static_cast<int>(std::floor(1.0 / u)));
          warnings.add(
              WarningCode::SharedGpuMemory, service.model->where,
              fmt::format("services[{}].engine.gpu_memory_utilization", i),
              fmt::format("pool {} time-slices {}'s GPU {} ways, but each replica of {} "
                          "takes {:g} of its memory (gpu_memory_utilization): only {} "
                          "of the {} replicas one GPU takes can start, as vLLM finds too "
                          "little free memory for the next (it exits, and the kubelet "
                          "restarts it with CrashLoopBackOff while the GPU stays full); set "
                          "engine.gpu_memory_utilization to at most {:g}, or give each "
                          "replica a GPU of its own",
                          tpl.pool->name, types[t].name, setup.replicas, service.deployment, u, fit,
                          setup.replicas, 1.0 / setup.replicas));
        });
      }
    }
  }
}

}  // namespace

void check_against_nodepools(ScenarioConfig& config, WarningLog& warnings) {
  const std::vector<PoolSet> sets = pool_sets(config);
  keep_to_types_that_serve_the_model(config, sets, warnings);
  check_shared_gpus(config, sets, warnings);
  warn_unhostable_workloads(config, sets, warnings);
}

}  // namespace fleetsim
