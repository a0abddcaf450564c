#include "fleetsim/scenario/pod_decoder.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {

constexpr std::int64_t kMi = 1024 * 1024;
constexpr std::int64_t kGi = 1024 * kMi;

// Six lines; the pod spec's fields written after it start on line 7 at column 3.
constexpr std::string_view kPodHead = R"(apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers: [{name: c, resources: {requests: {cpu: 100m}}}]
)";

std::string pod(std::string_view rest) { return std::string(kPodHead) + std::string(rest); }

const PodSpec& spec_of(const test::Decoded& d) { return d.set.workloads.at(0).workload.pod.spec; }

}  // namespace

TEST_CASE("the pod request is the larger of init containers and app containers plus sidecars",
          "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  initContainers:
    - name: fetch-weights        # runs alone: 2 CPU
      resources: {requests: {cpu: "2", memory: 1Gi}}
    - name: log-shipper          # a sidecar: runs beside everything after it
      restartPolicy: Always
      resources: {requests: {cpu: 250m, memory: 512Mi}}
    - name: warmup               # runs beside the sidecar: 3 + 0.25 CPU
      resources: {requests: {cpu: "3", memory: 128Mi}}
  containers:
    - name: main
      resources: {requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}}
    - name: metrics
      resources: {requests: {cpu: 500m, memory: 1Gi}}
  overhead: {cpu: 100m, memory: 64Mi}
)");
  const PodSpec& s = spec_of(*d);
  // cpu: max(2, 0.25, 3 + 0.25, 1 + 0.5 + 0.25) + 0.1 overhead
  CHECK(s.requests.cpu_millis() == 3350);
  // memory: max(1Gi, 512Mi, 128Mi + 512Mi, 2Gi + 512Mi) + 64Mi
  CHECK(s.requests.memory_bytes() == 2 * kGi + 512 * kMi + 64 * kMi);
  CHECK(s.requests[resource::kNvidiaGpu] == 1);
  CHECK(s.requests.pods() == 1);
  CHECK(s.requests[resource::kEphemeralStorage] == 0);
}

TEST_CASE("a limit stands in for a missing request, as Kubernetes defaults it", "[scenario]") {
  auto d = decode(pod(R"(  initContainers: []
  overhead: {}
---
apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  containers:
    - name: only-limits
      resources:
        limits: {cpu: "2", memory: 4Gi, nvidia.com/gpu: 2, ephemeral-storage: 10Gi}
    - name: both
      resources:
        requests: {cpu: "1", memory: 1Gi}
        limits: {cpu: "4", memory: 2Gi}
)"));
  const PodSpec& s = d->set.workloads.at(1).workload.pod.spec;
  CHECK(s.requests.cpu_millis() == 3000);
  CHECK(s.requests.memory_bytes() == 5 * kGi);
  CHECK(s.requests[resource::kNvidiaGpu] == 2);
  CHECK(s.requests[resource::kEphemeralStorage] == 10 * kGi);
}

TEST_CASE("node selectors and node affinity become requirements", "[scenario]") {
  auto d = decode(pod(R"(  nodeSelector:
    karpenter.sh/capacity-type: spot
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions:
              - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g5]}
          - matchExpressions:
              - {key: karpenter.k8s.aws/instance-family, operator: In, values: [p5]}
              - {key: karpenter.k8s.aws/instance-gpu-count, operator: Gt, values: ["4"]}
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference:
            matchExpressions: [{key: failure-domain.beta.kubernetes.io/zone, operator: In, values: [us-east-1a]}]
        - weight: 50
          preference:
            matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1b]}]
        - weight: 50
          preference:
            matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [us-east-1c]}]
)"));
  const PodSpec& s = spec_of(*d);
  CHECK(s.node_requirements.entries().size() == 2);
  CHECK(s.node_requirements.get(label::kCapacityType)->values() ==
        std::vector<std::string>{"spot"});
  CHECK(s.node_requirements.get(label::kInstanceFamily)->values() ==
        std::vector<std::string>{"g5"});
  REQUIRE(s.alternative_node_requirements.size() == 1);
  const Requirements& alt = s.alternative_node_requirements[0];
  CHECK(alt.entries().size() == 3);
  CHECK(alt.get(label::kCapacityType)->values() == std::vector<std::string>{"spot"});
  CHECK(alt.get(label::kInstanceFamily)->values() == std::vector<std::string>{"p5"});
  CHECK(alt.get(label::kGpuCount)->allows("8"));
  REQUIRE(s.preferred_node_requirements);
  CHECK(s.preferred_node_requirements->get(label::kZone)->values() ==
        std::vector<std::string>{"us-east-1b"});
  CHECK(d->warnings.warnings().empty());
}

