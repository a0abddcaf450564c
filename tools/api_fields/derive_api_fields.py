#!/usr/bin/env python3
"""Derives src/scenario/api_fields_data.cpp: the fields each object type fleetsim decodes has
upstream, read from the upstream sources (Go struct json tags, eksctl's JSON schema).

An unread field that upstream has is "known but not modelled" (a warning); one it does not have is
a typo or a newer API (an error unless --lenient). Run with the upstream repositories checked out
(git directories, read with `git show`), e.g. the mirrors the search tool's fetch brings:

  tools/api_fields/derive_api_fields.py /work/.mirror > src/scenario/api_fields_data.cpp

EKS Auto Mode's NodeClass has no public source: its fields are listed by hand below, from AWS's
documentation (docs.aws.amazon.com/eks/latest/userguide/create-node-class.html) and the
AutoModeNodeClassSpec type of awslabs' cdk-eks-blueprints.
"""
import json
import re
import subprocess
import sys

# (repository mirror, files): the Go packages read, by a short package name.
GO_PACKAGES = {
    "meta": ("kubernetes+apimachinery", ["pkg/apis/meta/v1/types.go"]),
    "core": ("kubernetes+api", ["core/v1/types.go"]),
    "apps": ("kubernetes+api", ["apps/v1/types.go"]),
    "batch": ("kubernetes+api", ["batch/v1/types.go"]),
    "autoscaling": ("kubernetes+api", ["autoscaling/v2/types.go"]),
    "policy": ("kubernetes+api", ["policy/v1/types.go"]),
    "scheduling": ("kubernetes+api", ["scheduling/v1/types.go"]),
    "karpenter": ("kubernetes-sigs+karpenter", ["pkg/apis/v1/nodepool.go", "pkg/apis/v1/nodeclaim.go"]),
    "karpenter_aws": ("aws+karpenter-provider-aws", ["pkg/apis/v1/ec2nodeclass.go"]),
    # EC2NodeClass's kubelet is an open map mirroring the kubelet's own configuration.
    "kubelet": ("kubernetes+kubelet", ["config/v1beta1/types.go"]),
    "keda": ("kedacore+keda", ["apis/keda/v1alpha1/scaledobject_types.go",
                               "apis/keda/v1alpha1/scaletriggers_types.go",
                               "apis/keda/v1alpha1/gvkr_types.go"]),
}
# Which package an embedded type's qualifier names.
QUALIFIERS = {"metav1": "meta", "v1": "core", "corev1": "core", "autoscalingv2": "autoscaling"}

