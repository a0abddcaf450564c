#include "fleetsim/report/openmetrics_writer.hpp"

#include <fmt/format.h>

#include <cmath>

#include "fleetsim/core/error.hpp"
#include "fleetsim/disruption/disruption_decision.hpp"
#include "fleetsim/k8s/cluster.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/report/number_format.hpp"

namespace fleetsim {

struct OpenMetricsWriter::Family {
  std::string_view name;
  std::string_view type;
  std::string_view help;
};

namespace {

// The node's NodePool, empty for a node group's node (the pod family's nodepool label).
std::string_view nodepool_label(const Node& n) {
  return n.nodepool() != nullptr ? std::string_view(n.owner_name()) : std::string_view{};
}

// Families in the order they are written. Counters carry _total in their name as the Prometheus
// text format does, which promtool's linter and its OpenMetrics importer both accept.
constexpr std::array<OpenMetricsWriter::Family, 17> kFamilies{{
    {"karpenter_nodes_allocatable", "gauge",
     "Node allocatable are the resources allocatable by nodes."},
    {"karpenter_nodepools_usage", "gauge",
     "The amount of resources that have been provisioned for a nodepool."},
    {"karpenter_nodepools_limit", "gauge",
     "Limits specified on the nodepool that restrict the quantity of resources provisioned."},
    {"karpenter_nodepool_usage", "gauge",
     "The nodepool usage is the amount of resources that have been provisioned by a particular "
     "nodepool (before Karpenter v1)."},
    {"karpenter_nodepool_limit", "gauge",
     "The nodepool limits are the limits specified on the nodepool (before Karpenter v1)."},
    {"karpenter_nodeclaims_launched_total", "counter",
     "Number of nodeclaims launched in total by Karpenter."},
    {"karpenter_nodeclaims_terminated_total", "counter",
     "Number of nodeclaims terminated in total by Karpenter."},
    {"karpenter_pods_state", "gauge", "Pod state is the current state of pods."},
    {"karpenter_disruption_actions_performed_total", "counter",
     "Number of disruption actions performed."},
    {"kube_deployment_status_replicas", "gauge", "The number of replicas per deployment."},
    {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."},
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active."},
    {"vllm:num_requests_running", "gauge", "Number of requests currently running on GPU."},
    {"vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed."},
    {"vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage."},
    {"vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage."},
    {"fleetsim_cost_usd_per_hour", "gauge",
     "The fleet's cost rate (instances, EBS and EKS Auto Mode's fee), USD per hour."},
}};

enum FamilyIndex : std::size_t {
  kAllocatable,
  kPoolsUsage,
  kPoolsLimit,
  kPoolUsage,
  kPoolLimit,
  kLaunched,
  kTerminated,
  kPodsState,
  kDisruptions,
  kDeploymentReplicas,
  kDcgmUtil,
  kDcgmEngineActive,
  kVllmRunning,
  kVllmWaiting,
  kVllmGpuCacheUsage,
  kVllmKvCacheUsage,
  kCostRate
};

std::size_t family_of(std::string_view metric) {
  for (std::size_t i = 0; i < kFamilies.size(); ++i)
    if (kFamilies[i].name == metric) return i;
  return kFamilies.size();
}

// OpenMetrics label values escape backslash, quote and newline.
std::string escaped(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    out += c == '\n' ? 'n' : c;
  }
  return out;
}

std::string labels_text(
    std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}=\"{}\"", k, escaped(v));
  }
  return out;
}

// The resources a node or pool reports, in Kubernetes' units (cpu in cores).
std::vector<std::pair<std::string_view, double>> resources(const Resources& r) {
  std::vector<std::pair<std::string_view, double>> out;
  auto add = [&](std::string_view name, double v) {
    if (v > 0) out.emplace_back(name, v);
  };
  add("cpu", static_cast<double>(r.cpu_millis()) / 1000.0);
  add("memory", static_cast<double>(r.memory_bytes()));
  add("pods", static_cast<double>(r.pods()));
  add("nvidia.com/gpu", static_cast<double>(r[resource::kNvidiaGpu]));
  add("aws.amazon.com/neuron", static_cast<double>(r[resource::kNeuron]));
  return out;
}

