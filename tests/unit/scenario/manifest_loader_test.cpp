#include "fleetsim/scenario/manifest_loader.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fleetsim/scenario/inert_fields.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

std::string deployment(std::string_view name, std::string_view image) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + std::string(name) +
         "}\nspec:\n  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: "
         "x}}\n"
         "    spec:\n      containers: [{name: c, image: " +
         std::string(image) + ", lifecycle: {}}]\n";
}

}  // namespace

TEST_CASE("unmodelled fields warn once however often they appear", "[scenario]") {
  auto d = decode(deployment("a", "nginx:1") + "---\n" + deployment("b", "nginx:2"));
  REQUIRE(d->set.workloads.size() == 2);
  CHECK(d->set.workloads[0].workload.pod.spec.images == std::vector<std::string>{"nginx:1"});
  CHECK(d->set.workloads[1].workload.pod.spec.images == std::vector<std::string>{"nginx:2"});
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 1);
  CHECK(w[0].field == "Deployment.spec.template.spec.containers[].lifecycle");
  CHECK(w[0].message == "not modelled; ignored");
  CHECK(w[0].where.to_string() == "test.yaml:9:46");
}

TEST_CASE(
    "EC2NodeClass: block devices and maxPods are read, boot settings that cannot change a "
    "number are accepted silently, the others warn (issue 12, finding 8)",
    "[scenario]") {
  ResourceRegistry resources;
  WarningLog warnings;
  ManifestLoader loader(resources, warnings);
  ManifestSet set;
  auto file = test::fixtures() / "manifests/gpu-nodepool.yaml";
  loader.load_file(file, {}, {}, set);
  REQUIRE(set.node_classes.size() == 1);
  const EC2NodeClass& nc = set.node_classes[0];
  CHECK(nc.name == "default");
  CHECK(nc.max_pods == 110);
  REQUIRE(nc.block_devices.size() == 1);
  const BlockDevice& b = nc.block_devices[0];
  CHECK(b.device_name == "/dev/xvda");
  CHECK(b.size_bytes == 200LL * 1024 * 1024 * 1024);
  CHECK(b.type == EbsVolumeType::gp3);
  CHECK(b.iops == 10000);
  CHECK(b.throughput_mibps == 500);
  std::vector<std::string> fields;
  for (const auto& warning : warnings.warnings()) fields.push_back(warning.field);
  // encrypted, role, amiSelectorTerms and securityGroupSelectorTerms are inert (inert_fields.cpp).
  CHECK(fields == std::vector<std::string>{"EC2NodeClass.spec.subnetSelectorTerms",
                                           "EC2NodeClass.spec.amiFamily"});
  CHECK(warnings.warnings()[0].message ==
        "subnets are not resolved to zones: nodes launch in every zone the NodePool allows (a "
        "topology.kubernetes.io/zone requirement narrows them); a change in a scripted apply "
        "drifts the nodes");
  CHECK_FALSE(warnings.warnings()[0].unmodelled());  // it shows in a --warnings summary
  CHECK(warnings.warnings()[1].where.to_string() == file.string() + ":55:3");
  CHECK(warnings.warnings()[1].unmodelled());
}

TEST_CASE("EC2NodeClass value errors", "[scenario]") {
  auto nc = [](std::string_view ebs) {
    return decode_error(
        "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: d}\nspec:\n"
        "  blockDeviceMappings:\n    - ebs: " +
        std::string(ebs) + "\n");
  };
  CHECK(nc("{volumeType: gp4}") ==
        "test.yaml:6:25: spec.blockDeviceMappings[0].ebs.volumeType: unknown volumeType \"gp4\"; "
        "expected gp2, "
        "gp3, io1, io2, st1, sc1 or standard; did you mean \"gp2\"?");
  CHECK(nc("{volumeSize: 100Ti}") ==
        "test.yaml:6:25: spec.blockDeviceMappings[0].ebs.volumeSize: volumeSize must be more than "
        "0 and at most 64Ti");
  CHECK(
      nc("{iops: 1000000}") ==
      "test.yaml:6:19: spec.blockDeviceMappings[0].ebs.iops: 1000000 is out of range [0, 256000]");
}

TEST_CASE("inline manifests are read as manifest files are", "[scenario]") {
  auto docs = parse_yaml(
      "manifests:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: p}\n"
      "    spec: {containers: [{name: c, image: x}], hostNetwork: true}\n",
      "scenario.yaml");
  YamlValue root(docs.documents[0], docs.file);
  YamlMap top(root);
  YamlValue item = top.require("manifests").items()[0];
  ResourceRegistry resources;
  WarningLog warnings;
  ManifestLoader loader(resources, warnings);
  ManifestSet set;
  loader.load_manifest(YamlValue(item.node(), item.file_ptr(), item.path()), set);
  CHECK(set.workloads.at(0).workload.name == "p");
  CHECK(set.workloads.at(0).workload.pod.spec.images == std::vector<std::string>{"x"});
  REQUIRE(warnings.warnings().size() == 1);
  // Warnings are keyed on the path inside the manifest...
  CHECK(warnings.warnings()[0].field == "Pod.spec.hostNetwork");
  CHECK(warnings.warnings()[0].where.to_string() == "scenario.yaml:5:47");

  // ...and errors name the full path in the scenario file.
  auto bad = parse_yaml(
      "manifests:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: p}\n"
      "    spec: {containers: []}\n",
      "scenario.yaml");
  YamlValue bad_item =
      YamlMap(YamlValue(bad.documents[0], bad.file)).require("manifests").items()[0];
  CHECK(
      test::config_error([&] {
        loader.load_manifest(YamlValue(bad_item.node(), bad_item.file_ptr(), bad_item.path()), set);
      }) == "scenario.yaml:5:24: manifests[0].spec.containers: a pod needs at least one container");
}

