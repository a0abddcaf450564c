// Which images the nodes hold (node.status.images, as the kubelet reports them once pulled) and
// kube-scheduler's ImageLocality score (pkg/scheduler/framework/plugins/imagelocality).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/k8s/cluster.hpp"

namespace fleetsim {

// "repo/name" → "repo/name:latest": the CRI name a node reports (normalizedImageName).
std::string normalized_image_name(std::string_view image);

class NodeImages {
 public:
  // The kubelet finished pulling `image` (of `bytes`) on the node.
  void pulled(NodeId node, std::string_view image, std::int64_t bytes);

  // ImageLocality (Kubernetes 1.33) for each feasible node, into `scores` (0–100, no
  // normalization): the sum over the pod's init and app containers whose image the node holds of
  // its size × (nodes holding it ÷ nodes), clamped to [23 MiB, 1000 MiB × containers] and scaled
  // to 0–100. False when no node holds any of them (every node scores 0).
  bool score(const Cluster& cluster, const PodSpec& spec, std::span<const NodeId> feasible,
             std::vector<std::int64_t>& scores) const;

 private:
  struct Image {
    std::int64_t bytes = 0;
    std::vector<NodeId> nodes;  // sorted
  };
  std::map<std::string, Image, std::less<>> images_;  // by normalized name
};

}  // namespace fleetsim
