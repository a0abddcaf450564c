// The GPU Operator's nvidia.com/mig.config label on NodePools: a layout the pool's GPUs do not
// have is refused at load, naming the type; a valid one warns that nodes still offer whole GPUs.
#include "fleetsim/scenario/gpu_layout_checks.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/catalog/mig_layouts.hpp"
#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// A NodePool of `types` whose template labels nvidia.com/mig.config: `layout`.
struct LayoutScenario : test::ManifestScenario {
  LayoutScenario(const std::string& types, const std::string& layout)
      : ManifestScenario(
            "mig-layout",
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: mig}\nspec:\n"
            "  template:\n    metadata:\n      labels: {nvidia.com/mig.config: " +
                layout +
                "}\n    spec:\n"
                "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: "
                "default}\n      requirements:\n"
                "        - {key: node.kubernetes.io/instance-type, operator: In, values: [" +
                types +
                "]}\n---\napiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: "
                "{name: default}\nspec: {role: test}\n") {}
};

}  // namespace

TEST_CASE("the bundled MIG layout table gives each GPU its profiles", "[scenario]") {
  const std::vector<MigLayout> layouts = load_mig_layouts(
      std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog/aws/us-east-1");
  const MigLayout* a100_40 = find_mig_layout(layouts, "a100", 40960, "all-1g.10gb");
  REQUIRE(a100_40 != nullptr);
  REQUIRE(a100_40->profiles.size() == 1);
  CHECK(a100_40->profiles[0].instances_per_gpu == 4);  // mig-parted's A100-40GB entry
  CHECK(a100_40->profiles[0].memory_slices == 2);
  const MigLayout* balanced = find_mig_layout(layouts, "h100", 81920, "all-balanced");
  REQUIRE(balanced != nullptr);
  REQUIRE(balanced->profiles.size() == 3);
  CHECK(balanced->profiles[0].name == "1g.10gb");
  CHECK(balanced->profiles[0].instances_per_gpu == 2);
  CHECK(balanced->profiles[2].name == "3g.40gb");
  CHECK(balanced->profiles[2].compute_slices == 3);
  CHECK(balanced->profiles[2].memory_slices == 4);
  CHECK(find_mig_layout(layouts, "a100", 40960, "all-3g.40gb") == nullptr);
  CHECK_FALSE(has_mig(layouts, "a10g", 22888));
  CHECK(has_mig(layouts, "b200", 183359));
}

TEST_CASE("a MIG layout on a GPU without MIG or unknown to the GPU is refused", "[scenario]") {
  const LayoutScenario g5("g5.xlarge", "all-3g.40gb");
  CHECK(g5.error().ends_with(
      ": NodePool.spec.template.metadata.labels.nvidia.com/mig.config: NodePool mig asks for "
      "MIG layout \"all-3g.40gb\", but it may launch g5.xlarge, whose GPU (a10g) has no MIG: "
      "keep the pool's instance types to MIG GPUs (A100, H100, H200, B200)"));
  CHECK(g5.error().find("manifests.yaml:3:") != std::string::npos);
  const LayoutScenario p4d("p4d.24xlarge", "all-3g.40gb");
  CHECK(p4d.error().find("which mig-parted's default config does not give p4d.24xlarge's GPU "
                         "(a100, 40960 MiB); expected one of all-disabled, all-1g.10gb, "
                         "all-1g.5gb, all-2g.10gb, all-3g.20gb, all-4g.20gb, all-7g.40gb, "
                         "all-balanced") != std::string::npos);
}

TEST_CASE("a valid MIG layout and all-disabled load without a warning", "[scenario]") {
  // The layout is modelled now (gpu_sharing_run_test.cpp): nothing to warn about.
  CHECK(LayoutScenario("p4de.24xlarge", "all-3g.40gb").load().warnings.empty());
  CHECK(LayoutScenario("g5.xlarge", "all-disabled").load().warnings.empty());
}

TEST_CASE("a MIG layout on g6 or g6e is refused like g5's", "[scenario]") {
  CHECK(LayoutScenario("g6.xlarge", "all-1g.10gb").error().find("whose GPU (l4) has no MIG") !=
        std::string::npos);
  CHECK(LayoutScenario("g6e.xlarge", "all-1g.10gb").error().find("whose GPU (l40s) has no MIG") !=
        std::string::npos);
}

TEST_CASE("the single strategy refuses a layout of several profiles", "[scenario]") {
  // device_map.go: "more than one MIG device type present on node".
  const std::string e = LayoutScenario("p4de.24xlarge", "all-balanced").error();
  CHECK(e.find("manifests.yaml:3:") != std::string::npos);
  CHECK(e.find("NodePool mig's nodes of p4de.24xlarge: MIG layout \"all-balanced\" mixes "
               "profiles, which the device plugin refuses under the single MIG strategy") !=
        std::string::npos);
}
