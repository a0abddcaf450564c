// How one node's GPUs are configured once it runs (the GPU Operator's MIG layout, the NVIDIA
// device plugin's time-slicing or MPS): what the node then advertises, when, and which requests
// the device plugin refuses. Plain data, resolved per instance type before launch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/k8s/dra.hpp"
#include "fleetsim/serving/gpu_share.hpp"

namespace fleetsim {

enum class GpuSharingKind : std::uint8_t { None, TimeSlicing, Mps };

// The MIG instances of one profile a node's GPUs are cut into (the report's slices).
struct MigInstances {
  std::string profile;       // "3g.40gb"
  std::int64_t per_gpu = 0;  // instances of the profile on each GPU
  int compute_slices = 0;    // of 7: the profile's weight in the GPU's cost
  // The resource the device plugin advertises them as (none: no pod asks for it), and how many
  // devices per GPU (per_gpu × time-slicing replicas).
  std::optional<ResourceIndex> resource;
  std::int64_t devices_per_gpu = 0;
};

struct NodeGpuSetup {
  // The node's allocatable once its GPUs are configured, where that is not what its NodeClaim or
  // node group template promised (nullopt: whole GPUs as nvidia.com/gpu). Applied when the node
  // initializes: kube-scheduler binds nothing to it before.
  std::optional<Resources> allocatable;
  // The MIG manager's time to apply a layout, on top of the node's own initialization.
  SimDuration delay{0};
  GpuSharingKind sharing = GpuSharingKind::None;
  // The device plugin's failRequestsGreaterThanOne: a pod asking for more than one of
  // `replicated` fails admission on the node (rm.go ValidateRequest).
  bool fail_requests_greater_than_one = false;
  std::optional<ResourceIndex> replicated;
  int replicas = 1;  // time-slicing or MPS replicas per device
  // What one nvidia.com/gpu device of the node is of a GPU: a MIG slice under the single
  // strategy, an MPS client's share; whole otherwise (time-slicing shares by turns, not size).
  GpuShare device_share;
  std::string layout;  // the MIG layout's name, empty without MIG
  // The node's physical GPUs, when they are configured (0 otherwise).
  std::int64_t physical_gpus = 0;
  // With a MIG layout: the instances each GPU is cut into, in the layout's order; whether the
  // device plugin advertises them as nvidia.com/gpu (the single strategy) rather than
  // nvidia.com/mig-<profile> (mixed).
  std::vector<MigInstances> mig;
  bool mig_single = false;
  // Labels GPU Feature Discovery sets once the GPUs are configured (nvidia.com/gpu.product).
  std::vector<std::pair<std::string, std::string>> labels;
  // The devices the NVIDIA DRA driver's kubelet plugin publishes, in name order (none where it
  // does not run); the device plugin then advertises none of the GPUs.
  std::vector<DraDevice> dra_devices;
};

// The MIG instances a pod with `requests` holds on a node so set up: which of setup.mig, and how
// many (a time-sliced device is 1/replicas of one); nullopt for none.
struct MigHold {
  std::size_t profile = 0;
  double instances = 0;
};
std::optional<MigHold> mig_hold(const NodeGpuSetup& setup, const Resources& requests);
// Each profile's share of the node's cost: its instances' compute slices over all instances'.
double mig_cost_weight(const NodeGpuSetup& setup, std::size_t profile);

// Why the node's device plugin refuses a pod's requests, or empty: upstream's
// "maximum request size for shared resources is 1; found N".
std::string gpu_admission_error(const NodeGpuSetup& setup, const Resources& requests);

}  // namespace fleetsim
