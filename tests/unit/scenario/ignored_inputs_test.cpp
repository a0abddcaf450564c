// Inputs that change nothing get a warning naming them and why (issue 25, item 8).
#include <catch2/catch.hpp>

#include "fleetsim/scenario/scenario_loader.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;

namespace {

// A scenario in a scratch directory using the fixture catalog; `body` follows three fixed lines.
struct Scratch {
  test::TempDir dir;
  std::filesystem::path file;
  Scratch(std::string_view name, std::string_view body) : dir(name) {
    file = dir.write("scenario.yaml", "name: scratch\nduration: 6h\ncatalog: " +
                                          (test::fixtures() / "catalog/aws/us-east-1").string() +
                                          "\n" + std::string(body));
  }
  std::string at(int line, int col) const {
    return file.string() + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

// The warnings of one code, as "file:line:col: field: message".
std::vector<std::string> warnings_of(const ScenarioConfig& cfg, WarningCode code) {
  std::vector<std::string> out;
  for (const Warning& w : cfg.warnings)
    if (w.code == code) out.push_back(w.where.to_string() + ": " + w.field + ": " + w.message);
  return out;
}

// A Cluster Autoscaler scenario: one eksctl node group, then `extra` manifests.
std::string ca_body(std::string_view settings, std::string_view extra = "") {
  return "provisioner: cluster-autoscaler\n" + std::string(settings) +
         "manifests:\n"
         "  - {apiVersion: eksctl.io/v1alpha5, kind: ClusterConfig, metadata: {name: c}, "
         "managedNodeGroups: [{name: ng, instanceType: m5.xlarge, minSize: 1, maxSize: 2}]}\n" +
         std::string(extra);
}

}  // namespace

TEST_CASE("spot knobs without an interruption rate are named as ignored", "[scenario]") {
  Scratch s("spot-knobs",
            "spot:\n"
            "  availability: avail.csv\n"
            "  scale: 2\n"
            "  waves: {share: 0.25}\n"
            "  rebalance: {share: 0}\n");
  s.dir.write("avail.csv", "time_s,instance_type,zone,available\n60,g5.xlarge,us-east-1a,0\n");
  const ScenarioConfig cfg = load_scenario(s.file);
  CHECK(warnings_of(cfg, WarningCode::SpotNoInterruptionRate) ==
        std::vector<std::string>{
            s.at(6, 10) +
                ": spot.scale: scale shapes the interruptions drawn from interruption_rate or "
                "families, and neither is given: no interruption is drawn, so scale is ignored",
            s.at(7, 10) +
                ": spot.waves: waves shapes the interruptions drawn from interruption_rate or "
                "families, and neither is given: no interruption is drawn, so waves is ignored",
            s.at(8, 14) +
                ": spot.rebalance: rebalance shapes the interruptions drawn from "
                "interruption_rate or families, and neither is given: no interruption is drawn, "
                "so rebalance is ignored"});
  // With a rate, or a family's rate, they shape its waves.
  Scratch rated("spot-knobs-rated", "spot: {interruption_rate: band_max, scale: 2}\n");
  CHECK(warnings_of(load_scenario(rated.file), WarningCode::SpotNoInterruptionRate).empty());
  Scratch family("spot-knobs-family",
                 "spot: {availability: avail.csv, families: {g5: {per_month: 0.1}}, scale: 2}\n");
  family.dir.write("avail.csv", "time_s,instance_type,zone,available\n60,g5.xlarge,us-east-1a,0\n");
  CHECK(warnings_of(load_scenario(family.file), WarningCode::SpotNoInterruptionRate).empty());
}

TEST_CASE("priorities without the priority expander are named as ignored", "[scenario]") {
  Scratch own("prio-own", ca_body("cluster_autoscaler: {priorities: {10: [ng]}}\n"));
  CHECK(warnings_of(load_scenario(own.file), WarningCode::PriorityExpanderUnused) ==
        std::vector<std::string>{
            own.at(5, 34) +
            ": cluster_autoscaler.priorities: the expander is least-waste, without priority, and "
            "only the priority expander reads these priorities: they are ignored; add priority "
            "to cluster_autoscaler.expander (priority,least-waste)"});
  Scratch cm("prio-cm", ca_body("cluster_autoscaler: {expander: most-pods}\n",
                                "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: "
                                "cluster-autoscaler-priority-expander}, data: {priorities: "
                                "\"10: [ng]\"}}\n"));
  CHECK(warnings_of(load_scenario(cm.file), WarningCode::PriorityExpanderUnused) ==
        std::vector<std::string>{
            cm.at(8, 56) +
            ": ConfigMap: the expander is most-pods, without priority, and only the priority "
            "expander reads these priorities: they are ignored; add priority to "
            "cluster_autoscaler.expander (priority,most-pods)"});
  Scratch used("prio-used",
               ca_body("cluster_autoscaler: {expander: priority, priorities: {10: [ng]}}\n"));
  CHECK(warnings_of(load_scenario(used.file), WarningCode::PriorityExpanderUnused).empty());
}

TEST_CASE("a priority expander ConfigMap outside kube-system is not read", "[scenario]") {
  Scratch s("prio-ns", ca_body("cluster_autoscaler: {expander: priority}\n",
                               "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: "
                               "cluster-autoscaler-priority-expander, namespace: default}, "
                               "data: {priorities: \"10: [ng]\"}}\n"));
  const ScenarioConfig cfg = load_scenario(s.file);
  CHECK(cfg.cluster_autoscaler.priorities.empty());
  CHECK(warnings_of(cfg, WarningCode::PriorityConfigMapNamespace) ==
        std::vector<std::string>{
            s.at(8, 105) +
            ": ConfigMap: ConfigMap default/cluster-autoscaler-priority-expander: the Cluster "
            "Autoscaler reads its priority expander's ConfigMap from its own namespace, "
            "kube-system; this one is not read"});
  Scratch ks("prio-ks", ca_body("cluster_autoscaler: {expander: priority}\n",
                                "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: "
                                "cluster-autoscaler-priority-expander, namespace: kube-system}, "
                                "data: {priorities: \"10: [ng]\"}}\n"));
  const ScenarioConfig read = load_scenario(ks.file);
  REQUIRE(read.cluster_autoscaler.priorities.size() == 1);
  CHECK(read.cluster_autoscaler.priorities[0].priority == 10);
}

TEST_CASE("the namespace flag says where the priority ConfigMap is read", "[scenario]") {
  Scratch s("prio-ns-flag",
            ca_body("cluster_autoscaler: {expander: priority, namespace: autoscaling}\n",
                    "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: "
                    "cluster-autoscaler-priority-expander, namespace: autoscaling}, "
                    "data: {priorities: \"10: [ng]\"}}\n"));
  const ScenarioConfig cfg = load_scenario(s.file);
  CHECK(cfg.cluster_autoscaler.priorities.size() == 1);
  CHECK(warnings_of(cfg, WarningCode::PriorityConfigMapNamespace).empty());
}

TEST_CASE("upstream's unmodelled Cluster Autoscaler flags are named, typos refused", "[scenario]") {
  Scratch s("ca-flags", ca_body("cluster_autoscaler:\n  skip_nodes_with_local_storage: false\n"
                                "  scale_down_unready_enabled: false\n  scan_interval: 20s\n"));
  const ScenarioConfig cfg = load_scenario(s.file);
  CHECK(cfg.cluster_autoscaler.scan_interval == seconds(20));
  CHECK(warnings_of(cfg, WarningCode::UnmodelledAutoscalerFlag) ==
        std::vector<std::string>{
            s.at(6, 34) + ": cluster_autoscaler.skip_nodes_with_local_storage: "
                          "--skip-nodes-with-local-storage is not modelled; ignored",
            s.at(7, 31) + ": cluster_autoscaler.scale_down_unready_enabled: "
                          "--scale-down-unready-enabled is not modelled; ignored"});
  Scratch typo("ca-flag-typo", ca_body("cluster_autoscaler: {scale_down_unneded_time: 5m}\n"));
  const std::string e = test::config_error([&] { load_scenario(typo.file); });
  CHECK(
      e.starts_with(typo.at(5, 22) + ": cluster_autoscaler.scale_down_unneded_time: unknown key"));
  CHECK(e.ends_with("did you mean \"scale_down_unneeded_time\"?"));
}

// Issue 25, item 8: errors inside the ConfigMap's priorities text pointed at 1:1.
TEST_CASE("priority ConfigMap errors point into its priorities text", "[scenario]") {
  auto error_with = [](std::string_view priorities) {
    Scratch s("prio-text", ca_body("cluster_autoscaler: {expander: priority}\n", "  - cm.yaml\n"));
    s.dir.write("cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
                "cluster-autoscaler-priority-expander\ndata:\n  priorities: " +
                    std::string(priorities));
    const std::string e = test::config_error([&] { load_scenario(s.file); });
    const std::string prefix = (s.dir.path() / "cm.yaml").string() + ":";
    return e.starts_with(prefix) ? e.substr(prefix.size()) : e;
  };
  CHECK(error_with("|-\n    10:\n      - .*-r5\n    high:\n      - .*\n") ==
        "9:5: data.priorities: priority \"high\" is not a whole number");
  CHECK(error_with("|\n    10:\n      - .*-r5\n      - \"[bad\"\n") ==
        "9:9: data.priorities.10[1]: \"[bad\" is not a regular expression: missing ]: [bad");
  // A quoted string's lines are not the file's: the error points at the string.
  CHECK(error_with("\"10: [ok]\\nx: [y]\"\n") ==
        "6:15: data.priorities: priority \"x\" is not a whole number");
}