# The C++ name of each type, and where it comes from: (package, Go struct), or a list of fields.
TYPES = [
    ("ObjectMeta", ("meta", "ObjectMeta")),
    ("LabelSelector", ("meta", "LabelSelector")),
    ("LabelSelectorRequirement", ("meta", "LabelSelectorRequirement")),
    ("PodTemplateSpec", ("core", "PodTemplateSpec")),
    ("PodSpec", ("core", "PodSpec")),
    ("Container", ("core", "Container")),
    ("ResourceRequirements", ("core", "ResourceRequirements")),
    ("Probe", ("core", "Probe")),
    ("Lifecycle", ("core", "Lifecycle")),
    ("LifecycleHandler", ("core", "LifecycleHandler")),
    ("Toleration", ("core", "Toleration")),
    ("Taint", ("core", "Taint")),
    ("Affinity", ("core", "Affinity")),
    ("NodeAffinity", ("core", "NodeAffinity")),
    ("NodeSelector", ("core", "NodeSelector")),
    ("NodeSelectorTerm", ("core", "NodeSelectorTerm")),
    ("NodeSelectorRequirement", ("core", "NodeSelectorRequirement")),
    ("PreferredSchedulingTerm", ("core", "PreferredSchedulingTerm")),
    ("PodAffinity", ("core", "PodAffinity")),
    ("PodAntiAffinity", ("core", "PodAntiAffinity")),
    ("PodAffinityTerm", ("core", "PodAffinityTerm")),
    ("WeightedPodAffinityTerm", ("core", "WeightedPodAffinityTerm")),
    ("TopologySpreadConstraint", ("core", "TopologySpreadConstraint")),
    ("Pod", ("core", "Pod")),
    ("Deployment", ("apps", "Deployment")),
    ("DeploymentSpec", ("apps", "DeploymentSpec")),
    ("DeploymentStrategy", ("apps", "DeploymentStrategy")),
    ("RollingUpdateDeployment", ("apps", "RollingUpdateDeployment")),
    ("DaemonSet", ("apps", "DaemonSet")),
    ("DaemonSetSpec", ("apps", "DaemonSetSpec")),
    ("Job", ("batch", "Job")),
    ("JobSpec", ("batch", "JobSpec")),
    ("PriorityClass", ("scheduling", "PriorityClass")),
    ("PodDisruptionBudget", ("policy", "PodDisruptionBudget")),
    ("PodDisruptionBudgetSpec", ("policy", "PodDisruptionBudgetSpec")),
    ("HorizontalPodAutoscaler", ("autoscaling", "HorizontalPodAutoscaler")),
    ("HorizontalPodAutoscalerSpec", ("autoscaling", "HorizontalPodAutoscalerSpec")),
    ("CrossVersionObjectReference", ("autoscaling", "CrossVersionObjectReference")),
    ("MetricSpec", ("autoscaling", "MetricSpec")),
    ("ObjectMetricSource", ("autoscaling", "ObjectMetricSource")),
    ("PodsMetricSource", ("autoscaling", "PodsMetricSource")),
    ("ResourceMetricSource", ("autoscaling", "ResourceMetricSource")),
    ("ContainerResourceMetricSource", ("autoscaling", "ContainerResourceMetricSource")),
    ("ExternalMetricSource", ("autoscaling", "ExternalMetricSource")),
    ("MetricIdentifier", ("autoscaling", "MetricIdentifier")),
    ("MetricTarget", ("autoscaling", "MetricTarget")),
    ("HorizontalPodAutoscalerBehavior", ("autoscaling", "HorizontalPodAutoscalerBehavior")),
    ("HPAScalingRules", ("autoscaling", "HPAScalingRules")),
    ("HPAScalingPolicy", ("autoscaling", "HPAScalingPolicy")),
    ("NodePool", ("karpenter", "NodePool")),
    ("NodePoolSpec", ("karpenter", "NodePoolSpec")),
    ("NodeClaimTemplate", ("karpenter", "NodeClaimTemplate")),
    ("NodeClaimTemplateObjectMeta", ("karpenter", "ObjectMeta")),
    ("NodeClaimTemplateSpec", ("karpenter", "NodeClaimTemplateSpec")),
    ("NodeSelectorRequirementWithMinValues", ("karpenter", "NodeSelectorRequirementWithMinValues")),
    ("NodeClassReference", ("karpenter", "NodeClassReference")),
    ("Disruption", ("karpenter", "Disruption")),
    ("Budget", ("karpenter", "Budget")),
    ("EC2NodeClass", ("karpenter_aws", "EC2NodeClass")),
    ("EC2NodeClassSpec", ("karpenter_aws", "EC2NodeClassSpec")),
    ("KubeletConfiguration", ("kubelet", "KubeletConfiguration")),
    ("BlockDeviceMapping", ("karpenter_aws", "BlockDeviceMapping")),
    ("BlockDevice", ("karpenter_aws", "BlockDevice")),
    ("ScaledObject", ("keda", "ScaledObject")),
    ("ScaledObjectSpec", ("keda", "ScaledObjectSpec")),
    ("ScaleTarget", ("keda", "ScaleTarget")),
    ("AdvancedConfig", ("keda", "AdvancedConfig")),
    ("HorizontalPodAutoscalerConfig", ("keda", "HorizontalPodAutoscalerConfig")),
    ("Fallback", ("keda", "Fallback")),
    ("ScaleTriggers", ("keda", "ScaleTriggers")),
    ("ClusterConfig", ("eksctl", "ClusterConfig")),
    ("ClusterMeta", ("eksctl", "ClusterMeta")),
    ("AutoModeConfig", ("eksctl", "AutoModeConfig")),
    ("EksctlNodeGroup", ("eksctl", "NodeGroup")),
    ("EksctlManagedNodeGroup", ("eksctl", "ManagedNodeGroup")),
    ("NodeGroupTaint", ("eksctl", "NodeGroupTaint")),
    ("NodeGroupInstancesDistribution", ("eksctl", "NodeGroupInstancesDistribution")),
    ("NodeGroupBottlerocket", ("eksctl", "NodeGroupBottlerocket")),
    ("AutoModeNodeClass", ["apiVersion", "kind", "metadata", "spec", "status"]),
    ("AutoModeNodeClassSpec", ["role", "instanceProfile", "capacityReservationSelectorTerms",
                               "subnetSelectorTerms", "podSubnetSelectorTerms",
                               "securityGroupSelectorTerms", "podSecurityGroupSelectorTerms",
                               "snatPolicy", "networkPolicy", "networkPolicyEventLogs",
                               "ephemeralStorage", "tags", "certificateBundles",
                               "advancedNetworking", "advancedSecurity"]),
    ("AutoModeEphemeralStorage", ["size", "iops", "throughput", "kmsKeyID"]),
    ("List", ["apiVersion", "kind", "metadata", "items"]),
]

