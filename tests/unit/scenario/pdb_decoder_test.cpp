// PodDisruptionBudget manifests: the fields, and the API server's validation as located errors.
#include "fleetsim/scenario/pdb_decoder.hpp"

#include <catch2/catch.hpp>

#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

// Five lines; spec fields written after it start on line 6 at column 3.
std::string pdb(std::string_view spec) {
  return "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web, namespace: "
         "shop}\nspec:\n  selector: {matchLabels: {app: web}}\n" +
         std::string(spec);
}

}  // namespace

TEST_CASE("a PDB's budget is an integer or a percentage, and its selector is read", "[scenario]") {
  auto d = decode(pdb("  minAvailable: 2\n"));
  const PodDisruptionBudgetSpec& p = d->set.pdbs.at(0);
  CHECK(p.name == "web");
  CHECK(p.namespace_name == "shop");
  CHECK(p.min_available == IntOrPercent{.value = 2});
  CHECK_FALSE(p.max_unavailable);
  CHECK(p.selector->match_labels == Labels{{"app", "web"}});
  CHECK(p.unhealthy_pod_eviction_policy == UnhealthyPodEvictionPolicy::IfHealthyBudget);
  CHECK(d->warnings.warnings().empty());

  auto pct = decode(pdb("  maxUnavailable: 25%\n  unhealthyPodEvictionPolicy: AlwaysAllow\n"));
  CHECK(pct->set.pdbs.at(0).max_unavailable == IntOrPercent{.value = 25, .percent = true});
  CHECK(pct->set.pdbs.at(0).unhealthy_pod_eviction_policy ==
        UnhealthyPodEvictionPolicy::AlwaysAllow);

  auto expr = decode(
      "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\nspec:\n"
      "  maxUnavailable: 1\n  selector:\n    matchExpressions:\n"
      "      - {key: tier, operator: In, values: [a, b]}\n      - {key: canary, operator: "
      "DoesNotExist}\n");
  const LabelSelector& s = *expr->set.pdbs.at(0).selector;
  CHECK(s.matches({{"tier", "a"}}));
  CHECK_FALSE(s.matches({{"tier", "c"}}));
  CHECK_FALSE(s.matches({{"tier", "a"}, {"canary", "yes"}}));
  CHECK(expr->set.pdbs.at(0).namespace_name == "default");
}

TEST_CASE("a PDB needs exactly one of minAvailable and maxUnavailable", "[scenario]") {
  CHECK(decode_error(pdb("  minAvailable: 1\n  maxUnavailable: 1\n")) ==
        "test.yaml:5:3: spec: minAvailable and maxUnavailable cannot both be set");
  CHECK(decode_error(pdb("")) ==
        "test.yaml:5:3: spec: a PodDisruptionBudget needs minAvailable or maxUnavailable");
  CHECK(decode_error(pdb("  minAvailable: 150%\n")) ==
        "test.yaml:6:17: spec.minAvailable: \"150%\" is not a percentage from 0% to 100%");
  CHECK(decode_error(pdb("  maxUnavailable: -1\n"))
            .starts_with("test.yaml:6:19: spec.maxUnavailable"));
  CHECK(decode_error(pdb("  minAvailable: 1\n  unhealthyPodEvictionPolicy: AlwaysAlow\n")) ==
        "test.yaml:7:31: spec.unhealthyPodEvictionPolicy: unknown unhealthyPodEvictionPolicy "
        "\"AlwaysAlow\"; expected IfHealthyBudget or AlwaysAllow; did you mean "
        "\"AlwaysAllow\"?");
}
