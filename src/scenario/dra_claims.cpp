#include "fleetsim/scenario/dra_claims.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "fleetsim/scenario/name_hint.hpp"

namespace fleetsim {

DraCatalog::DraCatalog(std::vector<DeviceClassObject> classes,
                       std::vector<ResourceClaimObject> claims)
    : classes_(nvidia_device_classes()), claims_(std::move(claims)) {
  for (DeviceClassObject& c : classes) {
    auto same = std::find_if(classes_.begin(), classes_.end(),
                             [&](const DeviceClassObject& b) { return b.name == c.name; });
    if (same != classes_.end()) {
      *same = std::move(c);
    } else {
      classes_.push_back(std::move(c));
    }
  }
  std::vector<std::string_view> names;
  for (const DeviceClassObject& c : classes_) names.push_back(c.name);
  // kube-scheduler's allocator: "request %s: device class %s does not exist", for ever; a
  // scenario fails at load instead.
  for (ResourceClaimObject& claim : claims_) {
    for (std::size_t i = 0; i < claim.requests.size(); ++i) {
      DraRequest& r = claim.requests[i];
      auto cls = std::find_if(classes_.begin(), classes_.end(),
                              [&](const DeviceClassObject& c) { return c.name == r.device_class; });
      if (cls == classes_.end())
        throw ConfigError(claim.class_where[i], "deviceClassName",
                          fmt::format("unknown DeviceClass \"{}\"{}", r.device_class.substr(0, 60),
                                      did_you_mean(r.device_class, names)));
      DraMatch match = cls->match;
      match.add(r.match);
      r.match = std::move(match);
    }
  }
}

void DraCatalog::resolve(PodTemplate& pod, const std::string& namespace_name) const {
  pod.spec.resource_claims.clear();
  for (const PodClaimRef& ref : pod.claim_refs) {
    auto claim = std::find_if(claims_.begin(), claims_.end(), [&](const ResourceClaimObject& c) {
      return c.is_template == ref.from_template && c.name == ref.source &&
             c.namespace_name == namespace_name;
    });
    const std::string_view kind = ref.from_template ? "ResourceClaimTemplate" : "ResourceClaim";
    if (claim == claims_.end()) {
      std::vector<std::string_view> names;
      for (const ResourceClaimObject& c : claims_)
        if (c.is_template == ref.from_template && c.namespace_name == namespace_name)
          names.push_back(c.name);
      // Upstream the pod waits for ever ("resourceclaim not found"); a scenario fails instead.
      throw ConfigError(
          ref.where, ref.from_template ? "resourceClaimTemplateName" : "resourceClaimName",
          fmt::format("no {} \"{}\" in namespace {}{}", kind, ref.source.substr(0, 60),
                      namespace_name, did_you_mean(ref.source, names)));
    }
    pod.spec.resource_claims.push_back(
        {.name = ref.name,
         .shared = ref.from_template ? std::string() : namespace_name + "/" + claim->name,
         .source = claim->name,
         .requests = claim->requests});
  }
}

}  // namespace fleetsim

namespace fleetsim {

void warn_dra_pods(const ScenarioConfig& cfg, WarningLog& warnings) {
  if (!cfg.karpenter.ignore_dra_requests)
    warnings.add(WarningCode::DraNotModelled, cfg.karpenter.ignore_dra_requests_where,
                 "karpenter.ignore_dra_requests",
                 "false is not modelled: Karpenter's DRA-aware provisioning needs the devices "
                 "each instance type would publish, which the AWS provider does not describe; "
                 "fleetsim keeps upstream's default, true");
  const Workload* first = nullptr;
  for (const Workload& w : cfg.workloads)
    if (!w.pod.spec.resource_claims.empty()) {
      first = &w;
      break;
    }
  if (first == nullptr) return;
  const std::string field = std::string(to_string(first->kind)) + ".spec.resourceClaims";
  const std::string subject = fmt::format("{} {}'s pods (and any other pods with ResourceClaims)",
                                          to_string(first->kind), first->name);
  if (cfg.provisioner != ProvisionerKind::ClusterAutoscaler) {
    // karpenter pkg/operator/options/options.go: --ignore-dra-requests defaults to true, and
    // scheduling/scheduler.go add() fails such a pod with a DRAError.
    warnings.add(
        WarningCode::DraPodsIgnored, first->where, field,
        fmt::format("{} are never provisioned for: {} runs with --ignore-dra-requests "
                    "(true upstream), so they wait unless a node already running "
                    "publishes the devices (an eksctl node group labelled "
                    "nvidia.com/dra-kubelet-plugin: \"true\"); ask for nvidia.com/gpu "
                    "through the device plugin instead to have nodes launched for them",
                    subject,
                    cfg.provisioner == ProvisionerKind::EksAutoMode ? "EKS Auto Mode's Karpenter"
                                                                    : "Karpenter"));
    if (cfg.karpenter.node_overlay && !cfg.node_overlays.empty())
      warnings.add(WarningCode::DraNotModelled, cfg.node_overlays.front().where, "NodeOverlay",
                   "a NodeOverlay's capacity describes extended resources, not DRA devices: it "
                   "does not make Karpenter provision for pods with ResourceClaims");
  } else if (!cfg.cluster_autoscaler.dynamic_resource_allocation) {
    warnings.add(WarningCode::DraPodsIgnored, first->where, field,
                 fmt::format("{} are packed by their requests alone: with "
                             "enable_dynamic_resource_allocation off the Cluster Autoscaler reads "
                             "no claims, so it may add nodes that publish no devices for them",
                             subject));
  }
}

}  // namespace fleetsim
