// NodeOverlay manifests: the fields, and Karpenter's CRD and runtime validation as located
// errors (translated from pkg/apis/v1alpha1/nodeoverlay_validation_test.go).
#include "fleetsim/scenario/node_overlay_decoder.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

// Four lines; spec fields written after it start on line 5 at column 3.
std::string overlay(std::string_view spec) {
  return "apiVersion: karpenter.sh/v1alpha1\nkind: NodeOverlay\nmetadata: {name: mig}\nspec:\n" +
         std::string(spec);
}

}  // namespace

TEST_CASE("a NodeOverlay's requirements capacity price and weight are read", "[scenario]") {
  auto d = decode(
      overlay("  requirements:\n"
              "    - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a100]}\n"
              "    - {key: karpenter.sh/nodepool, operator: In, values: [gpu]}\n"
              "  capacity: {nvidia.com/mig-3g.20gb: 16, nvidia.com/gpu: 0}\n"
              "  priceAdjustment: \"-15%\"\n  weight: 20\n"));
  const NodeOverlay& o = d->set.node_overlays.at(0);
  CHECK(o.name == "mig");
  CHECK(o.weight == 20);
  CHECK(o.price.kind == OverlayPrice::Kind::Percent);
  CHECK(o.price.value == -15.0);
  REQUIRE(o.capacity.size() == 2);
  CHECK(d->resources.name(o.capacity[0].first) == "nvidia.com/gpu");
  CHECK(o.capacity[0].second == 0);
  CHECK(d->resources.name(o.capacity[1].first) == "nvidia.com/mig-3g.20gb");
  CHECK(o.capacity[1].second == 16);
  CHECK(o.requirements.get("karpenter.sh/nodepool")->allows("gpu"));
  CHECK(d->warnings.warnings().empty());

  auto plain = decode(overlay("  price: \"0.5\"\n"));
  CHECK(plain->set.node_overlays.at(0).weight == 0);
  CHECK(plain->set.node_overlays.at(0).price.kind == OverlayPrice::Kind::Set);
  CHECK_FALSE(plain->set.node_overlays.at(0).has_capacity);
}

// upstream: "should not allow cpu resources override", "... memory ...", "... pod ..."
TEST_CASE("a NodeOverlay may not set cpu memory ephemeral-storage or pods", "[scenario]") {
  for (std::string_view r : {"cpu", "memory", "ephemeral-storage", "pods"}) {
    const std::string error = decode_error(overlay("  capacity:\n    " + std::string(r) + ": 4\n"));
    CHECK(
        error.starts_with(fmt::format("test.yaml:6:5: spec.capacity.{}: invalid capacity: {} "
                                      "in resource, restricted",
                                      r, r)));
  }
  // upstream: "should allow custom resources"
  CHECK(decode(overlay("  capacity: {smarter-devices/fuse: 1}\n"))->set.node_overlays.size() == 1);
}

// upstream: "shout not be able to set both price and priceAdjustment", and the price and
// priceAdjustment tables
TEST_CASE("a NodeOverlay's price and priceAdjustment follow the CRD", "[scenario]") {
  CHECK(decode_error(overlay("  price: \"0.432\"\n  priceAdjustment: \"+10%\"\n")) ==
        "test.yaml:5:3: spec: cannot set both 'price' and 'priceAdjustment'");
  CHECK(decode_error(overlay("  price: \"+42\"\n")) ==
        "test.yaml:5:10: spec.price: \"+42\" is not a price: give an unsigned decimal such as "
        "0.75 (dollars an hour; use priceAdjustment for a change)");
  CHECK(decode_error(overlay("  priceAdjustment: \"1%\"\n"))
            .starts_with("test.yaml:5:20: spec.priceAdjustment: \"1%\" is not a price adjustment"));
  CHECK(decode_error(overlay("  priceAdjustment: \"-101.1%\"\n"))
            .starts_with("test.yaml:5:20: spec.priceAdjustment"));
}

// upstream: "should fail for no values for In operator", "... NotIn operator", "should fail for
// restricted domains", "should allow for the karpenter.sh/nodepool label", "should allow
// kubernetes domains exceptions", "should fail with invalid GT or LT values", and the CRD's
// weight bounds
TEST_CASE("a NodeOverlay's requirements follow Karpenter's validation", "[scenario]") {
  auto req = [](std::string_view r) {
    return overlay("  requirements:\n    - " + std::string(r) + "\n");
  };
  CHECK(decode_error(req("{key: test, operator: In}")) ==
        "test.yaml:6:29: spec.requirements[0].operator: operator In needs at least one value");
  CHECK(decode_error(req("{key: test, operator: NotIn}")) ==
        "test.yaml:6:29: spec.requirements[0].operator: operator NotIn needs at least one value");
  CHECK(decode_error(req("{key: karpenter.sh/test, operator: Exists}")) ==
        "test.yaml:6:13: spec.requirements[0].key: label domain \"karpenter.sh\" is restricted");
  CHECK(decode(req("{key: kubernetes.io/test, operator: In, values: [a]}"))
            ->set.node_overlays.size() == 1);
  CHECK(decode(req("{key: karpenter.sh/capacity-type, operator: In, values: [spot]}"))
            ->set.node_overlays.size() == 1);
  CHECK(decode_error(req("{key: topology.kubernetes.io/zone, operator: Gt, values: [\"-1\"]}"))
            .starts_with("test.yaml:6:"));
  CHECK(decode_error(overlay("  weight: 0\n")).starts_with("test.yaml:5:11: spec.weight"));
  CHECK(decode_error(overlay("  weight: 10001\n")).starts_with("test.yaml:5:11: spec.weight"));
}