std::string_view label_of(const Node& n, std::string_view key) {
  const Requirement* r = n.labels.get(key);
  if (r == nullptr) return {};
  return r->single_value().value_or(std::string_view{});
}

}  // namespace

OpenMetricsWriter::OpenMetricsWriter(std::filesystem::path spool_dir, std::int64_t start_unix_s,
                                     std::span<const NodePool> pools, const Catalog& catalog,
                                     std::span<const double> fee_by_type)
    : spool_dir_(std::move(spool_dir)),
      start_unix_s_(start_unix_s),
      pools_(pools.begin(), pools.end()),
      catalog_(&catalog),
      fee_by_type_(fee_by_type.begin(), fee_by_type.end()) {
  std::error_code ec;
  std::filesystem::create_directories(spool_dir_, ec);
  for (std::size_t i = 0; i < kFamilies.size(); ++i) {
    spools_.push_back(std::make_unique<std::ofstream>(spool_dir_ / std::to_string(i),
                                                      std::ios::binary | std::ios::trunc));
    if (ec || !*spools_.back())
      throw InputError(SourceLocation{.file = spool_dir_.string()}, "--metrics-out",
                       "cannot write the metrics' spool here");
  }
}

OpenMetricsWriter::~OpenMetricsWriter() {
  spools_.clear();
  std::error_code ec;
  std::filesystem::remove_all(spool_dir_, ec);
}

void OpenMetricsWriter::sample(std::size_t family, const std::string& labels, double value) {
  std::string line(kFamilies[family].name);
  line += '{';
  line += labels;
  line += "} ";
  append_decimal(line, value, /*keep_point=*/false);
  line += ' ';
  line += timestamp_;
  line += '\n';
  *spools_[family] << line;
}

void OpenMetricsWriter::on_event(const SimEvent& e, const Cluster& cluster) {
  // Karpenter's families count Karpenter's nodes: not those of eksctl node groups.
  if (e.node != kNoNode && subject_of(e.kind) == EventSubject::Node &&
      cluster.node(e.node).nodepool() == nullptr)
    return;
  if (e.kind == EventKind::NodeLaunched) {
    launched_[labels_text({{"nodepool", cluster.node(e.node).owner_name()}})] += 1;
  } else if (e.kind == EventKind::NodeTerminated) {
    const Node& n = cluster.node(e.node);
    terminated_[labels_text({{"capacity_type", to_string(n.capacity_type)},
                             {"nodepool", n.owner_name()},
                             {"zone", n.zone}})] += 1;
  } else if (e.kind == EventKind::DisruptionDecision) {
    disruptions_[labels_text({{"action", e.decision->replacements.empty() ? "delete" : "replace"},
                              {"method", e.decision->method}})] += 1;
  }
}

void OpenMetricsWriter::on_sample(std::string_view metric, const LabelSet& labels, SimTime,
                                  double value) {
  if (family_of(metric) == kFamilies.size()) return;
  std::string text;
  for (const Label& l : labels) {
    if (!text.empty()) text += ',';
    text += fmt::format("{}=\"{}\"", l.name, escaped(l.value));
  }
  auto key = std::pair{std::string(metric), std::move(text)};
  if (is_stale_marker(value)) {
    scraped_.erase(key);  // the pod went: its series ends
  } else {
    scraped_[std::move(key)] = value;
  }
}

