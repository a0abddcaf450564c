#include "fleetsim/catalog/instance_labels.hpp"

#include <array>
#include <cmath>
#include <utility>
#include <vector>

namespace fleetsim {

namespace {

// Karpenter's AMI families all run Linux here; Windows nodes are not modelled.
constexpr std::string_view kLinux = "linux";
constexpr double kMbpsPerGbps = 1000.0;

void add_single(Requirements& r, std::string_view key, std::string value) {
  r.add(std::string(key), Requirement::single(std::move(value)));
}

void add_absent(Requirements& r, std::string_view key) {
  r.add(std::string(key), Requirement::does_not_exist());
}

}  // namespace

std::string lower_kebab_case(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == ' ') {
      out.push_back('-');
    } else if (c >= 'A' && c <= 'Z') {
      out.push_back(static_cast<char>(c - 'A' + 'a'));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string_view accelerator_manufacturer_for(std::string_view accelerator_name) {
  // Names as EC2 reports them (lower kebab case); AWS builds Inferentia and Trainium.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kPrefixes{{
      {"inferentia", "aws"},
      {"trainium", "aws"},
      {"qualcomm", "qualcomm"},
  }};
  std::string name = lower_kebab_case(accelerator_name);
  for (auto [prefix, manufacturer] : kPrefixes)
    if (std::string_view(name).starts_with(prefix)) return manufacturer;
  return {};
}

Requirements compute_requirements(const InstanceType& t) {
  Requirements r;
  add_single(r, label::kInstanceType, t.name);
  add_single(r, label::kArch, t.arch);
  add_single(r, label::kOs, std::string(kLinux));
  add_single(r, label::kInstanceCategory, t.category);
  add_single(r, label::kInstanceFamily, t.family);
  add_single(r, label::kInstanceGeneration, std::to_string(t.generation));
  add_single(r, label::kInstanceSize, t.size);
  add_single(r, label::kInstanceCpu, std::to_string(t.vcpu));
  add_single(r, label::kInstanceMemory, std::to_string(t.memory_mib));
  // Karpenter sets the bandwidth label only for types in its bandwidth table.
  if (t.network_gbps > 0) {
    add_single(r, label::kInstanceNetworkBandwidth,
               std::to_string(std::llround(t.network_gbps * kMbpsPerGbps)));
  } else {
    add_absent(r, label::kInstanceNetworkBandwidth);
  }

  // Karpenter labels a GPU whenever EC2 names exactly one GPU model, even a fractional one (g6f:
  // an L4 slice with gpu-count 0), so presence follows the name rather than the count.
  if (!t.gpu_name.empty()) {
    add_single(r, label::kGpuName, lower_kebab_case(t.gpu_name));
    add_single(r, label::kGpuManufacturer, lower_kebab_case(t.gpu_manufacturer));
    add_single(r, label::kGpuCount, std::to_string(t.gpu_count));
    add_single(r, label::kGpuMemory, std::to_string(t.gpu_memory_mib));
  } else {
    for (auto key : {label::kGpuName, label::kGpuManufacturer, label::kGpuCount, label::kGpuMemory})
      add_absent(r, key);
  }

  if (!t.accelerator_name.empty()) {
    add_single(r, label::kAcceleratorName, lower_kebab_case(t.accelerator_name));
    std::string manufacturer = t.accelerator_manufacturer.empty()
                                   ? std::string(accelerator_manufacturer_for(t.accelerator_name))
                                   : lower_kebab_case(t.accelerator_manufacturer);
    if (manufacturer.empty()) {
      add_absent(r, label::kAcceleratorManufacturer);
    } else {
      add_single(r, label::kAcceleratorManufacturer, std::move(manufacturer));
    }
    add_single(r, label::kAcceleratorCount, std::to_string(t.accelerator_count));
  } else {
    for (auto key :
         {label::kAcceleratorName, label::kAcceleratorManufacturer, label::kAcceleratorCount})
      add_absent(r, key);
  }

  // Karpenter lists only available offerings; every catalog offering starts available.
  std::vector<std::string> zones, capacity_types;
  for (const auto& o : t.offerings) {
    zones.push_back(o.zone);
    capacity_types.emplace_back(to_string(o.capacity_type));
  }
  r.add(std::string(label::kZone), Requirement::make(Operator::In, std::move(zones)));
  r.add(std::string(label::kCapacityType),
        Requirement::make(Operator::In, std::move(capacity_types)));
  return r;
}

}  // namespace fleetsim
