#include "fleetsim/scenario/nodepool_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "fleetsim/cloudprovider/aws/aws_instance_types.hpp"
#include "fleetsim/provisioning/karpenter/nodepool_set.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scheduling/scheduler.hpp"
#include "fleetsim/serving/serving_time.hpp"

namespace fleetsim {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// The NodePools (and EC2NodeClasses) in force at some time of the run.
struct PoolSet {
  std::vector<NodePool> pools;
  std::vector<EC2NodeClass> classes;
  std::unique_ptr<SchedulingContext> context;
};

std::vector<PoolSet> pool_sets(const ScenarioConfig& config) {
  const AwsInstanceTypes sizer(*config.catalog);  // the nodes EC2 would launch
  std::vector<PoolSet> sets(1);
  if (config.provisioner == ProvisionerKind::ClusterAutoscaler) {
    for (const NodeGroup& g : config.node_groups) sets[0].pools.push_back(as_nodepool(g));
    sets[0].context = make_scheduling_context(
        NodePoolInputs{.catalog = *config.catalog, .daemonsets = config.daemonsets}, sets[0].pools,
        sizer);
    return sets;
  }
  sets[0].pools = config.nodepools;
  sets[0].classes = config.node_classes;
  for (const ScriptedEvent& e : config.events) {
    const auto* apply = std::get_if<ApplyManifestsEvent>(&e.action);
    if (apply == nullptr || (apply->nodepools.empty() && apply->node_classes.empty())) continue;
    PoolSet next{.pools = sets.back().pools, .classes = sets.back().classes};
    merge_nodepools(next.pools, apply->nodepools);
    merge_node_classes(next.classes, apply->node_classes);
    sets.push_back(std::move(next));
  }
  // Node groups beside the NodePools keep their desired capacity: they host pods too.
  for (PoolSet& set : sets)
    for (const NodeGroup& g : config.node_groups) set.pools.push_back(as_nodepool(g));
  for (PoolSet& set : sets) {
    set.context = make_scheduling_context(NodePoolInputs{.catalog = *config.catalog,
                                                         .node_classes = set.classes,
                                                         .daemonsets = config.daemonsets},
                                          set.pools, sizer);
  }
  return sets;
}

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

// vLLM loads the weights across the pod's GPUs (tensor parallel) into the share of each GPU's
// memory it may use; a GPU with less than that share of the weights cannot serve the model.
void keep_to_gpus_that_hold_the_model(ScenarioConfig& config, const std::vector<PoolSet>& sets,
                                      WarningLog& warnings) {
  const auto& types = config.catalog->types();
  for (std::size_t i = 0; i < config.services.size(); ++i) {
    const ServiceConfig& service = config.services[i];
    if (!service.model) continue;
    const ModelMemory& model = *service.model;
    const std::string field = fmt::format("services[{}].model", i);
    Workload* deployment = deployment_of(config.workloads, service);
    if (deployment == nullptr) continue;  // the loader reports it
    const std::int64_t gpus = deployment->pod.spec.requests[resource::kNvidiaGpu];
    if (gpus <= 0)
      throw ConfigError(model.where, field,
                        fmt::format("Deployment {} requests no nvidia.com/gpu; a model's memory "
                                    "is checked against NVIDIA GPUs only",
                                    service.deployment));
    const auto need_mib = static_cast<std::int64_t>(
        std::ceil(static_cast<double>(model.weight_bytes) /
                  (model.gpu_memory_utilization * static_cast<double>(gpus) * kMiB)));
    const std::set<std::size_t> before = launchable_types(deployment->pod.spec, sets);
    const Requirement enough = Requirement::make(Operator::Gt, {std::to_string(need_mib - 1)});
    auto narrow = [&](PodSpec& spec) {
      Requirements gpu_memory;
      gpu_memory.add(std::string(label::kGpuMemory), enough);
      spec.node_requirements.add(gpu_memory);
      for (Requirements& term : spec.alternative_node_requirements) term.add(gpu_memory);
    };
    narrow(deployment->pod.spec);
    for (ScriptedEvent& e : config.events)
      if (auto* apply = std::get_if<ApplyManifestsEvent>(&e.action))
        for (Workload& update : apply->updates)
          if (update.name == deployment->name &&
              update.namespace_name == deployment->namespace_name)
            narrow(update.pod.spec);
    const std::set<std::size_t> after = launchable_types(deployment->pod.spec, sets);
    const std::string needs = fmt::format(
        "the model ({}) needs {} MiB per GPU with {} GPU{} per pod at "
        "gpu_memory_utilization {}",
        model.described, need_mib, gpus, gpus == 1 ? "" : "s", model.gpu_memory_utilization);
    if (after.empty()) {
      const InstanceType* largest = nullptr;
      for (std::size_t t : before)
        if (largest == nullptr || types[t].gpu_memory_mib > largest->gpu_memory_mib)
          largest = &types[t];
      throw ConfigError(
          model.where, field,
          fmt::format("{}; no instance type its NodePools allow has that{}: ask for more GPUs "
                      "per pod (tensor parallelism) or allow larger ones",
                      needs,
                      largest == nullptr
                          ? ""
                          : fmt::format(" (the largest: {} MiB, {} on {})", largest->gpu_memory_mib,
                                        largest->gpu_name, largest->name)));
    }
    std::map<std::string, std::set<std::string>> excluded;  // "t4 (16384 MiB)" -> types
    for (std::size_t t : before)
      if (!after.contains(t))
        excluded[fmt::format("{} ({} MiB)", types[t].gpu_name, types[t].gpu_memory_mib)].insert(
            types[t].name);
    if (excluded.empty()) continue;
    std::vector<std::string> groups;
    for (const auto& [gpu, names] : excluded)
      groups.push_back(fmt::format("{}: {}", gpu, first_few(names)));
    warnings.add(WarningCode::ModelNeedsGpuMemory, model.where, field,
                 fmt::format("{}, so its pods keep off {}, as a nodeAffinity {} Gt {} would", needs,
                             fmt::join(groups, "; "), label::kGpuMemory, need_mib - 1));
  }
}

// An LLM service without `rates` takes each replica's speed from its node's accelerator, so every
// instance type its Deployment's pods could be launched on must be in the default rate table;
// the run must not stop hours in when a replica first lands on another.
void check_llm_rates_cover(ScenarioConfig& config, const std::vector<PoolSet>& sets) {
  const auto& types = config.catalog->types();
  for (const ServiceConfig& service : config.services) {
    if (service.rates || !std::holds_alternative<LlmServiceTime>(service.serving.service_time))
      continue;
    const Workload* deployment = deployment_of(config.workloads, service);
    if (deployment == nullptr) continue;
    std::set<std::string> uncovered;  // "type (accelerator)", sorted
    for (std::size_t t : launchable_types(deployment->pod.spec, sets)) {
      const InstanceType& type = types[t];
      const std::string& accelerator = type.gpu_count > 0 ? type.gpu_name : type.accelerator_name;
      if (!type.has_gpu() || !parse_gpu_model(accelerator))
        uncovered.insert(
            fmt::format("{} ({})", type.name, type.has_gpu() ? accelerator : "no accelerator"));
    }
    if (uncovered.empty()) continue;
    throw ConfigError(
        service.where, "serving.service_time.rates",
        fmt::format("replicas of {} can be launched on {}, which the default LLM rate table "
                    "(T4, A10G, L4, L40S, A100, H100, H200, Inferentia2) does not cover; give "
                    "the rates, or keep the Deployment off those types",
                    service.deployment, first_few(uncovered)));
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

}  // namespace

void check_against_nodepools(ScenarioConfig& config, WarningLog& warnings) {
  const std::vector<PoolSet> sets = pool_sets(config);
  keep_to_gpus_that_hold_the_model(config, sets, warnings);
  check_llm_rates_cover(config, sets);
  warn_unhostable_workloads(config, sets, warnings);
}

}  // namespace fleetsim
