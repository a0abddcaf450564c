// kube-scheduler's DynamicResources plugin as fleetsim models it
// (kubernetes/kubernetes pkg/scheduler/framework/plugins/dynamicresources, with the structured
// allocator of k8s.io/dynamic-resource-allocation): a node fits when each of the pod's claims is
// allocated already on it, or can be allocated from the devices it publishes that no claim
// holds; fleetsim's allocator takes matching devices first fit in name order. Reserve/PreBind
// write the allocation, which holds until the claim's last pod goes (the resourceclaim
// controller's deallocation once reservedFor is empty; a template's claim goes with its pod).
#include <algorithm>

#include "fleetsim/core/error.hpp"
#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

std::string dra_claim_key(const Pod& pod, const PodResourceClaim& claim) {
  return claim.shared.empty() ? pod.uid + "/" + claim.name : claim.shared;
}

bool dra_allocate(const PodResourceClaim& claim, std::span<const DraDevice> devices,
                  std::vector<std::uint8_t>& taken, std::vector<std::uint32_t>* picks) {
  for (const DraRequest& r : claim.requests) {
    if (r.all) {
      // allocationMode All: every matching device, none of them in use, at least one.
      std::size_t found = 0;
      for (std::uint32_t i = 0; i < devices.size(); ++i) {
        if (!r.match.matches(devices[i])) continue;
        if (taken[i] != 0) return false;
        taken[i] = 1;
        if (picks != nullptr) picks->push_back(i);
        ++found;
      }
      if (found == 0) return false;
      continue;
    }
    std::int64_t wanted = r.count;
    for (std::uint32_t i = 0; i < devices.size() && wanted > 0; ++i) {
      if (taken[i] != 0 || !r.match.matches(devices[i])) continue;
      taken[i] = 1;
      if (picks != nullptr) picks->push_back(i);
      --wanted;
    }
    if (wanted > 0) return false;
  }
  return true;
}

bool Cluster::dra_fits(const Pod& pod, const Node& node,
                       std::vector<std::vector<std::uint32_t>>* picks) const {
  const std::vector<DraDevice>& devices = node.gpu_setup.dra_devices;
  std::vector<std::uint8_t> taken = node.dra_allocated;
  taken.resize(devices.size(), 0);  // not configured yet: nothing published is taken
  if (picks != nullptr) picks->clear();
  for (const PodResourceClaim& claim : pod.spec->resource_claims) {
    std::vector<std::uint32_t> mine;
    if (auto it = dra_claims_.find(dra_claim_key(pod, claim)); it != dra_claims_.end()) {
      if (it->second.node != node.id) return false;  // allocated elsewhere: the pod goes there
    } else if (!dra_allocate(claim, devices, taken, picks != nullptr ? &mine : nullptr)) {
      return false;
    }
    if (picks != nullptr) picks->push_back(std::move(mine));
  }
  return true;
}

void Cluster::allocate_claims(const Pod& pod, Node& node) {
  std::vector<std::vector<std::uint32_t>> picks;
  // kube-scheduler checked the fit; a gang's pod assumed at Permit may find its devices taken
  // since, and then runs with the claims that can still be had (the rest stay unallocated).
  const bool fits = dra_fits(pod, node, &picks);
  const auto& claims = pod.spec->resource_claims;
  for (std::size_t c = 0; c < claims.size(); ++c) {
    const std::string key = dra_claim_key(pod, claims[c]);
    auto it = dra_claims_.find(key);
    if (it != dra_claims_.end()) {
      if (it->second.node == node.id) ++it->second.pods;
      continue;
    }
    if (!fits) continue;
    DraAllocation a{.node = node.id, .devices = std::move(picks[c]), .pods = 1};
    for (std::uint32_t d : a.devices) node.dra_allocated[d] = 1;
    dra_claims_.emplace(key, std::move(a));
  }
}

void Cluster::deallocate_claims(const Pod& pod) {
  for (const PodResourceClaim& claim : pod.spec->resource_claims) {
    auto it = dra_claims_.find(dra_claim_key(pod, claim));
    if (it == dra_claims_.end() || it->second.node != pod.node) continue;
    if (--it->second.pods > 0) continue;
    Node& n = nodes_[it->second.node];
    for (std::uint32_t d : it->second.devices)
      if (d < n.dra_allocated.size()) n.dra_allocated[d] = 0;
    dra_claims_.erase(it);
  }
}

}  // namespace fleetsim