TEST_CASE("tolerations, spreads, grace periods and annotations", "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    karpenter.sh/do-not-disrupt: "true"
    fleetsim.io/duration: 1h30m
spec:
  containers: [{name: c}]
  terminationGracePeriodSeconds: 120
  tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
    - {key: dedicated, value: ml, effect: NoExecute, tolerationSeconds: 300}
    - {operator: Exists}
  topologySpreadConstraints:
    - maxSkew: 2
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: ScheduleAnyway
      labelSelector:
        matchLabels: {app: p}
        matchExpressions: [{key: tier, operator: In, values: [a]}]
)");
  const Workload& w = d->set.workloads.at(0).workload;
  const PodSpec& s = w.pod.spec;
  CHECK(s.do_not_disrupt == kForever);
  CHECK(w.run_time == minutes(90));
  CHECK(s.termination_grace == seconds(120));
  REQUIRE(s.tolerations.size() == 3);
  CHECK(s.tolerations[0] == Toleration{.key = "nvidia.com/gpu",
                                       .op = TolerationOperator::Exists,
                                       .value = "",
                                       .effect = TaintEffect::NoSchedule});
  CHECK(s.tolerations[1] == Toleration{.key = "dedicated",
                                       .op = TolerationOperator::Equal,
                                       .value = "ml",
                                       .effect = TaintEffect::NoExecute});
  CHECK(
      s.tolerations[2] ==
      Toleration{.key = "", .op = TolerationOperator::Exists, .value = "", .effect = std::nullopt});
  REQUIRE(s.topology_spread.size() == 1);
  CHECK(s.topology_spread[0] ==
        TopologySpread{
            .topology_key = "topology.kubernetes.io/zone",
            .max_skew = 2,
            .when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway,
            .selector = LabelSelector{.match_labels = {{"app", "p"}},
                                      .match_expressions = {{.key = "tier", .values = {"a"}}}}});
  CHECK(d->warnings.warnings().empty());
  CHECK(s.requests.cpu_millis() == 0);
  CHECK(s.requests.pods() == 1);
}

