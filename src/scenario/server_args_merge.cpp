// apply_server_args (service_decoder.hpp): the Deployment's inference-server flags in the
// service's model and engine.
#include <fmt/format.h>

#include "fleetsim/scenario/service_decoder.hpp"
#include "fleetsim/service/server_args.hpp"
#include "fleetsim/serving/model_catalog.hpp"

namespace fleetsim {

namespace {

std::string shown(double x) { return fmt::format("{}", x); }
std::string shown(std::uint32_t x) { return fmt::format("{}", x); }
std::string shown(bool x) { return x ? "true" : "false"; }
std::string shown(NumberFormat f) { return std::string(to_string(f)); }

// The flags of the first of the pod's containers that runs a server fleetsim reads.
std::optional<ServerArgs> server_of(const Workload& w) {
  for (const PodSpec::CommandLine& c : w.pod.spec.command_lines)
    if (auto args = parse_server_args(c.image, c.argv)) return args;
  return std::nullopt;
}

const Workload* deployment_of(const std::vector<Workload>& workloads, const ServiceConfig& s) {
  for (const Workload& w : workloads)
    if (w.kind == WorkloadKind::Deployment && w.name == s.deployment_name &&
        w.namespace_name == s.deployment_namespace)
      return &w;
  return nullptr;
}

// A catalog model by the name the server was given: an HF id, a name, or a local path whose last
// part is one.
const ModelSpec* catalog_model(const std::string& given) {
  const ModelCatalog& catalog = bundled_model_catalog();
  if (const ModelSpec* m = catalog.find(given)) return m;
  const auto slash = given.find_last_of('/');
  return slash == std::string::npos ? nullptr : catalog.find(given.substr(slash + 1));
}

class Merge {
 public:
  Merge(ServiceConfig& s, std::size_t index, const Workload& w)
      : s_(s), index_(index), deployment_(w.namespace_name + "/" + w.name) {}

  // The service's value wins only where it agrees; where it is unset the server's fills it.
  template <typename T>
  void field(std::optional<T>& mine, const std::optional<T>& theirs, std::string_view key,
             const SourceLocation& where) {
    if (!theirs) return;
    if (mine && *mine != *theirs)
      throw ConfigError(where, fmt::format("services[{}].{}", index_, key),
                        fmt::format("is {}, but Deployment {}'s server runs with {}: give one "
                                    "value (the server's flags are read as it would run)",
                                    shown(*mine), deployment_, shown(*theirs)));
    mine = theirs;
  }

  void engine(const ServerArgs& a) {
    if (s_.engine_named && s_.engine.kind != a.engine)
      throw ConfigError(s_.engine_where, fmt::format("services[{}].engine.name", index_),
                        fmt::format("is {}, but Deployment {}'s container runs {}",
                                    to_string(s_.engine.kind), deployment_, to_string(a.engine)));
    s_.engine.kind = a.engine;
    EngineOptions& e = s_.engine;
    const SourceLocation& at = s_.engine_where;
    field(e.max_num_seqs, a.max_num_seqs, "engine.max_num_seqs", at);
    field(e.max_num_batched_tokens, a.max_num_batched_tokens, "engine.max_num_batched_tokens", at);
    field(e.tensor_parallel_size, a.tensor_parallel_size, "engine.tensor_parallel_size", at);
    field(e.max_model_len, a.max_model_len, "engine.max_model_len", at);
    field(e.gpu_memory_utilization, a.gpu_memory_utilization, "engine.gpu_memory_utilization", at);
    field(e.enable_chunked_prefill, a.chunked_prefill, "engine.enable_chunked_prefill", at);
  }

  void model(const ServerArgs& a, WarningLog& warnings) {
    const ModelSpec* named = a.model ? catalog_model(*a.model) : nullptr;
    if (s_.model && named && named->name != s_.model->spec.name)
      throw ConfigError(s_.model->where, fmt::format("services[{}].model", index_),
                        fmt::format("is {}, but Deployment {}'s server serves {} ({})",
                                    s_.model->spec.name, deployment_, *a.model, named->name));
    if (!s_.model && named) s_.model = ServiceModel{.spec = *named, .where = s_.where};
    if (!s_.model) {
      assume(warnings, a.model ? fmt::format("its server serves {}, which the catalog does not "
                                             "know (give `model:` its architecture)",
                                             *a.model)
                               : std::string("names no model"));
    }
    field(s_.model->weights, a.weights, "model.dtype", s_.model->where);
    field(s_.model->kv_cache, a.kv_cache, "model.kv_dtype", s_.model->where);
  }

  void assume(WarningLog& warnings, const std::string& why) {
    const ModelSpec* spec = bundled_model_catalog().find(kDefaultModel);
    FLEETSIM_ASSERT(spec != nullptr);
    s_.model = ServiceModel{.spec = *spec, .assumed = true, .where = s_.where};
    // Its own field: the model's other warnings (types kept off) name services[i].model.
    warnings.add(WarningCode::ModelAssumed, s_.where, fmt::format("services[{}]", index_),
                 fmt::format("{}: its speed is that of {} in bf16 on vLLM; name the model it "
                             "serves (`fleetsim models` lists them)",
                             why, kDefaultModel));
  }

 private:
  ServiceConfig& s_;
  std::size_t index_;
  std::string deployment_;
};

}  // namespace

void apply_server_args(std::vector<ServiceConfig>& services, const std::vector<Workload>& workloads,
                       WarningLog& warnings) {
  for (std::size_t i = 0; i < services.size(); ++i) {
    ServiceConfig& s = services[i];
    if (!std::holds_alternative<EngineServiceTime>(s.serving.service_time)) continue;
    const Workload* w = deployment_of(workloads, s);
    FLEETSIM_ASSERT(w != nullptr);  // resolve_service_deployments found it
    Merge merge(s, i, *w);
    const std::optional<ServerArgs> args = server_of(*w);
    if (!args) {
      if (!s.model) merge.assume(warnings, "names no model");
      continue;
    }
    merge.engine(*args);
    merge.model(*args, warnings);
    for (const std::string& problem : args->problems)
      warnings.add(WarningCode::ServerFlagNotRead, s.where,
                   fmt::format("services[{}] server flag {}", i, problem),
                   fmt::format("Deployment {}/{}'s server flag {}; fleetsim runs the engine's "
                               "default instead",
                               w->namespace_name, w->name, problem));
  }
}

}  // namespace fleetsim