void OpenMetricsWriter::on_interval(SimTime now, const Cluster& cluster) {
  const std::int64_t micros_since = now.time_since_epoch().count();
  timestamp_ = std::to_string(start_unix_s_ + micros_since / 1'000'000);
  if (micros_since % 1'000'000 != 0) timestamp_ += fmt::format(".{:06}", micros_since % 1'000'000);

  std::map<std::string, Resources, std::less<>> pool_usage;
  double cost_rate = 0;
  for (NodeId id : cluster.active_nodes()) {
    const Node& n = cluster.node(id);
    if (n.phase == NodePhase::Terminated) continue;
    if (n.phase != NodePhase::Launching) {
      cost_rate += n.price_per_hour + n.ebs_price_per_hour;
      if (n.type < fee_by_type_.size()) cost_rate += fee_by_type_[n.type];
    }
    if (n.nodepool() == nullptr) continue;                             // not Karpenter's
    pool_usage[n.owner_name()] += catalog_->types()[n.type].capacity;  // limits count capacity
    // A Node object exists from registration until it is deleted.
    if (!n.is_live() || n.phase == NodePhase::Launching || n.phase == NodePhase::Launched) continue;
    for (const auto& [resource, v] : resources(n.allocatable)) {
      sample(kAllocatable,
             labels_text({{"arch", label_of(n, label::kArch)},
                          {"capacity_type", to_string(n.capacity_type)},
                          {"instance_type", n.instance_type},
                          {"node_name", n.name},
                          {"nodepool", n.owner_name()},
                          {"resource_type", resource},
                          {"zone", n.zone}}),
             v);
    }
  }
  for (const auto& [pool, usage] : pool_usage) {
    for (const auto& [resource, v] : resources(usage)) {
      const std::string l = labels_text({{"nodepool", pool}, {"resource_type", resource}});
      sample(kPoolsUsage, l, v);
      sample(kPoolUsage, l, v);
    }
  }
  for (const NodePool& pool : pools_) {
    if (!pool.limits.resources) continue;
    Resources limited;
    for (ResourceIndex r = 0; r < resource::kMaxResources; ++r)
      if (pool.limits.set_mask[r] != 0) limited[r] = (*pool.limits.resources)[r];
    for (const auto& [resource, v] : resources(limited)) {
      const std::string l = labels_text({{"nodepool", pool.name}, {"resource_type", resource}});
      sample(kPoolsLimit, l, v);
      sample(kPoolLimit, l, v);
    }
  }
  for (const auto& [l, v] : launched_) sample(kLaunched, l, v);
  for (const auto& [l, v] : terminated_) sample(kTerminated, l, v);
  for (const auto& [l, v] : disruptions_) sample(kDisruptions, l, v);

  std::map<WorkloadId, std::int64_t> replicas;
  for (const Pod& p : cluster.pods()) {
    const WorkloadRecord& w = cluster.workloads().at(p.workload);
    if (w.kind == WorkloadKind::Deployment && !p.terminating) ++replicas[p.workload];
    const bool bound = p.node != kNoNode;
    sample(kPodsState,
           labels_text({{"name", p.name},
                        {"namespace", p.namespace_name},
                        {"node", bound ? std::string_view(cluster.node(p.node).name) : ""},
                        {"nodepool", bound ? nodepool_label(cluster.node(p.node)) : ""},
                        {"owner", w.name},
                        {"phase", !bound      ? "Pending"
                                  : p.started ? "Running"
                                              : "ContainerCreating"}}),
           1);
  }
  for (const auto& [id, n] : cluster.workloads())
    if (n.kind == WorkloadKind::Deployment)
      sample(kDeploymentReplicas,
             labels_text({{"deployment", n.name}, {"namespace", n.namespace_name}}),
             static_cast<double>(replicas[id]));
  for (const auto& [key, v] : scraped_) sample(family_of(key.first), key.second, v);
  sample(kCostRate, "", cost_rate);
}

void OpenMetricsWriter::finish(std::ostream& out) {
  for (std::size_t i = 0; i < kFamilies.size(); ++i) {
    spools_[i]->close();
    out << fmt::format("# HELP {} {}\n# TYPE {} {}\n", kFamilies[i].name, kFamilies[i].help,
                       kFamilies[i].name, kFamilies[i].type);
    std::ifstream in(spool_dir_ / std::to_string(i), std::ios::binary);
    // Streaming an empty buffer sets failbit (no character inserted): a family without samples
    // (no NodePool limit, say) is no write error.
    if (in.peek() != std::ifstream::traits_type::eof()) out << in.rdbuf();
  }
  out << "# EOF\n";
}

}  // namespace fleetsim