TEST_CASE("pod resource errors: negative, absurd, fractional and unknown", "[scenario]") {
  auto container = [](std::string_view resources) {
    return decode_error(
        pod("  initContainers:\n    - name: i\n      resources: " + std::string(resources) + "\n"));
  };
  CHECK(container("{requests: {cpu: \"-1\"}}") ==
        "test.yaml:9:35: spec.initContainers[0].resources.requests.cpu: quantity \"-1\" must not "
        "be negative");
  CHECK(container("{requests: {cpu: \"200000\"}}") ==
        "test.yaml:9:35: spec.initContainers[0].resources.requests.cpu: 200000 cpu is beyond any "
        "instance "
        "(at most 100000)");
  CHECK(container("{requests: {memory: 100Ti}}") ==
        "test.yaml:9:38: spec.initContainers[0].resources.requests.memory: 100Ti memory is beyond "
        "any "
        "instance (at most 64Ti)");
  CHECK(container("{limits: {nvidia.com/gpu: 65}}") ==
        "test.yaml:9:44: spec.initContainers[0].resources.limits.nvidia.com/gpu: 65 nvidia.com/gpu "
        "is beyond "
        "any instance (at most 64)");
  CHECK(container("{limits: {nvidia.com/gpu: 0.5}}") ==
        "test.yaml:9:44: spec.initContainers[0].resources.limits.nvidia.com/gpu: nvidia.com/gpu "
        "must be a "
        "whole number");
  CHECK(container("{requests: {gpu: 1}}") ==
        "test.yaml:9:30: spec.initContainers[0].resources.requests.gpu: unknown resource \"gpu\"; "
        "extended "
        "resources are named with a domain, such as nvidia.com/gpu");
  CHECK(container("{requests: {cpu: 2}, limits: {cpu: 1}}") ==
        "test.yaml:9:35: spec.initContainers[0].resources.requests.cpu: the request for cpu "
        "exceeds its limit");
  CHECK(container("{requests: {nvidia.com/gpu: 1}, limits: {nvidia.com/gpu: 2}}") ==
        "test.yaml:9:46: spec.initContainers[0].resources.requests.nvidia.com/gpu: the request for "
        "nvidia.com/gpu must equal its limit");
  CHECK(container("{requests: {cpu: 2 cores}}") ==
        "test.yaml:9:35: spec.initContainers[0].resources.requests.cpu: invalid quantity \"2 "
        "cores\"; use "
        "Kubernetes forms such as 500m, 2 or 16Gi");
  CHECK(container("[cpu]") ==
        "test.yaml:9:18: spec.initContainers[0].resources: expected a mapping, got a list");
}

TEST_CASE("many containers together may not exceed the per-pod bounds", "[scenario]") {
  std::string yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n";
  for (int i = 0; i < 5; ++i)
    yaml += "    - {name: c" + std::to_string(i) + ", resources: {limits: {nvidia.com/gpu: 16}}}\n";
  CHECK(decode_error(yaml) ==
        "test.yaml:6:5: spec.containers: the pod requests 80 nvidia.com/gpu in all, beyond any "
        "instance (at most 64)");
}

TEST_CASE("extended resources beyond the well-known ones are interned until slots run out",
          "[scenario]") {
  std::string yaml =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      "
      "resources:\n        requests:\n";
  for (int i = 0; i < 6; ++i) yaml += "          example.com/r" + std::to_string(i) + ": 1\n";
  auto d = decode(yaml);
  CHECK(d->resources.size() == resource::kMaxResources);
  CHECK(*d->resources.find("example.com/r5") == resource::kMaxResources - 1);
  CHECK(spec_of(*d).requests[resource::kMaxResources - 1] == 1);
  yaml += "          example.com/r6: 1\n";
  CHECK(decode_error(yaml) ==
        "test.yaml:15:11: spec.containers[0].resources.requests.example.com/r6: too many distinct "
        "resources; "
        "fleetsim tracks at most 16");
}

