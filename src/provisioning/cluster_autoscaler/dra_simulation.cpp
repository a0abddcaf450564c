// The Cluster Autoscaler's view of DRA (kubernetes/autoscaler cluster-autoscaler/simulator/
// dynamicresources; docs/dra_support.md): its simulations run kube-scheduler's DynamicResources
// filter against the ResourceSlices of real nodes and, for a scale-up, of template nodes, "an
// identical set of Node-local Devices" per new node of a group. fleetsim runs it as a pass over
// the solver's placements: the solver packs by requests, this pass moves a pod with claims to
// where its devices can be allocated and its requests fit, first fit, or drops it. AWS's
// scale-from-zero template has no devices: cloudprovider/aws/aws_cloud_provider.go
// TemplateNodeInfo builds its NodeInfo with no ResourceSlices (framework.NewNodeInfo(node, nil,
// …)), so a group's devices come from a template learned from one of its running nodes.
#include <algorithm>
#include <map>

#include "fleetsim/provisioning/cluster_autoscaler/cluster_autoscaler.hpp"

namespace fleetsim {

void ClusterAutoscaler::dra_placements(const SolveView& view, std::span<const PendingPod> pods,
                                       std::vector<Placement>& placements) const {
  if (!settings_.dynamic_resource_allocation) return;
  if (std::none_of(placements.begin(), placements.end(),
                   [&](const Placement& p) { return !pods[p.pod].spec->resource_claims.empty(); }))
    return;
  const std::size_t real = view.node_ids.size();
  auto devices_of = [&](std::uint32_t node) -> const std::vector<DraDevice>& {
    return node < real ? cluster_.node(view.node_ids[node]).gpu_setup.dra_devices
                       : view.templates[view.template_of[node - real]].dra_devices;
  };
  std::vector<std::vector<std::uint8_t>> taken(view.nodes.size());
  std::vector<std::uint8_t> started(view.nodes.size(), 0);
  std::map<std::string, std::uint32_t, std::less<>> shared_at;  // claims allocated this pass
  // Whether the pod's claims can all be allocated on `node`; if so, they are.
  auto allocate = [&](std::uint32_t node, const PendingPod& pod) {
    const std::vector<DraDevice>& devices = devices_of(node);
    if (started[node] == 0) {
      started[node] = 1;
      taken[node] = node < real ? cluster_.node(view.node_ids[node]).dra_allocated
                                : std::vector<std::uint8_t>();
      taken[node].resize(devices.size(), 0);
    }
    std::vector<std::uint8_t> trial = taken[node];
    std::vector<std::string> new_shared;
    for (const PodResourceClaim& claim : pod.spec->resource_claims) {
      if (!claim.shared.empty()) {
        if (auto it = cluster_.dra_claims().find(claim.shared); it != cluster_.dra_claims().end()) {
          if (node >= real || it->second.node != view.node_ids[node]) return false;
          continue;
        }
        if (auto it = shared_at.find(claim.shared); it != shared_at.end()) {
          if (it->second != node) return false;
          continue;
        }
        new_shared.push_back(claim.shared);
      }
      if (!dra_allocate(claim, devices, trial, nullptr)) return false;
    }
    taken[node] = std::move(trial);
    for (std::string& key : new_shared) shared_at.emplace(std::move(key), node);
    return true;
  };
  // What the solver's placements take of each node; a pod moved elsewhere takes it along, and
  // a template node takes a moved pod only where its requests still fit beside the others.
  std::vector<Resources> used(view.nodes.size());
  for (const Placement& p : placements) used[p.node] += pods[p.pod].spec->requests;
  std::vector<Placement> kept;
  kept.reserve(placements.size());
  for (const Placement& p : placements) {
    const PendingPod& pod = pods[p.pod];
    if (pod.spec->resource_claims.empty() || allocate(p.node, pod)) {
      kept.push_back(p);
      continue;
    }
    const Resources& requests = pod.spec->requests;
    used[p.node] -= requests;
    // Template nodes in order (they sort after every real node and fill in turn).
    for (std::uint32_t n = static_cast<std::uint32_t>(real); n < view.nodes.size(); ++n) {
      if (!(used[n] + requests).fits_in(view.nodes[n].available) || !allocate(n, pod)) continue;
      used[n] += requests;
      kept.push_back({.pod = p.pod, .node = n});
      break;
    }
  }
  placements = std::move(kept);
}

}  // namespace fleetsim
