#include "fleetsim/scenario/capacity_buffer_decoder.hpp"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/resource_decoder.hpp"

namespace fleetsim {

namespace {

CapacityBuffer::ScalableRef decode_scalable_ref(const YamlValue& value) {
  YamlMap m(value);
  CapacityBuffer::ScalableRef ref;
  if (auto g = m.get("apiGroup")) ref.api_group = g->as_string();
  YamlValue kind = m.require("kind");
  ref.kind = kind.as_string();
  YamlValue name = m.require("name");
  ref.name = name.as_string();
  if (ref.name.empty()) name.fail("must not be empty");
  // fleetsim's scalable workloads are Deployments (apps/v1).
  if (ref.kind != "Deployment" || (!ref.api_group.empty() && ref.api_group != "apps"))
    kind.fail(
        fmt::format("a scalableRef to {}{}{} is not modelled; fleetsim scales Deployments "
                    "(apiGroup: apps, kind: Deployment)",
                    ref.api_group, ref.api_group.empty() ? "" : "/", ref.kind));
  m.reject_unread(std::array<std::string_view, 3>{"apiGroup", "kind", "name"});
  return ref;
}

}  // namespace

CapacityBuffer decode_capacity_buffer(const YamlMap& manifest, DecodeContext& ctx) {
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  CapacityBuffer b{.name = meta.name, .namespace_name = meta.namespace_name, .where = meta.where};
  YamlValue spec_value = manifest.require("spec");
  YamlMap spec(spec_value);
  if (auto v = spec.get("provisioningStrategy")) b.provisioning_strategy = v->as_string();
  if (auto v = spec.get("podTemplateRef")) {
    YamlMap ref(*v);
    YamlValue name = ref.require("name");
    b.pod_template_ref = name.as_string();
    if (b.pod_template_ref->empty()) name.fail("must not be empty");
    ref.reject_unread(std::array<std::string_view, 1>{"name"});
  }
  if (auto v = spec.get("scalableRef")) b.scalable_ref = decode_scalable_ref(*v);
  // The CRD's minimum is 0; a replicas or percentage below fails as the API server refuses it.
  if (auto v = spec.get("replicas"))
    b.replicas = static_cast<std::int32_t>(v->as_int(0, kInt32Max));
  // Upstream's CRD accepts any percentage from 0; above 100 is refused here as a typo.
  if (auto v = spec.get("percentage")) b.percentage = static_cast<std::int32_t>(v->as_int(0, 100));
  if (auto v = spec.get("limits")) {
    ResourceList list = decode_resource_list(*v, ctx, ResourceListUse::NodePoolLimits);
    b.limits = CapacityBufferLimits{.values = list.amounts, .set_mask = list.set_mask};
  }
  // The CRD's validation rules (x-kubernetes-validations).
  if (b.pod_template_ref && b.scalable_ref)
    spec_value.fail("You must define either PodTemplateRef or ScalableRef, but not both");
  if (b.pod_template_ref && !b.replicas && !b.limits)
    spec_value.fail("If podTemplateRef is set, replicas or limits must also be set");
  if (!b.pod_template_ref && !b.scalable_ref)
    spec_value.fail(
        "a CapacityBuffer needs podTemplateRef or scalableRef (upstream marks it "
        "ReadyForProvisioning=False, ResolutionFailed, and provisions nothing)");
  spec.check_unread(ctx.warnings, ctx.kind, api::CapacityBufferSpec);
  return b;
}

}  // namespace fleetsim