STRUCT_RE = re.compile(r"^type (\w+) struct \{")
TAG_RE = re.compile(r'json:"([^"]*)"')


def git_show(root, repo, path):
    return subprocess.run(["git", "-C", f"{root}/{repo}/repo", "show", f"HEAD:{path}"],
                          check=True, capture_output=True, text=True).stdout


def go_structs(text):
    """{struct name: [(json name or None, embedded type or None)]}"""
    structs, name, body = {}, None, []
    for line in text.splitlines():
        m = STRUCT_RE.match(line)
        if m:
            name, body = m.group(1), []
            continue
        if name is None:
            continue
        if line.startswith("}"):
            structs[name], name = body, None
            continue
        code = line.split("//")[0].strip() if "`" not in line else line.strip()
        if not code or code.startswith("//"):
            continue
        tag = TAG_RE.search(code)
        if tag is None:
            continue
        json_name = tag.group(1).split(",")[0]
        if json_name == "-":
            continue
        if json_name == "":  # embedded: `metav1.TypeMeta `json:",inline"``
            body.append((None, code.split()[0].lstrip("*")))
        else:
            body.append((json_name, None))
    return structs


def main(root):
    packages, sources = {}, []
    for pkg, (repo, files) in GO_PACKAGES.items():
        structs = {}
        commit = subprocess.run(["git", "-C", f"{root}/{repo}/repo", "rev-parse", "HEAD"],
                                check=True, capture_output=True, text=True).stdout.strip()
        for f in files:
            structs.update(go_structs(git_show(root, repo, f)))
            sources.append(f"{repo.replace('+', '/')}@{commit[:12]} {f}")
        packages[pkg] = structs
    eksctl_schema_path = "pkg/apis/eksctl.io/v1alpha5/assets/schema.json"
    eksctl = json.loads(git_show(root, "eksctl-io+eksctl", eksctl_schema_path))["definitions"]
    commit = subprocess.run(["git", "-C", f"{root}/eksctl-io+eksctl/repo", "rev-parse", "HEAD"],
                            check=True, capture_output=True, text=True).stdout.strip()
    sources.append(f"eksctl-io/eksctl@{commit[:12]} {eksctl_schema_path}")

    def fields(pkg, struct):
        out = []
        for json_name, embedded in packages[pkg][struct]:
            if json_name is not None:
                out.append(json_name)
                continue
            qualifier, _, type_name = embedded.rpartition(".")
            owner = QUALIFIERS.get(qualifier, pkg) if qualifier else pkg
            out += fields(owner, type_name)
        return out

    print("// Generated by tools/api_fields/derive_api_fields.py; do not edit. Sources:")
    for s in sources:
        print(f"//   {s}")
    print('#include "fleetsim/scenario/api_fields.hpp"\n')
    print("#include <array>\n")
    print("namespace fleetsim::api {\n")
    print("namespace {\n")
    for cpp, source in TYPES:
        if isinstance(source, list):
            names = source
        elif source[0] == "eksctl":
            names = list(eksctl[source[1]]["properties"])
        else:
            names = fields(*source)
        names = sorted(set(names))
        body = ", ".join(f'"{n}"' for n in names)
        print(f"constexpr std::array<std::string_view, {len(names)}> k{cpp}{{{body}}};")
    print("\n}  // namespace\n")
    for cpp, _ in TYPES:
        print(f'const ApiType {cpp}{{"{cpp}", k{cpp}}};')
    print("\n}  // namespace fleetsim::api")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror")
