#include "fleetsim/scenario/inert_fields.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace fleetsim {

namespace {

constexpr std::string_view kPodPrefix = "pod:";

constexpr auto kInert = std::to_array<InertField>({
    // Objects that configure access, naming or monitoring, never capacity or load.
    {"ConfigMap", "configuration read by containers"},
    {"Secret", "credentials read by containers"},
    {"ServiceAccount", "an identity"},
    {"Namespace", "a name; namespaces are taken from each object's metadata"},
    {"Role", "access control"},
    {"RoleBinding", "access control"},
    {"ClusterRole", "access control"},
    {"ClusterRoleBinding", "access control"},
    {"Service", "routing; a scenario's services bind traffic to a Deployment"},
    {"ServiceMonitor", "what Prometheus scrapes; fleetsim scrapes every pod"},
    {"PodMonitor", "what Prometheus scrapes; fleetsim scrapes every pod"},
    // How a node boots and is reached; changing any of them in a scripted apply still drifts
    // the nodes (the EC2NodeClass spec hash).
    {"EC2NodeClass.spec.role", "the nodes' IAM role"},
    {"EC2NodeClass.spec.instanceProfile", "the nodes' IAM instance profile"},
    {"EC2NodeClass.spec.amiSelectorTerms", "which AMI boots"},
    {"EC2NodeClass.spec.securityGroupSelectorTerms", "network access"},
    {"EC2NodeClass.spec.tags", "cost-allocation and ownership tags"},
    {"EC2NodeClass.spec.metadataOptions", "the instance metadata service"},
    {"EC2NodeClass.spec.detailedMonitoring", "CloudWatch detail"},
    {"EC2NodeClass.spec.context", "an EC2 launch context"},
    {"EC2NodeClass.spec.blockDeviceMappings[].ebs.encrypted", "encryption costs nothing extra"},
    {"EC2NodeClass.spec.blockDeviceMappings[].ebs.kmsKeyID", "the encryption key"},
    {"EC2NodeClass.spec.blockDeviceMappings[].ebs.snapshotID", "the volume's initial content"},
    {"EC2NodeClass.spec.blockDeviceMappings[].rootVolume", "which volume is the root"},
    // EKS Auto Mode's NodeClass: how its nodes are reached and secured.
    {"NodeClass.spec.role", "the nodes' IAM role"},
    {"NodeClass.spec.securityGroupSelectorTerms", "network access"},
    {"NodeClass.spec.tags", "cost-allocation and ownership tags"},
    {"NodeClass.spec.snatPolicy", "the network"},
    {"NodeClass.spec.networkPolicy", "the network"},
    {"NodeClass.spec.networkPolicyEventLogs", "logging"},
    {"NodeClass.spec.certificateBundles", "trusted certificates"},
    {"NodeClass.spec.ephemeralStorage.kmsKeyID", "the encryption key"},
    // eksctl: how the cluster and its node groups are reached, named and secured.
    {"ClusterConfig.metadata.region", "the scenario's region picks the catalog"},
    {"ClusterConfig.metadata.version", "the Kubernetes version"},
    {"ClusterConfig.metadata.tags", "cost-allocation and ownership tags"},
    {"ClusterConfig.iam", "access control"},
    {"ClusterConfig.vpc", "the network"},
    {"ClusterConfig.addons", "cluster add-ons"},
    {"ClusterConfig.cloudWatch", "control-plane logging"},
    {"ClusterConfig.accessConfig", "access control"},
    {"ClusterConfig.managedNodeGroups[].iam", "the nodes' IAM role"},
    {"ClusterConfig.managedNodeGroups[].ssh", "SSH access"},
    {"ClusterConfig.managedNodeGroups[].amiFamily", "which AMI boots"},
    {"ClusterConfig.managedNodeGroups[].privateNetworking", "the network"},
    {"ClusterConfig.managedNodeGroups[].volumeEncrypted", "encryption costs nothing extra"},
    {"ClusterConfig.nodeGroups[].iam", "the nodes' IAM role"},
    {"ClusterConfig.nodeGroups[].ssh", "SSH access"},
    {"ClusterConfig.nodeGroups[].amiFamily", "which AMI boots"},
    {"ClusterConfig.nodeGroups[].privateNetworking", "the network"},
    {"ClusterConfig.nodeGroups[].volumeEncrypted", "encryption costs nothing extra"},
    // How kube-scheduler runs, not where it places pods.
    {"KubeSchedulerConfiguration.leaderElection", "which scheduler replica leads"},
    {"KubeSchedulerConfiguration.clientConnection", "the API client's connection"},
    {"KubeSchedulerConfiguration.parallelism", "how many nodes are checked at once"},
    {"KubeSchedulerConfiguration.enableProfiling", "a profiling endpoint"},
    {"KubeSchedulerConfiguration.enableContentionProfiling", "a profiling endpoint"},
    {"KubeSchedulerConfiguration.delayCacheUntilActive", "when the caches fill"},
    // Bookkeeping of the workload controllers.
    {"Deployment.spec.revisionHistoryLimit", "old ReplicaSets kept"},
    {"Deployment.spec.progressDeadlineSeconds", "a condition on the Deployment's status"},
    {"Job.spec.ttlSecondsAfterFinished", "when a finished Job's object is deleted"},
    // What a container runs and sees, not what it requests or how long it starts.
    {"pod:containers[].env", "environment variables"},
    {"pod:containers[].envFrom", "environment variables"},
    {"pod:containers[].ports", "ports the container declares"},
    {"pod:containers[].volumeMounts", "where volumes appear in the container"},
    {"pod:containers[].securityContext", "privileges"},
    {"pod:containers[].imagePullPolicy", "images are pulled once per node"},
    {"pod:containers[].workingDir", "the container's working directory"},
    {"pod:initContainers[].args", "the container's arguments"},
    {"pod:initContainers[].command", "the container's command"},
    {"pod:initContainers[].env", "environment variables"},
    {"pod:serviceAccountName", "an identity"},
    {"pod:imagePullSecrets", "registry credentials"},
});

// The prefixes under which a kind's pod spec sits, as warnings name them.
constexpr std::array<std::string_view, 4> kPodSpecPrefixes{
    "Pod.spec.", "Deployment.spec.template.spec.", "Job.spec.template.spec.",
    "DaemonSet.spec.template.spec."};

}  // namespace

std::span<const InertField> inert_fields() { return kInert; }

bool is_inert(std::string_view field) {
  auto listed = [](std::string_view name) {
    return std::any_of(kInert.begin(), kInert.end(),
                       [&](const InertField& f) { return f.field == name; });
  };
  if (listed(field)) return true;
  for (std::string_view prefix : kPodSpecPrefixes) {
    if (!field.starts_with(prefix)) continue;
    std::string pod_path(kPodPrefix);
    pod_path += field.substr(prefix.size());
    return listed(pod_path);
  }
  return false;
}

}  // namespace fleetsim
