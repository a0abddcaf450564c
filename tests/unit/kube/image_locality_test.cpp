// kube-scheduler's ImageLocality score, translated from upstream's TestImageLocalityPriority and
// TestNormalizedImageName (pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go,
// Kubernetes 1.33). A node holds what its kubelet pulled; sizes in MiB as upstream's "mb".
#include "fleetsim/kube/image_locality.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "unit/k8s/cluster_harness.hpp"

using namespace fleetsim;
using namespace fleetsim::test;

namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

struct Image {
  std::string name;
  std::int64_t mib;
};

// Nodes with the images their status lists, and the ImageLocality score of a pod on each.
std::vector<std::int64_t> scores(const std::vector<std::vector<Image>>& nodes, PodSpec pod) {
  Cluster cluster;
  NodeImages images;
  std::vector<NodeId> ids;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    ids.push_back(add_node(cluster, {.name = "node" + std::to_string(i + 1)}));
    for (const Image& image : nodes[i]) images.pulled(ids.back(), image.name, image.mib * kMiB);
  }
  std::vector<std::int64_t> out(ids.size(), -1);
  if (!images.score(cluster, pod, ids, out)) std::fill(out.begin(), out.end(), 0);
  return out;
}

PodSpec pod(std::vector<std::string> images, std::vector<std::string> init = {}) {
  PodSpec spec;
  spec.images = std::move(images);
  spec.init_images = std::move(init);
  return spec;
}

const std::vector<Image> node403002000{
    {"gcr.io/40:v1", 40}, {"gcr.io/300", 300}, {"gcr.io/2000", 2000}};
const std::vector<Image> node25010{{"gcr.io/250", 250}, {"gcr.io/10:latest", 10}};
const std::vector<Image> node60040900{{"gcr.io/600", 600}, {"gcr.io/40", 40}, {"gcr.io/900", 900}};
const std::vector<Image> node300600900{
    {"gcr.io/300", 300}, {"gcr.io/600", 600}, {"gcr.io/900", 900}};
const std::vector<Image> node400030{{"gcr.io/4000", 4000}, {"gcr.io/30", 30}};
const std::vector<Image> node203040{{"gcr.io/20", 20}, {"gcr.io/30", 30}, {"gcr.io/40", 40}};

using Scores = std::vector<std::int64_t>;

}  // namespace

TEST_CASE("ImageLocality: upstream's TestImageLocalityPriority", "[kube]") {
  // "two images spread on two nodes, prefer the larger image one": node1 40M/2 < 23M, node2
  // 100 × (250M/2 − 23M) / (2 × 1000M − 23M) = 5. (node1 reports gcr.io/40 as :v1, not :latest.)
  CHECK(scores({{{"gcr.io/40", 40}, {"gcr.io/300", 300}, {"gcr.io/2000", 2000}}, node25010},
               pod({"gcr.io/40", "gcr.io/250"})) == Scores{0, 5});
  // "two images on one node, prefer this node": 100 × ((40M + 300M)/2 − 23M) / (2000M − 23M) = 7.
  CHECK(scores({{{"gcr.io/40", 40}, {"gcr.io/300", 300}, {"gcr.io/2000", 2000}}, node25010},
               pod({"gcr.io/40", "gcr.io/300"})) == Scores{7, 0});
  // "if exceed limit, use limit", and with a third node that has no images: 4000M/3 scores 66.
  CHECK(scores({node400030, node25010}, pod({"gcr.io/10", "gcr.io/4000"})) == Scores{100, 0});
  CHECK(scores({node400030, node25010, {}}, pod({"gcr.io/10", "gcr.io/4000"})) == Scores{66, 0, 0});
  // "pod with multiple large images, node2 is preferred".
  CHECK(scores({node60040900, node300600900, {}},
               pod({"gcr.io/300", "gcr.io/600", "gcr.io/900"})) == Scores{32, 36, 0});
  // "pod with multiple small images".
  CHECK(scores({node203040, node400030}, pod({"gcr.io/30", "gcr.io/40"})) == Scores{1, 0});
  // "include InitContainers: two images spread on two nodes, prefer the larger image one".
  CHECK(scores({{{"gcr.io/40", 40}, {"gcr.io/300", 300}, {"gcr.io/2000", 2000}}, node203040},
               pod({"gcr.io/30"}, {"gcr.io/300"})) == Scores{6, 0});
  // An image name with a tag matches only that tag.
  CHECK(scores({node403002000, node25010}, pod({"gcr.io/40", "gcr.io/250"})) == Scores{0, 5});
}

TEST_CASE("ImageLocality: upstream's TestNormalizedImageName", "[kube]") {
  CHECK(normalized_image_name("root") == "root:latest");
  CHECK(normalized_image_name("gcr.io:5000/root") == "gcr.io:5000/root:latest");
  CHECK(normalized_image_name("root:tag") == "root:tag");
  CHECK(normalized_image_name(
            "root@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945") ==
        "root@sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945");
}