TEST_CASE("pod spec shape and value errors", "[scenario]") {
  CHECK(decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: []\n") ==
        "test.yaml:5:15: spec.containers: a pod needs at least one container");
  CHECK(decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: 5\n") ==
        "test.yaml:4:7: spec: expected a mapping, got a scalar (\"5\")");
  CHECK(decode_error(pod("  tolerations:\n    - {key: a, operator: Exist}\n")) ==
        "test.yaml:8:26: spec.tolerations[0].operator: unknown toleration operator \"Exist\"; "
        "expected Equal or "
        "Exists; did you mean \"Exists\"?");
  CHECK(decode_error(pod("  tolerations:\n    - {key: a, operator: Exists, value: b}\n")) ==
        "test.yaml:8:41: spec.tolerations[0].value: a toleration with operator Exists takes no "
        "value");
  CHECK(decode_error(pod("  tolerations:\n    - {value: b}\n")) ==
        "test.yaml:8:7: spec.tolerations[0]: a toleration without a key needs operator Exists");
  CHECK(
      decode_error(pod(
          "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
          "        nodeSelectorTerms:\n          - matchExpressions:\n"
          "              - {key: karpenter.k8s.aws/instance-cpu, operator: Gte, values: "
          "[\"4\"]}\n")) ==
      "test.yaml:12:65: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0].matchExpressions[0].operator: operator Gte is only valid in NodePool "
      "requirements; pods use In, NotIn, Exists, DoesNotExist, Gt or Lt");
  CHECK(
      decode_error(pod(
          "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
          "        nodeSelectorTerms:\n          - matchExpressions: []\n")) ==
      "test.yaml:11:13: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
      "nodeSelectorTerms[0]: an empty node selector term matches no node");
  CHECK(decode_error(pod(
            "  topologySpreadConstraints:\n    - {maxSkew: 0, topologyKey: kubernetes.io/hostname, "
            "whenUnsatisfiable: DoNotSchedule}\n")) ==
        "test.yaml:8:17: spec.topologySpreadConstraints[0].maxSkew: 0 is out of range [1, "
        "2147483647]");
  CHECK(decode_error(pod("  terminationGracePeriodSeconds: -5\n")) ==
        "test.yaml:7:34: spec.terminationGracePeriodSeconds: -5 is out of range [0, 34560000]");
  CHECK(decode_error(pod("  nodeSelector: {Bad Key: x}\n")) ==
        "test.yaml:7:18: spec.nodeSelector.Bad Key: invalid key \"Bad Key\": the name must be at "
        "most 63 "
        "letters, digits, '-', '_' or '.', starting and ending with a letter or digit");
  CHECK(
      decode_error(
          "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {fleetsim.io/duration: "
          "soon}\nspec: {containers: [{name: c}]}\n") ==
      "test.yaml:5:39: metadata.annotations.fleetsim.io/duration: invalid duration \"soon\"; use "
      "Go forms "
      "such as 90s, 5m or 1h30m");
}

// The API server's validation of topologySpreadConstraints (validateTopologySpreadConstraints)
// and the fields the scheduler and Karpenter honour.
TEST_CASE("topology spread minDomains and policies and matchLabelKeys", "[scenario]") {
  const std::string head =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: web, rev: r7}\nspec:\n"
      "  containers: [{name: c}]\n  topologySpreadConstraints:\n";
  auto d = decode(head +
                  "    - maxSkew: 1\n      topologyKey: topology.kubernetes.io/zone\n"
                  "      whenUnsatisfiable: DoNotSchedule\n      minDomains: 3\n"
                  "      nodeAffinityPolicy: Ignore\n      nodeTaintsPolicy: Honor\n"
                  "      labelSelector: {matchLabels: {app: web}}\n"
                  "      matchLabelKeys: [rev, absent]\n");
  const TopologySpread& t = spec_of(*d).topology_spread.at(0);
  CHECK(t.min_domains == 3);
  CHECK(t.node_affinity_policy == InclusionPolicy::Ignore);
  CHECK(t.node_taints_policy == InclusionPolicy::Honor);
  // The pod's value of rev joins the selector; a key the pod lacks is ignored.
  CHECK(t.selector == LabelSelector{.match_labels = {{"app", "web"}},
                                    .match_expressions = {{.key = "rev", .values = {"r7"}}}});
  const Labels other_revision{{"app", "web"}, {"rev", "r6"}};
  CHECK_FALSE(t.selects(&other_revision));
  CHECK(d->warnings.warnings().empty());

  auto constraint = [&](std::string_view rest) {
    return decode_error(head + "    - maxSkew: 1\n      topologyKey: kubernetes.io/hostname\n" +
                        std::string(rest));
  };
  CHECK(constraint("      whenUnsatisfiable: ScheduleAnyway\n      minDomains: 2\n") ==
        "test.yaml:12:19: spec.topologySpreadConstraints[0].minDomains: minDomains can only be "
        "set with whenUnsatisfiable: DoNotSchedule");
  CHECK(constraint("      whenUnsatisfiable: DoNotSchedule\n      minDomains: 0\n") ==
        "test.yaml:12:19: spec.topologySpreadConstraints[0].minDomains: 0 is out of range [1, "
        "2147483647]");
  CHECK(constraint("      whenUnsatisfiable: DoNotSchedule\n      nodeTaintsPolicy: Honour\n") ==
        "test.yaml:12:25: spec.topologySpreadConstraints[0].nodeTaintsPolicy: unknown node "
        "inclusion policy \"Honour\"; expected Honor or Ignore; did you mean \"Honor\"?");
  CHECK(constraint("      whenUnsatisfiable: DoNotSchedule\n      matchLabelKeys: [rev]\n") ==
        "test.yaml:12:24: spec.topologySpreadConstraints[0].matchLabelKeys[0]: matchLabelKeys "
        "needs a labelSelector");
  CHECK(constraint("      whenUnsatisfiable: DoNotSchedule\n"
                   "      labelSelector: {matchLabels: {app: web}}\n"
                   "      matchLabelKeys: [app]\n") ==
        "test.yaml:13:24: spec.topologySpreadConstraints[0].matchLabelKeys[0]: \"app\" is both "
        "in matchLabelKeys and in the labelSelector");
}

