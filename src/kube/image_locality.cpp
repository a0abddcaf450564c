#include "fleetsim/kube/image_locality.hpp"

#include <algorithm>

#include "fleetsim/core/quantity.hpp"
#include "fleetsim/kube/resource_scores.hpp"

namespace fleetsim {

namespace {

constexpr std::int64_t kMinThreshold = 23 * kMib;
constexpr std::int64_t kMaxContainerThreshold = 1000 * kMib;

// The node object exists (registered) and has not gone: what the scheduler's snapshot lists.
bool listed(const Node& n) {
  return n.phase == NodePhase::Registered || n.phase == NodePhase::Initialized ||
         n.phase == NodePhase::Deleting;
}

}  // namespace

namespace {

// A tag or digest after the last path segment's start (normalizedImageName's test).
bool tagged(std::string_view image) {
  const std::size_t colon = image.rfind(':');
  const std::size_t slash = image.rfind('/');
  return colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash);
}

}  // namespace

std::string normalized_image_name(std::string_view image) {
  return tagged(image) ? std::string(image) : std::string(image) + ":latest";
}

void NodeImages::pulled(NodeId node, std::string_view image, std::int64_t bytes) {
  std::string name = normalized_image_name(image);
  auto it = images_.find(name);
  if (it == images_.end()) it = images_.emplace(std::move(name), Image{.bytes = bytes}).first;
  std::vector<NodeId>& nodes = it->second.nodes;
  const auto at = std::lower_bound(nodes.begin(), nodes.end(), node);
  if (at == nodes.end() || *at != node) nodes.insert(at, node);
}

bool NodeImages::score(const Cluster& cluster, const PodSpec& spec,
                       std::span<const NodeId> feasible, std::vector<std::int64_t>& scores) const {
  if (images_.empty()) return false;
  std::size_t total_nodes = 0;  // counted at the first image some node holds
  struct Held {
    const Image* image;
    std::int64_t scaled;
  };
  // Each container's image a node may hold, with its scaled size (scaledImageScore).
  std::vector<Held> held;
  auto consider = [&](const std::string& image) {
    const auto it = tagged(image) ? images_.find(image) : images_.find(image + ":latest");
    if (it == images_.end()) return;
    if (total_nodes == 0)
      for (NodeId id : cluster.active_nodes()) total_nodes += listed(cluster.node(id)) ? 1 : 0;
    if (total_nodes == 0) return;
    const auto holders =
        static_cast<std::size_t>(std::count_if(it->second.nodes.begin(), it->second.nodes.end(),
                                               [&](NodeId n) { return listed(cluster.node(n)); }));
    const double spread = static_cast<double>(holders) / static_cast<double>(total_nodes);
    held.push_back(
        {&it->second, static_cast<std::int64_t>(static_cast<double>(it->second.bytes) * spread)});
  };
  for (const std::string& image : spec.init_images) consider(image);
  for (const std::string& image : spec.images) consider(image);
  if (held.empty()) return false;
  const std::int64_t max_threshold =
      kMaxContainerThreshold *
      static_cast<std::int64_t>(spec.init_images.size() + spec.images.size());
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    std::int64_t sum = 0;
    for (const Held& h : held)
      if (std::binary_search(h.image->nodes.begin(), h.image->nodes.end(), feasible[i]))
        sum += h.scaled;
    sum = std::clamp(sum, kMinThreshold, max_threshold);
    scores[i] = kMaxNodeScore * (sum - kMinThreshold) / (max_threshold - kMinThreshold);
  }
  return true;
}

}  // namespace fleetsim
