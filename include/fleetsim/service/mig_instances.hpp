// Which MIG instance of its node each served pod holds, for the labels the DCGM exporter gives
// the instance's series (gpu, GPU_I_PROFILE, GPU_I_ID). One per run, shared by every service, so
// pods of different services on one node hold different instances.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

struct MigInstanceSeat {
  std::uint32_t gpu = 0;          // the physical GPU's index on its node (dcgm's `gpu` label)
  std::uint32_t instance_id = 0;  // GPU_I_ID
  std::string profile;            // GPU_I_PROFILE
};

class MigInstanceSeats {
 public:
  // The pod takes the first free instance of `profile` (an index into setup.mig) on its node, in
  // (GPU, instance) order, as the kubelet's device manager hands out devices it has no preference
  // for. GPU_I_ID numbers a GPU's instances from 1 in the layout's order (the driver assigns the
  // real ones: 7-13 for seven 1g instances of an A100, 1-2 for two 3g; queries select on
  // GPU_I_PROFILE). A pod holding several devices is labelled with its first.
  MigInstanceSeat take(NodeId node, const NodeGpuSetup& setup, std::size_t profile, PodId pod);
  // The pod's instance is free again (no-op for a pod holding none).
  void release(PodId pod);

 private:
  struct Held {
    NodeId node;
    std::uint32_t profile;
    std::uint32_t index;  // among the node's instances of the profile, GPU by GPU
    PodId pod;
  };
  std::vector<Held> held_;  // few: one per served MIG pod
};

}  // namespace fleetsim
