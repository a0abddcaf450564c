#include "fleetsim/scenario/workload_decoder.hpp"

#include <catch2/catch.hpp>

#include "fleetsim/scenario/priority_resolver.hpp"
#include "scenario_test_util.hpp"

using namespace fleetsim;
using fleetsim::test::decode;
using fleetsim::test::decode_error;

namespace {
constexpr std::int64_t kGi = 1024LL * 1024 * 1024;
}

TEST_CASE("a vLLM Deployment asking for one GPU decodes with its toleration", "[scenario]") {
  ResourceRegistry resources;
  WarningLog warnings;
  ManifestLoader loader(resources, warnings);
  ManifestSet set;
  auto file = test::fixtures() / "manifests/vllm-deployment.yaml";
  loader.load_file(file, {}, {}, set);

  REQUIRE(set.workloads.size() == 1);
  const Workload& w = set.workloads[0].workload;
  CHECK(w.kind == WorkloadKind::Deployment);
  CHECK(w.name == "vllm-llama");
  CHECK(w.namespace_name == "inference");
  CHECK(w.replicas == 3);
  CHECK(w.where.to_string() == file.string() + ":4:9");
  CHECK_FALSE(w.run_time);
  CHECK(w.pod.labels == Labels{{"app", "vllm-llama"}});
  CHECK(w.pod.annotations == Labels{{"karpenter.sh/do-not-disrupt", "true"}});

  const PodSpec& s = w.pod.spec;
  CHECK(s.requests.cpu_millis() == 4000);
  CHECK(s.requests.memory_bytes() == 24 * kGi);
  CHECK(s.requests[resource::kNvidiaGpu] == 1);
  CHECK(s.requests.gpus() == 1);
  CHECK(s.requests.pods() == 1);
  CHECK(s.do_not_disrupt == kForever);
  CHECK(s.termination_grace == seconds(60));
  CHECK(s.tolerations == std::vector<Toleration>{{.key = "nvidia.com/gpu",
                                                  .op = TolerationOperator::Exists,
                                                  .value = "",
                                                  .effect = TaintEffect::NoSchedule}});
  CHECK(s.node_requirements.entries().size() == 1);
  CHECK(s.node_requirements.get(label::kGpuName)->values() == std::vector<std::string>{"a10g"});
  CHECK(s.priority_class_name == "inference-high");
  CHECK(set.workloads[0].priority.class_name == "inference-high");
  CHECK(set.workloads[0].priority.where.to_string() == file.string() + ":20:26");

  // The container's args and ports and the Service cannot change a number: no warning.
  CHECK(warnings.warnings().empty());
  CHECK(s.images == std::vector<std::string>{"vllm/vllm-openai:v0.6.3"});
  CHECK_FALSE(s.readiness_probe);
  CHECK_FALSE(s.startup_probe);
  REQUIRE(set.hpas.size() == 1);
  CHECK(set.hpas[0].max_replicas == 8);
}

TEST_CASE("a Job keeps parallelism, completions and its run time", "[scenario]") {
  ResourceRegistry resources;
  WarningLog warnings;
  ManifestLoader loader(resources, warnings);
  ManifestSet set;
  loader.load_file(test::fixtures() / "manifests/train-job.yaml", {}, {}, set);
  const Workload& w = set.workloads.at(0).workload;
  CHECK(w.kind == WorkloadKind::Job);
  CHECK(w.parallelism == 4);
  CHECK(w.completions == 8);
  CHECK(w.run_time == hours(2) + minutes(30));
  CHECK(w.pod.spec.requests.cpu_millis() == 16'000);
  CHECK(w.pod.spec.requests.memory_bytes() == 128 * kGi);
  CHECK(w.pod.spec.requests[resource::kNvidiaGpu] == 4);
  CHECK(w.pod.spec.requests[resource::kEfa] == 1);
  std::vector<std::string> fields;
  for (const auto& warning : warnings.warnings()) fields.push_back(warning.field);
  CHECK(fields == std::vector<std::string>{"Job.spec.backoffLimit"});
  CHECK(w.pod.spec.images == std::vector<std::string>{"nvcr.io/nvidia/pytorch:24.05-py3"});
}

TEST_CASE("workload defaults: one replica, completions follow parallelism", "[scenario]") {
  auto d = decode(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: c}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: sweep}
spec:
  parallelism: 6
  template:
    metadata:
      annotations: {fleetsim.io/duration: 45m}
    spec:
      restartPolicy: OnFailure
      containers: [{name: c}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: dcgm-exporter, namespace: monitoring}
spec:
  selector: {matchLabels: {app: dcgm}}
  template:
    metadata: {labels: {app: dcgm}}
    spec:
      containers: [{name: dcgm, resources: {requests: {cpu: 100m, memory: 128Mi}}}]
)");
  const auto& ws = d->set.workloads;
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].workload.replicas == 1);
  CHECK(ws[0].workload.namespace_name == "default");
  CHECK(ws[1].workload.parallelism == 6);
  CHECK(ws[1].workload.completions == 6);
  CHECK(ws[1].workload.run_time == minutes(45));
  REQUIRE(d->set.daemonsets.size() == 1);
  const Workload& ds = d->set.daemonsets[0].workload;
  CHECK(ds.kind == WorkloadKind::DaemonSet);
  CHECK(ds.namespace_name == "monitoring");
  CHECK(ds.pod.spec.requests.cpu_millis() == 100);
}

