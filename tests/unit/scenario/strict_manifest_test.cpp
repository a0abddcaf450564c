// Manifests are read as `kubectl apply --validate=strict` reads them (issue 25, item 1): a field
// the object's API does not have is an error with a hint, unless read leniently; a misspelt kind
// and a retired apiVersion are errors naming what fleetsim reads.
#include <catch2/catch.hpp>

#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/manifest_kinds.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

std::string deployment_with_container(std::string_view container_fields) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
         "  selector: {matchLabels: {app: web}}\n  template:\n"
         "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
         "        - name: c\n" +
         std::string(container_fields);
}

// Decodes `yaml` with unknown fields read as warnings.
std::unique_ptr<test::Decoded> decode_lenient(std::string_view yaml) {
  auto out = std::make_unique<test::Decoded>();
  out->warnings.set_field_validation(FieldValidation::Lenient);
  YamlDocuments docs = parse_yaml(yaml, "test.yaml");
  ManifestLoader loader(out->resources, out->warnings);
  for (const auto& doc : docs.documents) loader.load_manifest(YamlValue(doc, docs.file), out->set);
  return out;
}

}  // namespace

TEST_CASE("a field the object's API does not have is an error with a did-you-mean",
          "[scenario][strict]") {
  const std::string typo =
      deployment_with_container("          resources: {requets: {cpu: \"1\"}}\n");
  CHECK(decode_error(typo) ==
        "test.yaml:11:23: spec.template.spec.containers[0].resources.requets: unknown field "
        "(ResourceRequirements has no such field); did you mean \"requests\"? (--lenient, or the "
        "scenario's manifest_validation: lenient, reads it as a warning)");
  // At every level: the manifest itself, ObjectMeta, the pod spec, a NodePool's template.
  // A misspelt required field is named where its absence is found.
  CHECK(decode_error("apiVersion: v1\nkind: Pod\nmetadta: {name: p}\n") ==
        "test.yaml:1:1: metadata: required field is missing (is \"metadta\" at 3:1 a typo of "
        "it?)");
  CHECK(decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p, lables: {a: b}}\n"
                     "spec: {containers: [{name: c}]}\n")
            .starts_with("test.yaml:3:21: metadata.lables: unknown field (ObjectMeta has no "
                         "such field); did you mean \"labels\"?"));
  CHECK(decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
                     "spec: {containers: [{name: c}], nodeSelectr: {a: b}}\n")
            .starts_with("test.yaml:4:33: spec.nodeSelectr: unknown field (PodSpec has no such "
                         "field); did you mean \"nodeSelector\"?"));
  CHECK(
      decode_error(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      expiresAfter: 720h
)")
          .starts_with("test.yaml:8:7: spec.template.spec.expiresAfter: unknown field ("
                       "NodeClaimTemplateSpec has no such field); did you mean \"expireAfter\"?"));
  // No hint when nothing is close.
  CHECK(decode_error(deployment_with_container("          zzzzzzzz: 1\n")) ==
        "test.yaml:11:11: spec.template.spec.containers[0].zzzzzzzz: unknown field (Container "
        "has no such field) (--lenient, or the scenario's manifest_validation: lenient, reads it "
        "as a warning)");
}

TEST_CASE("fields the API has but fleetsim does not model warn, inert ones are silent",
          "[scenario][strict]") {
  auto d = decode(deployment_with_container(
      "          env: [{name: A, value: b}]\n          livenessProbe: {periodSeconds: 5}\n"
      "          stdin: true\n"));
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 2);
  CHECK(w[0].field == "Deployment.spec.template.spec.containers[].livenessProbe");
  CHECK(w[0].message == "not modelled; ignored");
  CHECK(w[1].field == "Deployment.spec.template.spec.containers[].stdin");
}

TEST_CASE("read leniently, an unknown field is one warning and the rest of the manifest is read",
          "[scenario][strict]") {
  auto d = decode_lenient(
      deployment_with_container("          resources: {requets: {cpu: \"1\"}, limits: {cpu: "
                                "\"2\"}}\n"));
  REQUIRE(d->set.workloads.size() == 1);
  CHECK(d->set.workloads[0].workload.pod.spec.requests[resource::kCpu] ==
        2000);  // the limit, defaulted
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 1);
  CHECK(w[0].field == "Deployment.spec.template.spec.containers[].resources.requets");
  CHECK(w[0].message ==
        "unknown field (ResourceRequirements has no such field; did you mean \"requests\"?); "
        "ignored");
  CHECK(w[0].where.to_string() == "test.yaml:11:23");
}

TEST_CASE("an unknown kind within two edits of one fleetsim reads is an error",
          "[scenario][strict]") {
  CHECK(decode_error("apiVersion: karpenter.sh/v1\nkind: Nodepool\nmetadata: {name: a}\n") ==
        "test.yaml:2:7: kind: unknown kind \"Nodepool\" in karpenter.sh/v1; did you mean "
        "\"NodePool\"?");
  CHECK(decode_error("apiVersion: apps/v1\nkind: Deploymnet\n") ==
        "test.yaml:2:7: kind: unknown kind \"Deploymnet\" in apps/v1; did you mean "
        "\"Deployment\"?");
  CHECK(decode_error("apiVersion: v1\nkind: pod\n") ==
        "test.yaml:2:7: kind: unknown kind \"pod\" in v1; did you mean \"Pod\"?");
  CHECK(decode_error("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\n") ==
        "test.yaml:2:7: kind: kind Provisioner is retired: Karpenter replaced Provisioner with "
        "NodePool (karpenter.sh/v1)");
  // Real kinds, however close to a decoded one, and kinds of other groups, warn once each.
  auto d = decode(
      "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
      "apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: c}\n---\n"
      "apiVersion: example.com/v1\nkind: Nodepool\nmetadata: {name: x}\n");
  const auto& w = d->warnings.warnings();
  REQUIRE(w.size() == 3);
  CHECK(w[0].message == "kind Node is not modelled; ignored");
  CHECK(w[1].message == "kind NodeClaim is not modelled; ignored");
  CHECK(w[2].message == "kind Nodepool is not modelled; ignored");
}

