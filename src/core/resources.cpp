#include "fleetsim/core/resources.hpp"

namespace fleetsim {

ResourceRegistry::ResourceRegistry()
    : names_{"cpu",
             "memory",
             "pods",
             "ephemeral-storage",
             "nvidia.com/gpu",
             "amd.com/gpu",
             "aws.amazon.com/neuron",
             "aws.amazon.com/neuroncore",
             "vpc.amazonaws.com/efa",
             "habana.ai/gaudi"} {}

std::optional<ResourceIndex> ResourceRegistry::find(std::string_view name) const {
  for (std::size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<ResourceIndex>(i);
  }
  return std::nullopt;
}

std::optional<ResourceIndex> ResourceRegistry::intern(std::string_view name) {
  if (auto found = find(name)) return found;
  if (names_.size() >= resource::kMaxResources) return std::nullopt;
  names_.emplace_back(name);
  return static_cast<ResourceIndex>(names_.size() - 1);
}

bool is_byte_resource(std::string_view name) {
  return name == "memory" || name == "ephemeral-storage" || name.starts_with("hugepages-");
}

}  // namespace fleetsim
