// A sweep point's edits of the inputs (issue 10, item 3): a scenario key or a manifest field,
// set before decoding.
#include "fleetsim/scenario/overrides.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

Override make(std::string_view target, const std::string& value) {
  return parse_override(target, YAML::Load(value), SourceLocation{.file = "study.yaml", .line = 3});
}

std::string error_of(const std::function<void()>& f) { return test::config_error(f); }

}  // namespace

TEST_CASE("an override target names a scenario key or a manifest's field", "[scenario]") {
  const Override key = make("services[0].traffic.mean_rps", "4");
  CHECK(key.kind.empty());
  REQUIRE(key.path.size() == 4);
  CHECK(std::get<std::string>(key.path[0]) == "services");
  CHECK(std::get<std::size_t>(key.path[1]) == 0);
  CHECK(std::get<std::string>(key.path[3]) == "mean_rps");
  const Override field = make("NodePool/gpu-inference: spec.disruption.consolidateAfter", "5m");
  CHECK(field.kind == "NodePool");
  CHECK(field.name == "gpu-inference");
  CHECK(field.path.size() == 3);
  CHECK(error_of([] { make("NodePool: spec.limits", "1"); }) ==
        "study.yaml:3: target: \"NodePool: spec.limits\": a manifest is named Kind/name before "
        "the colon; write a scenario key (services[0].traffic.mean_rps) or Kind/name: "
        "field.path (NodePool/gpu: spec.limits.cpu)");
  CHECK_THAT(error_of([] { make("services[x].traffic", "1"); }),
             Catch::Contains("an index is a whole number in brackets"));
}

TEST_CASE("overrides edit the scenario and its manifests before they are decoded", "[scenario]") {
  test::TempDir dir("overrides");
  dir.write("pool.yaml",
            "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: gpu}\n"
            "spec:\n  template:\n    spec:\n"
            "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n");
  const auto file = dir.write(
      "scenario.yaml",
      "name: s\nduration: 1h\ncatalog: " + (test::fixtures() / "catalog/aws/us-east-1").string() +
          "\nmanifests: [pool.yaml]\n");
  const auto catalogs = std::filesystem::path();
  const std::vector<Override> edits{make("duration", "2h"),
                                    make("NodePool/gpu: spec.disruption.consolidateAfter", "5m"),
                                    make("NodePool/gpu: spec.weight", "7")};
  const ScenarioConfig cfg = load_scenario(file, catalogs, edits);
  CHECK(cfg.duration == hours(2));
  REQUIRE(cfg.nodepools.size() == 1);
  CHECK(cfg.nodepools[0].disruption.consolidate_after == minutes(5));
  CHECK(cfg.nodepools[0].weight == 7);
  // An edit that matches nothing is an error, not a what-if that does nothing.
  const std::vector<Override> typo{make("NodePool/gpus: spec.weight", "7")};
  CHECK(error_of([&] { load_scenario(file, catalogs, typo); }) ==
        "study.yaml:3: target: \"NodePool/gpus: spec.weight\": no NodePool named \"gpus\" in "
        "the scenario's manifests");
  const std::vector<Override> no_item{make("manifests[3]", "x.yaml")};
  CHECK(error_of([&] { load_scenario(file, catalogs, no_item); }) ==
        "study.yaml:3: target: \"manifests[3]\": there is no item [3] there");
  // The edited value is checked as a written one would be.
  const std::vector<Override> bad{make("NodePool/gpu: spec.weight", "700")};
  CHECK_THAT(error_of([&] { load_scenario(file, catalogs, bad); }),
             Catch::EndsWith("spec.weight: 700 is out of range [1, 100]"));
}
