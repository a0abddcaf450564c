// Dynamic Resource Allocation (resource.k8s.io/v1) as fleetsim models it: the devices a node's
// DRA driver publishes (NVIDIA's k8s-dra-driver-gpu: whole GPUs and pre-created MIG devices) and
// what a pod's ResourceClaims ask of them, as plain data resolved at load.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

// The NVIDIA DRA driver's name, its DeviceClasses (installed by its Helm chart) and the node label
// its kubelet plugin's DaemonSet selects (kubeletPlugin.nodeSelector in NVIDIA's install guide).
inline constexpr std::string_view kNvidiaDraDriver = "gpu.nvidia.com";
inline constexpr std::string_view kNvidiaMigDeviceClass = "mig.nvidia.com";
inline constexpr std::string_view kDraKubeletPluginLabel = "nvidia.com/dra-kubelet-plugin";

// One device of a node's ResourceSlice, with the attributes fleetsim's selectors read.
struct DraDevice {
  std::string name;          // gpu-0, gpu-0-mig-1
  std::string driver;        // gpu.nvidia.com
  std::string type;          // gpu or mig
  std::string product_name;  // NVML's name: "NVIDIA A100-SXM4-40GB"
  std::string profile;       // a MIG device's profile: "3g.40gb"; empty for a whole GPU
  friend bool operator==(const DraDevice&, const DraDevice&) = default;
};

// A conjunction of equalities over a device's driver and attributes (the CEL subset fleetsim
// reads from DeviceClass and request selectors); an empty field accepts any value.
struct DraMatch {
  std::string driver, type, product_name, profile;
  bool impossible = false;  // two selectors want different values of one attribute

  bool matches(const DraDevice& d) const {
    return !impossible && (driver.empty() || driver == d.driver) &&
           (type.empty() || type == d.type) &&
           (product_name.empty() || product_name == d.product_name) &&
           (profile.empty() || profile == d.profile);
  }
  // Both this and `other` must hold.
  void add(const DraMatch& other) {
    auto join = [this](std::string& mine, const std::string& theirs) {
      if (theirs.empty()) return;
      if (!mine.empty() && mine != theirs) impossible = true;
      mine = theirs;
    };
    join(driver, other.driver);
    join(type, other.type);
    join(product_name, other.product_name);
    join(profile, other.profile);
    impossible = impossible || other.impossible;
  }
  friend bool operator==(const DraMatch&, const DraMatch&) = default;
};

// One request of a claim (spec.devices.requests[].exactly): its DeviceClass's selectors and its
// own, and how many devices (allocationMode ExactCount with count, or All).
struct DraRequest {
  std::string name;
  std::string device_class;
  DraMatch match;
  std::int64_t count = 1;
  bool all = false;
  friend bool operator==(const DraRequest&, const DraRequest&) = default;
};

// One entry of a pod's spec.resourceClaims, resolved: a ResourceClaim shared by every pod that
// names it (`shared` is its "<namespace>/<name>"), or a ResourceClaimTemplate's claim made for the
// pod alone (`shared` empty), with the claim's requests.
struct PodResourceClaim {
  std::string name;  // the pod's name for it
  std::string shared;
  std::string source;  // the ResourceClaim's or ResourceClaimTemplate's name, for messages
  std::vector<DraRequest> requests;
  friend bool operator==(const PodResourceClaim&, const PodResourceClaim&) = default;
};

// Allocates `claim` (not allocated yet) from `devices`, where `taken` (beside them) marks those in
// use: each request takes its matching free devices first fit in name order (All: every matching
// device, none in use, at least one). Marks what it takes and appends the indexes to `picks`;
// false when a request cannot be met (`taken` is then partly marked). dra_allocation.cpp.
bool dra_allocate(const PodResourceClaim& claim, std::span<const DraDevice> devices,
                  std::vector<std::uint8_t>& taken, std::vector<std::uint32_t>* picks);

// An entry of a pod's spec.resourceClaims as written, resolved at load into a PodResourceClaim.
struct PodClaimRef {
  std::string name;
  std::string source;  // resourceClaimName or resourceClaimTemplateName
  bool from_template = false;
  SourceLocation where;  // of the source's name
};

}  // namespace fleetsim
