// EKS Auto Mode's users write NodeClass (eks.amazonaws.com), not Karpenter's EC2NodeClass: the
// messages they see say so (issue 25, item 8).
#include <catch2/catch.hpp>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

std::filesystem::path catalog_root() {
  return std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog";
}

std::string pool(std::string_view name, std::string_view node_class) {
  return "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: " + std::string(name) +
         "}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: eks.amazonaws.com, kind: "
         "NodeClass, name: " +
         std::string(node_class) + "}\n---\n";
}

std::string node_class(std::string_view name) {
  return "apiVersion: eks.amazonaws.com/v1\nkind: NodeClass\nmetadata: {name: " +
         std::string(name) + "}\nspec: {}\n---\n";
}

std::string load_error(const test::TempDir& dir, const std::string& manifests) {
  dir.write("manifests.yaml", manifests);
  const auto file = dir.write("scenario.yaml",
                              "name: am\nduration: 1h\nprovisioner: eks-auto-mode\n"
                              "manifests: [manifests.yaml]\n");
  return test::config_error([&] { load_scenario(file, catalog_root()); });
}

}  // namespace

TEST_CASE("EKS Auto Mode's node class errors say NodeClass", "[scenario][auto-mode]") {
  test::TempDir dir("auto-mode-words");
  const std::string at = (dir.path() / "manifests.yaml").string();
  CHECK(load_error(dir, node_class("fast") + pool("gpu", "fasst")) ==
        at + ":12:71: spec.template.spec.nodeClassRef.name: no NodeClass named \"fasst\"; did "
             "you mean \"fast\"?");
  CHECK(load_error(dir, node_class("fast") + node_class("fast")) ==
        at + ":8:18: metadata.name: a second NodeClass named \"fast\" (the first is at " + at +
            ":3:18)");
  // A job template that is a NodeClass is counted as one.
  dir.write("manifests.yaml", node_class("fast"));
  dir.write("nc.yaml", node_class("other"));
  const auto file = dir.write("scenario.yaml",
                              "name: am\nduration: 1h\nprovisioner: eks-auto-mode\n"
                              "manifests: [manifests.yaml]\njobs:\n  - {trace: t.csv, template: "
                              "nc.yaml}\n");
  dir.write("t.csv", "submit_time_s,duration_s,gpus,cpu_millis,memory_mib\n0,60,0,100,100\n");
  CHECK(test::config_error([&] { load_scenario(file, catalog_root()); }) ==
        file.string() +
            ":6:30: jobs[0].template: a job template must be exactly one Job or Pod manifest; "
            "found 1 NodeClass");
}
