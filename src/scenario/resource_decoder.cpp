#include "fleetsim/scenario/resource_decoder.hpp"

#include <fmt/format.h>

#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

bool is_accelerator_device(std::string_view name) {
  return name == "nvidia.com/gpu" || name == "amd.com/gpu" || name == "aws.amazon.com/neuron" ||
         name == "habana.ai/gaudi" || name.starts_with("nvidia.com/mig-");
}

// The largest plausible per-pod amount of a resource, in its slot's unit.
std::int64_t pod_bound(std::string_view name) {
  if (name == "cpu") return kMaxPodCpuMillis;
  if (is_byte_resource(name)) return kMaxPodBytes;
  if (is_accelerator_device(name)) return kMaxPodAccelerators;
  return kMaxPodExtendedUnits;
}

std::string format_amount(std::string_view name, std::int64_t v) {
  if (name == "cpu") return format_millicores(v);
  if (is_byte_resource(name)) return format_bytes(v);
  return fmt::format("{}", v);
}

// Kubernetes accepts the standard names and anything with a domain prefix (extended resources).
bool is_valid_resource_name(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" || name == "pods" ||
         name.starts_with("hugepages-") || name.find('/') != std::string_view::npos;
}

}  // namespace

ResourceList decode_resource_list(const YamlValue& value, DecodeContext& ctx, ResourceListUse use) {
  ResourceList out;
  YamlMap map(value);
  for (const auto& e : map.entries()) {
    e.read = true;
    const std::string& name = e.key;
    const YamlValue& v = e.value;
    if (use == ResourceListUse::NodePoolLimits && name == "nodes") {
      // Karpenter reads a `nodes` limit as a count of nodes.
      Quantity q = v.as_quantity();
      if (q.milli % 1000 != 0) v.fail("the node count must be a whole number");
      out.nodes = q.milli / 1000;
      continue;
    }
    if (!is_valid_resource_name(name)) {
      throw ConfigError(e.key_where, v.path(),
                        fmt::format("unknown resource \"{}\"; extended resources are named with a "
                                    "domain, such as nvidia.com/gpu",
                                    name.substr(0, 80)));
    }
    if (use == ResourceListUse::PodRequests && name == "pods") {
      throw ConfigError(e.key_where, v.path(), "containers cannot request \"pods\"");
    }
    if (v.is_null()) v.fail("expected a quantity, got null");
    Quantity q = v.as_quantity();
    std::int64_t amount = 0;
    if (name == "cpu") {
      amount = q.milli;
    } else if (is_byte_resource(name)) {
      amount = q.value_ceil();
    } else {
      if (q.milli % 1000 != 0) v.fail(fmt::format("{} must be a whole number", name));
      amount = q.milli / 1000;
    }
    if (use == ResourceListUse::PodRequests && amount > pod_bound(name)) {
      v.fail(fmt::format("{} {} is beyond any instance (at most {})", format_amount(name, amount),
                         name, format_amount(name, pod_bound(name))));
    }
    std::optional<ResourceIndex> slot = ctx.resources.intern(name);
    if (!slot) {
      throw ConfigError(e.key_where, v.path(),
                        fmt::format("too many distinct resources; fleetsim tracks at most {}",
                                    resource::kMaxResources));
    }
    out.amounts[*slot] = amount;
    out.set_mask[*slot] = 1;
  }
  return out;
}

void check_pod_request_bounds(const Resources& total, const ResourceRegistry& registry,
                              const YamlValue& where) {
  for (std::size_t i = 0; i < registry.size(); ++i) {
    auto slot = static_cast<ResourceIndex>(i);
    const std::string& name = registry.name(slot);
    if (total[slot] > pod_bound(name)) {
      where.fail(fmt::format("the pod requests {} {} in all, beyond any instance (at most {})",
                             format_amount(name, total[slot]), name,
                             format_amount(name, pod_bound(name))));
    }
  }
}

}  // namespace fleetsim