TEST_CASE("app containers' images and the first readiness and startup probes are read",
          "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - name: fetch
      image: busybox:1.36
  containers:
    - name: server
      image: vllm/vllm-openai:v0.6.3
      startupProbe:
        httpGet: {path: /health, port: 8000}
        initialDelaySeconds: 30
        periodSeconds: 5
        failureThreshold: 60
        timeoutSeconds: 2
      livenessProbe:
        httpGet: {path: /health, port: 8000}
    - name: proxy
      image: envoyproxy/envoy:v1.30
      readinessProbe:
        tcpSocket: {port: 9901}
      startupProbe:
        exec: {command: ["true"]}
        periodSeconds: 1
    - name: metrics
      readinessProbe:
        grpc: {port: 9000}
        initialDelaySeconds: 7
        periodSeconds: 3
        successThreshold: 2
        terminationGracePeriodSeconds: 5
)");
  const PodSpec& s = spec_of(*d);
  // In container order; init containers' images and a container without one are not listed.
  CHECK(s.images == std::vector<std::string>{"vllm/vllm-openai:v0.6.3", "envoyproxy/envoy:v1.30"});
  // Each probe comes from the first container that has one; unset fields take the defaults.
  CHECK(s.startup_probe ==
        ProbeTiming{.initial_delay = seconds(30), .period = seconds(5), .success_threshold = 1});
  CHECK(s.readiness_probe ==
        ProbeTiming{.initial_delay = seconds(0), .period = seconds(10), .success_threshold = 1});
  // Handlers, timeouts and failure thresholds are silent; livenessProbe is not modelled.
  std::vector<std::string> fields;
  for (const auto& w : d->warnings.warnings()) fields.push_back(w.field);
  CHECK(fields == std::vector<std::string>{"Pod.spec.containers[].livenessProbe",
                                           "Pod.spec.initContainers[].image"});
  CHECK(d->warnings.warnings()[0].where.to_string() == "test.yaml:17:7");
}

TEST_CASE("a readiness probe's explicit timing, and a probe field Kubernetes lacks is an error",
          "[scenario]") {
  const std::string manifests = pod(R"(---
apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  containers:
    - name: c
      readinessProbe:
        httpGet: {path: /ready, port: 8080}
        initialDelaySeconds: 7
        periodSeconds: 3
        successThreshold: 2
)");
  auto d = decode(manifests);
  CHECK(spec_of(*d).images.empty());  // the first pod: no image, no probes
  CHECK_FALSE(spec_of(*d).readiness_probe);
  CHECK_FALSE(spec_of(*d).startup_probe);
  const PodSpec& s = d->set.workloads.at(1).workload.pod.spec;
  CHECK(s.readiness_probe ==
        ProbeTiming{.initial_delay = seconds(7), .period = seconds(3), .success_threshold = 2});
  CHECK_FALSE(s.startup_probe);
  CHECK(d->warnings.warnings().empty());
  // Strict, as kubectl --validate=strict (issue 25, item 1).
  CHECK(decode_error(manifests + "        probeMode: fast\n") ==
        "test.yaml:19:9: spec.containers[0].readinessProbe.probeMode: unknown field (Probe has no "
        "such field) (--lenient, or the scenario's manifest_validation: lenient, reads it as a "
        "warning)");
}