TEST_CASE("kinds dispatch on apiVersion and kind", "[scenario]") {
  auto d = decode(R"(apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: a}
managedNodeGroups: [{name: ng-a}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: b}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: c}
spec:
  scaleTargetRef: {name: web}
  minReplicaCount: 1
  triggers: [{type: cpu, metricType: Utilization, metadata: {value: "60"}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: d}
data: {x: y}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: e}
---
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Pod
    metadata: {name: listed}
    spec: {containers: [{name: c}], hostNetwork: true}
)");
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 2);
  CHECK(w[0].message == "kind ResourceQuota is not modelled; ignored");  // a ConfigMap is inert
  CHECK(w[1].field == "Pod.spec.hostNetwork");
  CHECK(d->set.node_groups.at(0).name == "ng-a");
  CHECK(d->set.workloads.at(0).workload.name == "listed");
  CHECK(d->set.scaled_objects.at(0).name == "c");
  CHECK(d->set.pdbs.at(0).name == "b");

  CHECK(decode_error("kind: Pod\nmetadata: {name: p}\n") ==
        "test.yaml:1:1: apiVersion: required field is missing");
  CHECK(decode_error("apiVersion: v1\nmetadata: {name: p}\n") ==
        "test.yaml:1:1: kind: required field is missing");
  CHECK(decode_error("apiVersion: extensions/v1beta1\nkind: Deployment\n") ==
        "test.yaml:1:13: apiVersion: Deployment extensions/v1beta1 is not read: fleetsim reads "
        "Deployment (apiVersion: apps/v1). Kubernetes 1.16 removed it; apps/v1 requires "
        "spec.selector, matching the template's labels");
  CHECK(decode_error("- a\n- b\n") == "test.yaml:1:1: expected a mapping, got a list");
  CHECK(decode_error("apiVersion: v1\nkind: Pod\nkind: Pod\n") ==
        "test.yaml:3:1: kind: duplicate key \"kind\"");
}

TEST_CASE("duplicate names per kind are refused", "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: other}
spec: {containers: [{name: c}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: p}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}
---
apiVersion: v1
kind: Pod
metadata:
  name: p
spec: {containers: [{name: c}]}
)");
  CHECK(test::config_error([&] { check_unique_names(d->set); }) ==
        "test.yaml:19:9: metadata.name: a second Pod named \"p\" (the first is at test.yaml:3:18)");
}

TEST_CASE("a prometheus trigger's query outside the PromQL subset is refused at the query",
          "[scenario]") {
  auto with_query = [](std::string_view query) {
    return std::string(R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: so}
spec:
  scaleTargetRef: {name: web}
  triggers:
    - type: prometheus
      metadata:
        serverAddress: http://prometheus:9090
        query: )") +
           std::string(query) + "\n        threshold: \"5\"\n";
  };
  CHECK(decode_error(with_query("'histogram_quantile(0.9, rate(x[5m]))'")) ==
        "test.yaml:10:16: spec.triggers[0].metadata.query: unsupported PromQL: "
        "`histogram_quantile` at column 1; fleetsim evaluates avg|sum|max|min|count over "
        "selectors, rate/increase, *_over_time, and + - * / between them");
  CHECK(decode_error(with_query("sum(x")) ==
        "test.yaml:10:16: spec.triggers[0].metadata.query: PromQL syntax error at column 6: "
        "expected `)` to close the aggregation, got the end");
  CHECK(decode(with_query(R"('sum(rate(vllm:request_success_total{namespace="serving"}[1m]))')"))
            ->set.scaled_objects.at(0)
            .triggers.at(0)
            .query == R"(sum(rate(vllm:request_success_total{namespace="serving"}[1m])))");
}

TEST_CASE("the inert list: kinds, fields and fields under any pod spec (issue 12, finding 8)",
          "[scenario]") {
  CHECK(is_inert("ConfigMap"));
  CHECK(is_inert("EC2NodeClass.spec.role"));
  CHECK(is_inert("Pod.spec.containers[].env"));
  CHECK(is_inert("Deployment.spec.template.spec.containers[].env"));
  CHECK(is_inert("Job.spec.template.spec.serviceAccountName"));
  CHECK(is_inert("DaemonSet.spec.template.spec.initContainers[].command"));
  CHECK_FALSE(is_inert("ResourceQuota"));
  CHECK_FALSE(is_inert("Deployment.spec.template.spec.containers[].livenessProbe"));
  CHECK_FALSE(is_inert("EC2NodeClass.spec.userData"));
  CHECK_FALSE(is_inert("Deployment.spec.containers[].env"));  // not a pod spec
  // README documents the list: each entry as `field`, without its kind or pod prefix.
  std::ifstream in(std::filesystem::path(FLEETSIM_SOURCE_DIR) / "README.md");
  const std::string readme{std::istreambuf_iterator<char>(in), {}};
  for (const InertField& f : inert_fields()) {
    INFO(f.field);
    CHECK_FALSE(f.why.empty());
    std::string_view shown = f.field;
    for (std::string_view prefix : {"EC2NodeClass.spec.", "pod:"})
      if (shown.starts_with(prefix)) shown.remove_prefix(prefix.size());
    CHECK(readme.find("`" + std::string(shown) + "`") != std::string::npos);
  }
}
