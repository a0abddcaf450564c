// Taints and tolerations, matched as the Kubernetes scheduler's ToleratesTaint matches them.
#include "fleetsim/k8s/taints.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

namespace {

Taint taint(std::string key, std::string value, TaintEffect effect = TaintEffect::NoSchedule) {
  return Taint{.key = std::move(key), .value = std::move(value), .effect = effect};
}

}  // namespace

TEST_CASE("taint effects parse and print", "[k8s]") {
  for (TaintEffect e :
       {TaintEffect::NoSchedule, TaintEffect::PreferNoSchedule, TaintEffect::NoExecute})
    CHECK(parse_taint_effect(to_string(e)) == e);
  CHECK_FALSE(parse_taint_effect("noschedule"));
}

TEST_CASE("an Equal toleration needs the same key and value", "[k8s]") {
  Toleration tol{.key = "nvidia.com/gpu",
                 .op = TolerationOperator::Equal,
                 .value = "true",
                 .effect = TaintEffect::NoSchedule};
  CHECK(tol.tolerates(taint("nvidia.com/gpu", "true")));
  CHECK_FALSE(tol.tolerates(taint("nvidia.com/gpu", "false")));
  CHECK_FALSE(tol.tolerates(taint("nvidia.com/gpu", "")));
  CHECK_FALSE(tol.tolerates(taint("dedicated", "true")));
}

TEST_CASE("an Exists toleration matches its key whatever the value", "[k8s]") {
  Toleration tol{.key = "nvidia.com/gpu", .op = TolerationOperator::Exists};
  CHECK(tol.tolerates(taint("nvidia.com/gpu", "true")));
  CHECK(tol.tolerates(taint("nvidia.com/gpu", "")));
  // No effect on the toleration matches every effect.
  CHECK(tol.tolerates(taint("nvidia.com/gpu", "x", TaintEffect::NoExecute)));
  CHECK(tol.tolerates(taint("nvidia.com/gpu", "x", TaintEffect::PreferNoSchedule)));
  CHECK_FALSE(tol.tolerates(taint("dedicated", "true")));
}

TEST_CASE("an empty key with Exists tolerates every taint", "[k8s]") {
  Toleration all{.key = "", .op = TolerationOperator::Exists};
  CHECK(all.tolerates(taint("nvidia.com/gpu", "true")));
  CHECK(all.tolerates(taint("karpenter.sh/disrupted", "", TaintEffect::NoSchedule)));
  CHECK(all.tolerates(taint("node.kubernetes.io/not-ready", "", TaintEffect::NoExecute)));
  // …unless it names an effect.
  Toleration only_no_execute{
      .key = "", .op = TolerationOperator::Exists, .effect = TaintEffect::NoExecute};
  CHECK(only_no_execute.tolerates(taint("a", "b", TaintEffect::NoExecute)));
  CHECK_FALSE(only_no_execute.tolerates(taint("a", "b", TaintEffect::NoSchedule)));
}

TEST_CASE("a toleration for another effect does not tolerate the taint", "[k8s]") {
  Toleration tol{.key = "dedicated",
                 .op = TolerationOperator::Equal,
                 .value = "ml",
                 .effect = TaintEffect::NoSchedule};
  CHECK_FALSE(tol.tolerates(taint("dedicated", "ml", TaintEffect::NoExecute)));
  CHECK_FALSE(tol.tolerates(taint("dedicated", "ml", TaintEffect::PreferNoSchedule)));
  CHECK(tol.tolerates(taint("dedicated", "ml", TaintEffect::NoSchedule)));
}

TEST_CASE("first_untolerated returns the first taint no toleration covers", "[k8s]") {
  std::vector<Taint> taints{taint("dedicated", "ml"),
                            taint("gpu", "true", TaintEffect::PreferNoSchedule),
                            taint("team", "a", TaintEffect::NoExecute)};
  std::vector<Toleration> tolerations{{.key = "dedicated", .op = TolerationOperator::Exists}};
  const Taint* t = first_untolerated(taints, tolerations);
  REQUIRE(t != nullptr);
  CHECK(t == &taints[1]);
  CHECK(first_untolerated(std::vector<Taint>{}, tolerations) == nullptr);
  CHECK(first_untolerated(taints, std::vector<Toleration>{
                                      {.key = "", .op = TolerationOperator::Exists}}) == nullptr);
}

TEST_CASE("PreferNoSchedule taints count unless ignored", "[k8s]") {
  std::vector<Taint> taints{taint("gpu", "true", TaintEffect::PreferNoSchedule),
                            taint("team", "a")};
  std::vector<Toleration> team{{.key = "team", .op = TolerationOperator::Equal, .value = "a"}};
  // Karpenter relaxes PreferNoSchedule taints last: they block until then.
  CHECK(first_untolerated(taints, team) == &taints[0]);
  CHECK(first_untolerated(taints, team, /*ignore_prefer_no_schedule=*/true) == nullptr);
  // Ignoring PreferNoSchedule never hides a NoSchedule taint.
  CHECK(first_untolerated(taints, std::vector<Toleration>{}, true) == &taints[1]);
}