TEST_CASE("probe and image errors", "[scenario]") {
  // The container's fields start on line 7 at column 7.
  auto container = [](std::string_view fields) {
    return decode_error(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n" +
        std::string(fields));
  };
  CHECK(container("      startupProbe: {periodSeconds: 5, successThreshold: 3}\n") ==
        "test.yaml:7:58: spec.containers[0].startupProbe.successThreshold: a startupProbe's "
        "successThreshold must be 1, as Kubernetes requires");
  CHECK(container("      readinessProbe: {successThreshold: 0}\n") ==
        "test.yaml:7:42: spec.containers[0].readinessProbe.successThreshold: 0 is out of range "
        "[1, 2147483647]");
  CHECK(container("      readinessProbe: {periodSeconds: 0}\n") ==
        "test.yaml:7:39: spec.containers[0].readinessProbe.periodSeconds: 0 is out of range [1, "
        "34560000]");
  CHECK(container("      startupProbe: {initialDelaySeconds: -1}\n") ==
        "test.yaml:7:43: spec.containers[0].startupProbe.initialDelaySeconds: -1 is out of range "
        "[0, 34560000]");
  CHECK(container("      readinessProbe: {initialDelaySeconds: 1.5}\n") ==
        "test.yaml:7:45: spec.containers[0].readinessProbe.initialDelaySeconds: expected an "
        "integer, got a scalar (\"1.5\")");
  CHECK(container("      readinessProbe: /healthz\n") ==
        "test.yaml:7:23: spec.containers[0].readinessProbe: expected a mapping, got a scalar "
        "(\"/healthz\")");
  CHECK(container("      image: [nginx]\n") ==
        "test.yaml:7:14: spec.containers[0].image: expected a string, got a list");
  // The second container's probe is checked too, though the first one's is used.
  CHECK(container("      readinessProbe: {}\n    - name: d\n      readinessProbe: {periodSeconds: "
                  "-2}\n") ==
        "test.yaml:9:39: spec.containers[1].readinessProbe.periodSeconds: -2 is out of range [1, "
        "34560000]");
}

TEST_CASE("karpenter.sh/do-not-disrupt is \"true\" or a duration, anything else warns",
          "[scenario]") {
  auto annotated = [](std::string_view value) {
    return decode(std::string(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {karpenter.sh/do-not-disrupt: ")") +
                  std::string(value) + R"("}
spec:
  containers: [{name: c}]
)");
  };
  CHECK(spec_of(*annotated("true")).do_not_disrupt == kForever);
  CHECK(spec_of(*annotated("90m")).do_not_disrupt == minutes(90));
  for (std::string_view bad : {"True", "-5m", "0s", "soon"}) {
    auto d = annotated(bad);
    CHECK_FALSE(spec_of(*d).do_not_disrupt);
    REQUIRE(d->warnings.warnings().size() == 1);
    CHECK(d->warnings.warnings()[0].message ==
          fmt::format("\"{}\" is neither \"true\" nor a positive duration; Karpenter ignores it",
                      bad));
  }
}

TEST_CASE("fleetsim.io/duration is at least a second (issue 13, class 3)", "[scenario]") {
  CHECK(decode_error(R"(apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations: {fleetsim.io/duration: 1us}
spec:
  containers: [{name: c}]
)") == "test.yaml:5:39: metadata.annotations.fleetsim.io/duration: the run time must be at "
       "least 1s");
}

