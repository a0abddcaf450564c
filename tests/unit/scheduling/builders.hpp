// Small builders for scheduler tests: a hand-made catalog, pools and pods.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "fleetsim/catalog/aws_node_sizing.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/scheduling/scheduler.hpp"

namespace fleetsim::test {

struct TypeSpec {
  std::string name;
  int vcpu = 2;
  std::int64_t memory_gib = 8;
  int max_pods = 29;
  int gpus = 0;
  std::string gpu_name;
  std::int64_t gpu_memory_mib = 22888;  // usable, as the catalog gives it (an A10G's)
  double on_demand = 0.1;
  double spot = 0;  // 0 = no spot offering
  std::vector<std::string> zones = {"us-east-1a", "us-east-1b"};
};

inline InstanceType make_type(const TypeSpec& s) {
  InstanceType t;
  t.name = s.name;
  t.family = s.name.substr(0, s.name.find('.'));
  t.category = t.family.substr(0, 1);
  t.generation = t.family.size() > 1 ? t.family[t.family.find_first_of("0123456789")] - '0' : 0;
  t.size = s.name.substr(s.name.find('.') + 1);
  t.arch = "amd64";
  t.vcpu = s.vcpu;
  t.memory_mib = s.memory_gib * 1024;
  t.max_pods = s.max_pods;
  t.gpu_count = s.gpus;
  if (s.gpus > 0) {
    t.gpu_name = s.gpu_name;
    t.gpu_manufacturer = "nvidia";
    t.gpu_memory_mib = s.gpu_memory_mib;
  }
  for (const auto& z : s.zones) {
    t.offerings.push_back(Offering{
        .zone = z, .capacity_type = CapacityType::OnDemand, .price_per_hour = s.on_demand});
    if (s.spot > 0)
      t.offerings.push_back(Offering{.zone = z,
                                     .capacity_type = CapacityType::Spot,
                                     .price_per_hour = s.spot,
                                     .interruption_bucket = "<5%"});
  }
  apply_aws_sizing(t);
  return t;
}

// Each catalog type's allocatable for a NodeClass's kubelet settings, as the cloud provider
// sizes nodes (SchedulingContext receives it).
inline std::vector<Resources> sized_allocatable(const Catalog& catalog,
                                                const KubeletSizing& kubelet) {
  std::vector<Resources> out;
  for (const InstanceType& t : catalog.types())
    out.push_back(size_instance_type(t, kubelet).allocatable);
  return out;
}

// m5 and c5 CPU types, g4dn and g5 GPU types, two zones; prices are us-east-1 on-demand.
inline Catalog small_catalog() {
  std::vector<InstanceType> types{
      make_type({.name = "m5.large",
                 .vcpu = 2,
                 .memory_gib = 8,
                 .max_pods = 29,
                 .on_demand = 0.096,
                 .spot = 0.04}),
      make_type({.name = "m5.xlarge",
                 .vcpu = 4,
                 .memory_gib = 16,
                 .max_pods = 58,
                 .on_demand = 0.192,
                 .spot = 0.08}),
      make_type({.name = "m5.2xlarge",
                 .vcpu = 8,
                 .memory_gib = 32,
                 .max_pods = 58,
                 .on_demand = 0.384,
                 .spot = 0.16}),
      make_type(
          {.name = "c5.large", .vcpu = 2, .memory_gib = 4, .max_pods = 29, .on_demand = 0.085}),
      make_type({.name = "g4dn.xlarge",
                 .vcpu = 4,
                 .memory_gib = 16,
                 .max_pods = 29,
                 .gpus = 1,
                 .gpu_name = "t4",
                 .gpu_memory_mib = 16384,
                 .on_demand = 0.526,
                 .spot = 0.22}),
      make_type({.name = "g5.xlarge",
                 .vcpu = 4,
                 .memory_gib = 16,
                 .max_pods = 58,
                 .gpus = 1,
                 .gpu_name = "a10g",
                 .on_demand = 1.006,
                 .spot = 0.45}),
      make_type({.name = "g5.2xlarge",
                 .vcpu = 8,
                 .memory_gib = 32,
                 .max_pods = 58,
                 .gpus = 1,
                 .gpu_name = "a10g",
                 .on_demand = 1.212,
                 .spot = 0.52}),
      make_type({.name = "g5.12xlarge",
                 .vcpu = 48,
                 .memory_gib = 192,
                 .max_pods = 737,
                 .gpus = 4,
                 .gpu_name = "a10g",
                 .on_demand = 5.672,
                 .spot = 2.1}),
  };
  std::sort(types.begin(), types.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return Catalog(std::move(types), "test");
}

struct PodArgs {
  std::int64_t cpu_millis = 100;
  std::int64_t memory_mib = 128;
  int gpus = 0;
};

inline PodSpec make_pod(const PodArgs& a) {
  PodSpec s;
  s.requests[resource::kCpu] = a.cpu_millis;
  s.requests[resource::kMemory] = a.memory_mib << 20;
  s.requests[resource::kPods] = 1;
  s.requests[resource::kNvidiaGpu] = a.gpus;
  return s;
}

inline NodePool make_pool(std::string name, int weight = 0) {
  NodePool p;
  p.name = std::move(name);
  p.weight = weight;
  return p;
}

inline Requirement in(std::vector<std::string> values) {
  return Requirement::make(Operator::In, std::move(values));
}

// Holds what a SolveInput points to.
struct Problem {
  std::deque<PodSpec> specs;
  std::vector<PendingPod> pods;
  std::vector<std::string> uids;
  Labels no_labels;
  std::deque<Labels> label_sets;

  // Pods of one spec carrying `labels`; returns the index of the first.
  std::uint32_t add(const PodSpec& spec, int copies, Labels labels) {
    label_sets.push_back(std::move(labels));
    const auto first = static_cast<std::uint32_t>(pods.size());
    add(spec, copies);
    for (std::size_t i = first; i < pods.size(); ++i) pods[i].labels = &label_sets.back();
    return first;
  }
  void add(const PodSpec& spec, int copies = 1) {
    specs.push_back(spec);
    for (int i = 0; i < copies; ++i) {
      uids.push_back("pod-" + std::to_string(pods.size()));
    }
    for (int i = 0; i < copies; ++i) {
      std::size_t n = pods.size();
      pods.push_back(PendingPod{.spec = &specs.back(),
                                .labels = &no_labels,
                                .namespace_name = "default",
                                .created_us = static_cast<std::int64_t>(n),
                                .uid = {}});
    }
  }
  SolveInput input() {
    for (std::size_t i = 0; i < pods.size(); ++i) pods[i].uid = uids[i];
    return SolveInput{.pods = pods};
  }
};

inline std::vector<std::string> type_names(const Catalog& c, const NewNodeClaim& claim) {
  std::vector<std::string> out;
  for (auto t : claim.types) out.push_back(c.types()[t].name);
  return out;
}

}  // namespace fleetsim::test
