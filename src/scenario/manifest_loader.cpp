#include "fleetsim/scenario/manifest_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "fleetsim/scenario/capacity_buffer_decoder.hpp"
#include "fleetsim/scenario/cluster_autoscaler_decoder.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/eksctl_decoder.hpp"
#include "fleetsim/scenario/hpa_decoder.hpp"
#include "fleetsim/scenario/manifest_kinds.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/node_overlay_decoder.hpp"
#include "fleetsim/scenario/nodeclass_decoder.hpp"
#include "fleetsim/scenario/nodepool_decoder.hpp"
#include "fleetsim/scenario/pdb_decoder.hpp"
#include "fleetsim/scenario/scaled_object_decoder.hpp"
#include "fleetsim/scenario/scheduler_config_decoder.hpp"

namespace fleetsim {

void ManifestLoader::load_file(const std::filesystem::path& path,
                               const SourceLocation& referenced_from, std::string_view field,
                               ManifestSet& out) {
  YamlDocuments docs = load_yaml_file(path, referenced_from, field);
  files_.push_back(path);
  for (const YAML::Node& doc : docs.documents) load_manifest(YamlValue(doc, docs.file), out);
}

void ManifestLoader::load_manifest(const YamlValue& manifest, ManifestSet& out) {
  if (manifest.is_null()) return;  // an empty document between two "---"
  for (std::size_t i = 0; i < overrides_.size(); ++i) {
    if (!override_matches(manifest.node(), overrides_[i])) continue;
    apply_override(manifest.node(), overrides_[i]);
    ++hits_[i];
  }
  YamlMap m(manifest);
  YamlValue api_value = m.require("apiVersion");
  YamlValue kind_value = m.require("kind");
  std::string api = api_value.as_string();
  std::string kind = kind_value.as_string();
  m.ignore({"status"});  // written by controllers, never read back

  if (kind == "ConfigMap" && api == "v1") {
    // The one ConfigMap fleetsim reads: the Cluster Autoscaler's priority expander's.
    const std::optional<YamlValue> md = m.get("metadata");
    const std::optional<YamlValue> name = md ? YamlMap(*md).get("name") : std::nullopt;
    if (name && name->as_string() == kPriorityExpanderConfigMap) {
      out.expander_priorities =
          decode_expander_priorities(YamlMap(m.require("data")).require("priorities"));
      out.expander_priorities_where = name->where();
      if (auto ns = YamlMap(*md).get("namespace")) {
        out.expander_priorities_namespace = ns->as_string();
        out.expander_priorities_namespace_where = ns->where();
      }
      return;
    }
    // Read once gpu_operator names its device plugin's ConfigMap; the others are unmodelled then.
    m.ignore({"metadata", "immutable", "binaryData"});
    out.config_maps.push_back({.name = name ? name->as_string() : std::string(),
                               .where = kind_value.where(),
                               .data = m.get("data")});
    return;
  }
  // scheduler-plugins' coscheduling PodGroup shares the kind's name with Kubernetes' own.
  if (kind == "PodGroup" && api.starts_with("scheduling.x-k8s.io/")) {
    warnings_.add_unmodelled(kind_value.where(), kind,
                             "scheduler-plugins' coscheduling PodGroup is not modelled; ignored "
                             "(fleetsim reads Kubernetes' scheduling.k8s.io/v1alpha2 PodGroup)");
    return;
  }
  if (kind == "ResourceSlice" && api.starts_with("resource.k8s.io/")) {
    // Drivers publish slices; fleetsim's nodes publish theirs from nvidia.com/dra-kubelet-plugin.
    warnings_.add(WarningCode::DraNotModelled, kind_value.where(), kind,
                  "a ResourceSlice is not read: nodes labelled nvidia.com/dra-kubelet-plugin "
                  "publish their GPUs or MIG devices themselves; partitionable devices "
                  "(sharedCounters, consumesCounters) and devices of other drivers are not "
                  "modelled");
    return;
  }
  if (is_dra_kind(kind)) {
    const std::optional<DraApiVersion> version = dra_api_version(api);
    if (!version)
      api_value.fail(fmt::format(
          "apiVersion \"{}\" is not read for {}; fleetsim reads resource.k8s.io/v1 (and "
          "v1beta2 and v1beta1, which Kubernetes 1.32 to 1.34 served)",
          api.substr(0, 60), kind));
    DecodeContext dra_ctx{
        .resources = resources_, .warnings = warnings_, .kind = kind, .karpenter = karpenter_};
    if (kind == "DeviceClass") {
      out.device_classes.push_back(decode_device_class(m, dra_ctx));
    } else {
      out.resource_claims.push_back(
          decode_resource_claim(m, *version, kind == "ResourceClaimTemplate", dra_ctx));
    }
    return;
  }
  const DecodedKind* decoded = decoded_kind(kind);
  if (decoded == nullptr) {
    if (auto problem = misspelt_kind_problem(kind, api)) kind_value.fail(*problem);
    warnings_.add_unmodelled(kind_value.where(), kind,
                             fmt::format("kind {} is not modelled; ignored", kind));
    return;
  }
  if (api != decoded->api_version) api_value.fail(api_version_problem(*decoded, api));
  DecodeContext ctx{
      .resources = resources_, .warnings = warnings_, .kind = kind, .karpenter = karpenter_};

  if (kind == "List") {
    // `kubectl get -o yaml` wraps several objects in a v1 List.
    for (const YamlValue& item : m.require("items").items()) {
      load_manifest(YamlValue(item.node(), item.file_ptr(), item.path()), out);
    }
    m.ignore({"metadata"});
  } else if (kind == "NodePool") {
    out.nodepools.push_back(decode_nodepool(m, ctx));
  } else if (kind == "NodeOverlay") {
    out.node_overlays.push_back(decode_node_overlay(m, ctx));
  } else if (kind == "EC2NodeClass") {
    out.node_classes.push_back(decode_node_class(m, ctx));
  } else if (kind == "Pod") {
    out.workloads.push_back(decode_pod_manifest(m, ctx));
  } else if (kind == "Deployment") {
    out.workloads.push_back(decode_deployment(m, ctx));
  } else if (kind == "Job") {
    out.workloads.push_back(decode_job(m, ctx));
  } else if (kind == "DaemonSet") {
    out.daemonsets.push_back(decode_daemonset(m, ctx));
  } else if (kind == "PriorityClass") {
    out.priority_classes.push_back(decode_priority_class(m, ctx));
  } else if (kind == "PodGroup") {
    out.pod_groups.push_back(decode_pod_group(m, ctx));
  } else if (kind == "HorizontalPodAutoscaler") {
    out.hpas.push_back(decode_hpa(m, ctx));
  } else if (kind == "ScaledObject") {
    out.scaled_objects.push_back(decode_scaled_object(m, ctx));
  } else if (kind == "PodDisruptionBudget") {
    out.pdbs.push_back(decode_pdb(m, ctx));
  } else if (kind == "CapacityBuffer") {
    out.capacity_buffers.push_back(decode_capacity_buffer(m, ctx));
  } else if (kind == "NodeClass") {
    out.node_classes.push_back(decode_auto_mode_node_class(m, ctx));
  } else if (kind == "KubeSchedulerConfiguration") {
    if (out.scheduler_config)
      kind_value.fail(
          fmt::format("a second KubeSchedulerConfiguration (the first is at {}); "
                      "kube-scheduler reads one configuration file",
                      out.scheduler_config->where.to_string()));
    out.scheduler_config = decode_scheduler_config(m, ctx);
  } else if (kind == "ClusterConfig") {
    ClusterConfigSpec spec = decode_cluster_config(m, ctx);
    for (NodeGroup& g : spec.groups) out.node_groups.push_back(std::move(g));
    if (spec.auto_mode_node_pools) {
      out.auto_mode_node_pools = std::move(spec.auto_mode_node_pools);
      out.auto_mode_where = spec.auto_mode_where;
    }
  }
  m.check_unread(warnings_, kind, *decoded->fields);
}

void check_unique_names(const ManifestSet& set) {
  auto check = [](std::string_view kind, auto&& objects, auto&& key_of, auto&& where_of) {
    std::map<std::string, SourceLocation, std::less<>> seen;
    for (const auto& o : objects) {
      auto [it, inserted] = seen.emplace(key_of(o), where_of(o));
      if (!inserted) {
        throw ConfigError(where_of(o), "metadata.name",
                          fmt::format("a second {} named \"{}\" (the first is at {})", kind,
                                      key_of(o), it->second.to_string()));
      }
    }
  };
  auto name = [](const auto& o) { return o.name; };
  auto where = [](const auto& o) { return o.where; };
  check("NodePool", set.nodepools, name, where);
  // Node classes share one name space; the message names the second's kind, EKS Auto Mode's
  // NodeClass or Karpenter's EC2NodeClass.
  std::map<std::string, SourceLocation, std::less<>> classes;
  for (const EC2NodeClass& c : set.node_classes) {
    auto [it, inserted] = classes.emplace(c.name, c.where);
    if (!inserted) {
      throw ConfigError(
          c.where, "metadata.name",
          fmt::format("a second {} named \"{}\" (the first is at {})",
                      c.auto_mode ? "NodeClass" : "EC2NodeClass", c.name, it->second.to_string()));
    }
  }
  check("PriorityClass", set.priority_classes, name, where);
  check(
      "PodGroup", set.pod_groups,
      [](const PodGroupObject& g) { return g.namespace_name + "/" + g.name; },
      [](const PodGroupObject& g) { return g.where; });
  check("NodeOverlay", set.node_overlays, name, where);
  check("DeviceClass", set.device_classes, name, where);
  for (bool is_template : {false, true}) {
    std::vector<const ResourceClaimObject*> claims;
    for (const ResourceClaimObject& c : set.resource_claims)
      if (c.is_template == is_template) claims.push_back(&c);
    check(
        is_template ? "ResourceClaimTemplate" : "ResourceClaim", claims,
        [](const ResourceClaimObject* c) { return c->namespace_name + "/" + c->name; },
        [](const ResourceClaimObject* c) { return c->where; });
  }
  check(
      "PodDisruptionBudget", set.pdbs,
      [](const PodDisruptionBudgetSpec& p) { return p.namespace_name + "/" + p.name; }, where);
  check(
      "CapacityBuffer", set.capacity_buffers,
      [](const CapacityBuffer& b) { return b.namespace_name + "/" + b.name; }, where);
  // Namespaced kinds: the name is unique per kind within a namespace.
  for (WorkloadKind kind : {WorkloadKind::Pod, WorkloadKind::Deployment, WorkloadKind::Job}) {
    std::vector<const Workload*> of_kind;
    for (const auto& d : set.workloads)
      if (d.workload.kind == kind) of_kind.push_back(&d.workload);
    check(
        to_string(kind), of_kind,
        [](const Workload* w) {
          return w->namespace_name == "default" ? w->name : w->namespace_name + "/" + w->name;
        },
        [](const Workload* w) { return w->where; });
  }
  auto namespaced = [](const auto& o) {
    return o.namespace_name == "default" ? o.name : o.namespace_name + "/" + o.name;
  };
  check("HorizontalPodAutoscaler", set.hpas, namespaced, where);
  check("ScaledObject", set.scaled_objects, namespaced, where);
  std::vector<const Workload*> daemonsets;
  for (const auto& d : set.daemonsets) daemonsets.push_back(&d.workload);
  check(
      "DaemonSet", daemonsets,
      [](const Workload* w) {
        return w->namespace_name == "default" ? w->name : w->namespace_name + "/" + w->name;
      },
      [](const Workload* w) { return w->where; });
}

}  // namespace fleetsim
