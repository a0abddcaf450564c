#include "fleetsim/scenario/node_overlay_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/requirement_decoder.hpp"
#include "fleetsim/scenario/resource_decoder.hpp"

namespace fleetsim {

namespace {

// Karpenter's v1.WellKnownResources: a NodeOverlay may not change them (validateCapacity).
constexpr std::array<std::string_view, 4> kWellKnownResources{"cpu", "memory", "ephemeral-storage",
                                                              "pods"};

void decode_capacity(const YamlValue& value, DecodeContext& ctx, NodeOverlay& out) {
  out.has_capacity = true;
  if (value.is_null()) return;
  YamlMap map(value);
  for (const auto& e : map.entries()) {
    if (std::find(kWellKnownResources.begin(), kWellKnownResources.end(), e.key) !=
        kWellKnownResources.end()) {
      throw ConfigError(e.key_where, e.value.path(),
                        fmt::format("invalid capacity: {} in resource, restricted: a NodeOverlay "
                                    "sets extended resources only (such as nvidia.com/gpu or "
                                    "nvidia.com/mig-3g.40gb), never cpu, memory, "
                                    "ephemeral-storage or pods",
                                    e.key));
    }
    if (e.key == "nodes") {
      throw ConfigError(e.key_where, e.value.path(),
                        "unknown resource \"nodes\"; extended resources are named with a domain, "
                        "such as nvidia.com/gpu");
    }
  }
  const ResourceList list = decode_resource_list(value, ctx, ResourceListUse::NodePoolLimits);
  for (std::size_t i = 0; i < resource::kMaxResources; ++i) {
    const auto slot = static_cast<ResourceIndex>(i);
    if (list.set_mask[slot] != 0) out.capacity.emplace_back(slot, list.amounts[slot]);
  }
  std::sort(out.capacity.begin(), out.capacity.end(), [&](const auto& a, const auto& b) {
    return ctx.resources.name(a.first) < ctx.resources.name(b.first);
  });
}

}  // namespace

NodeOverlay decode_node_overlay(const YamlMap& manifest, DecodeContext& ctx) {
  NodeOverlay out;
  const ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  out.name = meta.name;
  out.where = meta.where;
  const YamlValue spec_value = manifest.require("spec");
  YamlMap spec(spec_value);
  if (auto r = spec.get("requirements"); r && !r->is_null())
    decode_requirements(*r, RequirementSource::NodeOverlay, ctx, out.requirements);
  if (auto c = spec.get("capacity")) decode_capacity(*c, ctx, out);
  const std::optional<YamlValue> price = spec.get("price");
  const std::optional<YamlValue> adjustment = spec.get("priceAdjustment");
  if (price && adjustment) spec_value.fail("cannot set both 'price' and 'priceAdjustment'");
  if (price) {
    const std::string text = price->as_string();
    std::optional<OverlayPrice> p = parse_overlay_price(text);
    if (!p)
      price->fail(
          fmt::format("\"{}\" is not a price: give an unsigned decimal such as 0.75 "
                      "(dollars an hour; use priceAdjustment for a change)",
                      text.substr(0, 40)));
    out.price = std::move(*p);
  }
  if (adjustment) {
    const std::string text = adjustment->as_string();
    std::optional<OverlayPrice> p = parse_price_adjustment(text);
    if (!p)
      adjustment->fail(fmt::format(
          "\"{}\" is not a price adjustment: give a signed amount (+0.5, -1.2) or percentage "
          "(+10%, -15%; a cut of at most -100%)",
          text.substr(0, 40)));
    out.price = std::move(*p);
  }
  if (auto w = spec.get("weight"))
    out.weight = static_cast<std::int32_t>(w->as_int(kMinOverlayWeight, kMaxOverlayWeight));
  spec.check_unread(ctx.warnings, ctx.kind, api::NodeOverlaySpec);
  return out;
}

}  // namespace fleetsim
