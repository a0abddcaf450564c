#include "fleetsim/scenario/pdb_decoder.hpp"

#include <fmt/format.h>

#include <array>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/selector_decoder.hpp"

namespace fleetsim {

PodDisruptionBudgetSpec decode_pdb(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  PodDisruptionBudgetSpec pdb{.name = meta.name, .where = meta.where};
  if (!meta.namespace_name.empty()) pdb.namespace_name = meta.namespace_name;
  YamlValue spec_value = manifest.require("spec");
  YamlMap spec(spec_value);
  if (auto v = spec.get("minAvailable")) pdb.min_available = decode_int_or_percent(*v);
  if (auto v = spec.get("maxUnavailable")) pdb.max_unavailable = decode_int_or_percent(*v);
  // The API server's validation: one of the two, not both.
  if (pdb.min_available && pdb.max_unavailable)
    spec_value.fail("minAvailable and maxUnavailable cannot both be set");
  if (!pdb.min_available && !pdb.max_unavailable)
    spec_value.fail("a PodDisruptionBudget needs minAvailable or maxUnavailable");
  // policy/v1: a null selector selects no pod, an empty one every pod of the namespace.
  if (auto selector = spec.get("selector"); selector && !selector->is_null())
    pdb.selector = decode_label_selector(*selector, ctx);
  if (auto policy = spec.get("unhealthyPodEvictionPolicy")) {
    const std::string text = policy->as_string();
    if (text == "AlwaysAllow") {
      pdb.unhealthy_pod_eviction_policy = UnhealthyPodEvictionPolicy::AlwaysAllow;
    } else if (text != "IfHealthyBudget") {
      static constexpr std::array<std::string_view, 2> kPolicies{"IfHealthyBudget", "AlwaysAllow"};
      policy->fail(
          fmt::format("unknown unhealthyPodEvictionPolicy \"{}\"; expected "
                      "IfHealthyBudget or AlwaysAllow{}",
                      text.substr(0, 40), did_you_mean(text, kPolicies)));
    }
  }
  spec.check_unread(ctx.warnings, ctx.kind, api::PodDisruptionBudgetSpec);
  return pdb;
}

}  // namespace fleetsim