TEST_CASE("pod affinity and anti-affinity terms are read, preferred ones heaviest first",
          "[scenario]") {
  auto d = decode(pod(R"(  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: failure-domain.beta.kubernetes.io/zone
          labelSelector:
            matchLabels: {app: db}
            matchExpressions: [{key: tier, operator: NotIn, values: [test]}]
          namespaces: [data]
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 1
          podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {}}
        - weight: 10
          podAffinityTerm:
            topologyKey: topology.kubernetes.io/zone
            labelSelector: {matchLabels: {app: web}}
            namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: web}}
)"));
  const PodSpec& s = spec_of(*d);
  REQUIRE(s.pod_affinity.required.size() == 1);
  const PodAffinityTerm& t = s.pod_affinity.required[0];
  CHECK(t.topology_key == label::kZone);  // the deprecated key, normalized
  REQUIRE(t.selector);
  CHECK(t.selector->match_labels == Labels{{"app", "db"}});
  REQUIRE(t.selector->match_expressions.size() == 1);
  CHECK(t.selector->match_expressions[0].op == Operator::NotIn);
  CHECK(t.namespaces == std::vector<std::string>{"data"});
  CHECK(s.pod_affinity.preferred.empty());
  REQUIRE(s.pod_anti_affinity.required.size() == 1);
  CHECK(s.pod_anti_affinity.required[0].topology_key == label::kHostname);
  REQUIRE(s.pod_anti_affinity.preferred.size() == 2);
  CHECK(s.pod_anti_affinity.preferred_weights == std::vector<std::int32_t>{10, 1});
  CHECK(s.pod_anti_affinity.preferred[0].topology_key == label::kZone);
  REQUIRE(s.pod_anti_affinity.preferred[0].namespace_selector);
  CHECK(s.pod_anti_affinity.preferred[1].selector == LabelSelector{});
  CHECK(d->warnings.warnings().empty());
}

TEST_CASE("pod affinity keys other than zone and hostname warn, other labels of a namespace too",
          "[scenario]") {
  auto d = decode(pod(R"(  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/arch
          labelSelector: {matchLabels: {app: web}}
          namespaceSelector: {matchLabels: {team: ml}}
)"));
  REQUIRE(d->warnings.warnings().size() == 2);
  CHECK(d->warnings.warnings()[0].where.to_string() == "test.yaml:10:24");
  CHECK(d->warnings.warnings()[0].message ==
        "pod affinity over \"kubernetes.io/arch\" is not modelled (only "
        "topology.kubernetes.io/zone and kubernetes.io/hostname are); the term is ignored");
  CHECK(d->warnings.warnings()[1].field ==
        "Pod.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[]."
        "namespaceSelector");
}

TEST_CASE("pod affinity errors name the field", "[scenario]") {
  const std::string head =
      "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n";
  CHECK(decode_error(pod(head + "        - {topologyKey: \"\", labelSelector: {}}\n")) ==
        "test.yaml:10:25: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        "[0].topologyKey: topologyKey must not be empty");
  CHECK(
      decode_error(pod(head + "        - topologyKey: kubernetes.io/hostname\n"
                              "          labelSelector:\n"
                              "            matchExpressions: [{key: app, operator: Equals, values: "
                              "[a]}]\n")) ==
      "test.yaml:12:53: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
      "[0].labelSelector.matchExpressions[0].operator: unknown operator \"Equals\"; expected In, "
      "NotIn, Exists or DoesNotExist");
  CHECK(decode_error(pod(head + "        - {topologyKey: kubernetes.io/hostname}\n")) ==
        "test.yaml:10:11: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        "[0]: a required podAffinity term without labelSelector selects no pod, so the pod could "
        "never schedule");
  CHECK(decode_error(pod("  affinity:\n    podAntiAffinity:\n"
                         "      preferredDuringSchedulingIgnoredDuringExecution:\n"
                         "        - weight: 101\n"
                         "          podAffinityTerm: {topologyKey: kubernetes.io/hostname}\n")) ==
        "test.yaml:10:19: spec.affinity.podAntiAffinity."
        "preferredDuringSchedulingIgnoredDuringExecution[0].weight: 101 is out of range [1, 100]");
}