TEST_CASE("workload errors", "[scenario]") {
  CHECK(decode_error(R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers: [{name: c}]
)") == "test.yaml:7:7: spec.template.spec.restartPolicy: a Job's pods must use restartPolicy Never "
       "or "
       "OnFailure (Kubernetes rejects the default, Always)");
  CHECK(decode_error(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: many
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c}]}
)") == "test.yaml:5:13: spec.replicas: expected an integer, got a scalar (\"many\")");
  CHECK(decode_error(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: [3]
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c}]}
)") == "test.yaml:5:13: spec.replicas: expected an integer, got a list");
  CHECK(decode_error(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata: {labels: {app: webb}}
    spec: {containers: [{name: c}]}
)") == "test.yaml:6:5: spec.selector: selector does not match template labels (app=web is missing "
       "from "
       "spec.template.metadata.labels)");
  CHECK(decode_error(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: Web_App}
spec: {}
)") == "test.yaml:3:18: metadata.name: invalid name \"Web_App\": use at most 253 lowercase "
       "letters, digits, "
       "'-' or '.', starting and ending with a letter or digit");
  CHECK(decode_error(R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 200000
  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}
)") == "test.yaml:5:16: spec.parallelism: 200000 is out of range [0, 150000]");
}

TEST_CASE("priority classes resolve after every manifest has loaded", "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata: {name: early}
spec:
  priorityClassName: batch-low
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: unset}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: critical}
spec: {priorityClassName: system-node-critical, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: explicit}
spec: {priority: 7, containers: [{name: c}]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-low}
value: -10
description: preemptible batch work
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: standard}
value: 1000
globalDefault: true
preemptionPolicy: Never
)");
  PriorityTable table(d->set.priority_classes);
  for (auto& w : d->set.workloads) table.resolve(w.workload.pod.spec, w.priority);
  const auto& ws = d->set.workloads;
  CHECK(ws[0].workload.pod.spec.priority == -10);
  CHECK(ws[1].workload.pod.spec.priority == 1000);
  CHECK(ws[1].workload.pod.spec.priority_class_name == "standard");
  CHECK(ws[2].workload.pod.spec.priority == 2'000'001'000);
  CHECK(ws[3].workload.pod.spec.priority == 7);
  // preemptionPolicy comes from the class: Never from the global default, the API's default
  // PreemptLowerPriority from the others.
  CHECK(ws[0].workload.pod.spec.preemption_policy == PreemptionPolicy::PreemptLowerPriority);
  CHECK(ws[1].workload.pod.spec.preemption_policy == PreemptionPolicy::Never);
  CHECK(ws[2].workload.pod.spec.preemption_policy == PreemptionPolicy::PreemptLowerPriority);
  CHECK(d->warnings.warnings().empty());
}

// plugin/pkg/admission/priority/admission_test.go: a pod whose preemptionPolicy differs from its
// class's is refused; stating the same one is allowed.
TEST_CASE("preemptionPolicy is the PriorityClass's and a contradicting pod is refused",
          "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata: {name: same}
spec: {priorityClassName: polite, preemptionPolicy: Never, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other}
spec: {priorityClassName: polite, preemptionPolicy: PreemptLowerPriority, containers: [{name: c}]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: polite}
value: 100
preemptionPolicy: Never
)");
  PriorityTable table(d->set.priority_classes);
  auto& same = d->set.workloads.at(0);
  table.resolve(same.workload.pod.spec, same.priority);
  CHECK(same.workload.pod.spec.preemption_policy == PreemptionPolicy::Never);
  auto& other = d->set.workloads.at(1);
  CHECK(test::config_error([&] { table.resolve(other.workload.pod.spec, other.priority); }) ==
        "test.yaml:9:53: spec.preemptionPolicy: preemptionPolicy PreemptLowerPriority "
        "contradicts the Never that the pod's PriorityClass gives; leave spec.preemptionPolicy "
        "unset");
  CHECK(decode_error("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                     "p}\nvalue: 5\npreemptionPolicy: never\n") ==
        "test.yaml:5:19: preemptionPolicy: unknown preemptionPolicy \"never\"; expected "
        "PreemptLowerPriority or Never; did you mean \"Never\"?");
}

TEST_CASE("priority class errors", "[scenario]") {
  auto d = decode(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  priorityClassName: hihg
  containers: [{name: c}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
)");
  PriorityTable table(d->set.priority_classes);
  auto& w = d->set.workloads.at(0);
  CHECK(test::config_error([&] { table.resolve(w.workload.pod.spec, w.priority); }) ==
        "test.yaml:5:22: spec.priorityClassName: no PriorityClass named \"hihg\"; did you mean "
        "\"high\"?");

  auto mismatch = decode(R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec: {priorityClassName: system-cluster-critical, priority: 5, containers: [{name: c}]}
)");
  PriorityTable builtins({});
  auto& m = mismatch->set.workloads.at(0);
  CHECK(test::config_error([&] { builtins.resolve(m.workload.pod.spec, m.priority); }) ==
        "test.yaml:4:27: spec.priorityClassName: spec.priority 5 contradicts PriorityClass "
        "\"system-cluster-critical\" (value 2000000000); leave spec.priority unset");

  CHECK(decode_error("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                     "system-mine}\nvalue: 5\n") ==
        "test.yaml:3:18: metadata.name: priority class names with the \"system-\" prefix are "
        "reserved for "
        "Kubernetes");
  CHECK(decode_error("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: "
                     "huge}\nvalue: 1000000001\n") ==
        "test.yaml:4:8: value: the value of a user priority class must be at most 1000000000");

  auto two = decode(R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: a}
value: 1
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: b}
value: 2
globalDefault: true
)");
  CHECK(test::config_error([&] { PriorityTable t(two->set.priority_classes); }) ==
        "test.yaml:9:18: globalDefault: only one PriorityClass may be the global default; \"a\" "
        "already is "
        "(at test.yaml:3:18)");
}