TEST_CASE("a retired apiVersion of a kind fleetsim reads is one error naming the migration",
          "[scenario][strict]") {
  // A v1beta1 NodePool as Karpenter's v0.3x docs wrote it: one error at apiVersion, not a
  // cascade about nodeClassRef.group or expireAfter.
  CHECK(decode_error(R"(apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: legacy}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: legacy}
  disruption: {consolidationPolicy: WhenUnderutilized, expireAfter: 720h}
)") == "test.yaml:1:13: apiVersion: NodePool karpenter.sh/v1beta1 is not read: fleetsim reads "
       "NodePool (apiVersion: karpenter.sh/v1). Karpenter v1 no longer serves v1beta1 "
       "(karpenter.sh/docs/upgrading/v1-migration): nodeClassRef takes group: karpenter.k8s.aws "
       "and kind: EC2NodeClass instead of apiVersion, spec.disruption.expireAfter moves to "
       "spec.template.spec.expireAfter, consolidationPolicy WhenUnderutilized becomes "
       "WhenEmptyOrUnderutilized, and kubelet moves to the EC2NodeClass");
  CHECK(decode_error("apiVersion: karpenter.k8s.aws/v1beta1\nkind: EC2NodeClass\n")
            .starts_with("test.yaml:1:13: apiVersion: EC2NodeClass karpenter.k8s.aws/v1beta1 is "
                         "not read: fleetsim reads EC2NodeClass (apiVersion: "
                         "karpenter.k8s.aws/v1). Karpenter v1 no longer serves v1beta1"));
  CHECK(decode_error("apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\n") ==
        "test.yaml:1:13: apiVersion: HorizontalPodAutoscaler autoscaling/v2beta2 is not read: "
        "fleetsim reads HorizontalPodAutoscaler (apiVersion: autoscaling/v2). Kubernetes 1.26 "
        "removed v2beta2; autoscaling/v2 has the same fields");
  CHECK(decode_error("apiVersion: apps/v2\nkind: Deployment\n") ==
        "test.yaml:1:13: apiVersion: apiVersion \"apps/v2\" is not supported for Deployment; use "
        "apps/v1");
}

TEST_CASE("a v1 NodePool that kept v1beta1's WhenUnderutilized is told its new name",
          "[scenario][strict]") {
  CHECK(decode_error(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidationPolicy: WhenUnderutilized}
)") == "test.yaml:8:37: spec.disruption.consolidationPolicy: unknown consolidationPolicy "
       "\"WhenUnderutilized\"; expected WhenEmpty, WhenEmptyOrUnderutilized, Balanced "
       "(karpenter.sh/v1 renamed v1beta1's WhenUnderutilized WhenEmptyOrUnderutilized)");
}

TEST_CASE("the upstream field tables are sorted and hold the fields fleetsim decodes",
          "[scenario][strict]") {
  for (const ApiType* t : {&api::PodSpec, &api::Container, &api::ObjectMeta, &api::NodePoolSpec,
                           &api::EksctlManagedNodeGroup, &api::ScaledObjectSpec}) {
    CHECK(std::is_sorted(t->fields.begin(), t->fields.end()));
  }
  CHECK(api::Container.has("resources"));
  CHECK(api::PodSpec.has("topologySpreadConstraints"));
  CHECK(api::NodeClaimTemplateSpec.has("expireAfter"));
  CHECK(api::EksctlManagedNodeGroup.has("instanceTypes"));
  CHECK_FALSE(api::EksctlManagedNodeGroup.has("instancesDistribution"));  // eksctl#1600
  CHECK(api::EksctlNodeGroup.has("instancesDistribution"));
  CHECK(api::KubeletConfiguration.has("maxPods"));
  CHECK(api::TriggerMetadata.has("anything"));
}

TEST_CASE("maxSurge may exceed 100% as Kubernetes allows, maxUnavailable and PDBs may not",
          "[scenario][strict]") {
  auto deployment = [](std::string_view rolling) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
           "  selector: {matchLabels: {app: web}}\n  strategy: {rollingUpdate: " +
           std::string(rolling) +
           "}\n  template:\n    metadata: {labels: {app: web}}\n"
           "    spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}\n";
  };
  auto d = decode(deployment("{maxSurge: \"200%\", maxUnavailable: 0}"));
  CHECK(d->set.workloads.at(0).workload.strategy.max_surge == IntOrPercent{200, true});
  CHECK(decode_error(deployment("{maxSurge: 1, maxUnavailable: \"150%\"}")) ==
        "test.yaml:6:59: spec.strategy.rollingUpdate.maxUnavailable: \"150%\" is not a "
        "percentage from 0% to 100%");
  CHECK(decode_error(deployment("{maxSurge: \"-5%\"}")) ==
        "test.yaml:6:40: spec.strategy.rollingUpdate.maxSurge: \"-5%\" is not a whole percentage "
        "from 0% to 2147483647%");
}
