// ScenarioConfig: everything a run needs, parsed, validated and frozen before the run starts.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "fleetsim/autoscaling/hpa_spec.hpp"
#include "fleetsim/autoscaling/keda_spec.hpp"
#include "fleetsim/autoscaling/scrape_interval.hpp"
#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/catalog/gpu_sharing.hpp"
#include "fleetsim/cloudprovider/aws/spot_market_settings.hpp"
#include "fleetsim/cloudprovider/node_latency.hpp"
#include "fleetsim/cloudprovider/node_latency_fit.hpp"
#include "fleetsim/core/calendar.hpp"
#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/engine/phase_offsets.hpp"
#include "fleetsim/k8s/capacity_buffer.hpp"
#include "fleetsim/k8s/karpenter_version.hpp"
#include "fleetsim/k8s/node_group.hpp"
#include "fleetsim/k8s/node_overlay.hpp"
#include "fleetsim/k8s/nodepool.hpp"
#include "fleetsim/k8s/pod_disruption_budget_spec.hpp"
#include "fleetsim/k8s/workloads.hpp"
#include "fleetsim/kube/scheduler_profile.hpp"
#include "fleetsim/kube/termination_settings.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/settings.hpp"
#include "fleetsim/scenario/lint_accept.hpp"
#include "fleetsim/scenario/warning_codes.hpp"
#include "fleetsim/service/service_config.hpp"
#include "fleetsim/serving/serving_settings.hpp"
#include "fleetsim/traffic/traffic_config.hpp"
#include "fleetsim/workload/api_limits.hpp"

namespace fleetsim {

// Who brings nodes: Karpenter's NodePools, the Cluster Autoscaler resizing eksctl node groups,
// or EKS Auto Mode (Karpenter run by AWS, with its built-in NodePools and fee).
enum class ProvisionerKind { Karpenter, ClusterAutoscaler, EksAutoMode };

// A field fleetsim read but does not model, reported once per (kind, field path).
struct Warning {
  SourceLocation where;
  std::string field;    // e.g. "Deployment.spec.strategy"
  std::string message;  // e.g. "not modelled; ignored"
  WarningCode code = WarningCode::UnmodelledField;

  // About a field or kind fleetsim reads past, not about behaviour.
  bool unmodelled() const {
    return code == WarningCode::UnmodelledField || code == WarningCode::UnmodelledKind;
  }
};

// Default start-up latencies of a CPU node, medians. EKS Linux nodes go from launch to Ready in
// about 30–65 s (kube.fm, 2026; storytemplates.tech, 2024): the EC2 API returns within seconds,
// the kubelet registers after boot, and the CNI makes the node Ready shortly after. Each node's
// are these times one log-normal factor whose sigma reads 30–65 s as the p10–p90
// (node_latency_fit.hpp, from tools/startup/derive_startup_latency.py).
inline constexpr NodeLatency kDefaultCpuNodeLatency{.launch = seconds(5),
                                                    .registration = seconds(30),
                                                    .initialization = seconds(5),
                                                    .sigma = kFittedCpuStartupSigma};
// Default start-up latencies of a GPU or accelerator node: larger AMIs boot slower, and the
// NVIDIA device plugin must start before `nvidia.com/gpu` is advertised; provisioning a new GPU
// node takes 45–90 s in all (devfloor9 EKS GPU playbook, 2026), read as the p10–p90 of the
// log-normal factor (node_latency_fit.hpp).
inline constexpr NodeLatency kDefaultGpuNodeLatency{.launch = seconds(5),
                                                    .registration = seconds(40),
                                                    .initialization = seconds(25),
                                                    .sigma = kFittedGpuStartupSigma};

// How fast a node pulls and unpacks a container image: a 15–20 GB deep-learning image takes
// 4–6 minutes (AWS ML blog on SOCI for DLAMI/DLC, 2026), about 60 MB/s. The kubelet pulls one
// image at a time (serializeImagePulls defaults to true).
inline constexpr std::int64_t kDefaultImagePullBytesPerSecond = 60'000'000;

struct NodeLatencies {
  NodeLatency cpu = kDefaultCpuNodeLatency;  // default for types without accelerators
  NodeLatency gpu = kDefaultGpuNodeLatency;  // default for GPU and accelerator types
  std::map<std::string, NodeLatency, std::less<>> by_family;  // scenario overrides, e.g. "p5"
  std::int64_t image_pull_bytes_per_s = kDefaultImagePullBytesPerSecond;
};

// Karpenter controller settings a scenario may override (defaults are Karpenter's flags).
struct KarpenterSettings {
  SimDuration batch_idle = seconds(1);  // BATCH_IDLE_DURATION
  SimDuration batch_max = seconds(10);  // BATCH_MAX_DURATION
  // FEATURE_GATES SpotToSpotConsolidation (off by default): consolidation may replace spot
  // nodes with cheaper spot nodes.
  bool spot_to_spot_consolidation = false;
  // FEATURE_GATES NodeOverlay (alpha, off by default): NodeOverlays change instance types'
  // prices and extended resources as Karpenter sees them.
  bool node_overlay = false;
  SourceLocation node_overlay_where;  // the gate's key, when given
  // FEATURE_GATES CapacityBuffer (off by default): Karpenter reads CapacityBuffers.
  bool capacity_buffer = false;
  // --ignore-dra-requests as given (upstream default true). Only true is modelled: false (DRA-
  // aware provisioning, which needs instance types' devices from the cloud provider) warns.
  bool ignore_dra_requests = true;
  SourceLocation ignore_dra_requests_where;
  KarpenterVersion version;  // the release whose behaviour is modelled
};

// `jobs:` entry: a job arrival trace plus the manifest that supplies everything else.
struct JobSource {
  std::filesystem::path trace;  // absolute
  Workload template_workload;   // a Job or Pod; the trace overrides requests and run time
  SourceLocation where;
};

struct SpotInterruptionEvent {
  std::string instance_type;  // empty = any
  std::string zone;           // empty = any
  int count = 1;
};

// `capacity: {instance_type, zone, capacity_type, count}`: from the event on, at most `count`
// instances of the offering run at once (nullopt: unlimited); every zone when none is given.
struct CapacityEvent {
  std::string instance_type;
  std::string zone;  // empty = every zone of the type's offerings of that capacity type
  CapacityType capacity_type = CapacityType::Spot;
  std::optional<std::int64_t> count;
};

struct ApplyManifestsEvent {
  std::vector<NodePool> nodepools;         // replace pools of the same name, add new ones
  std::vector<EC2NodeClass> node_classes;  // likewise
  std::vector<Workload> workloads;         // created at the event's time
  std::vector<Workload> updates;           // Deployments that exist: replicas and template
};

// `scale: {deployment, replicas}`: what `kubectl scale` does.
struct ScaleDeploymentEvent {
  std::string namespace_name;  // resolved by the loader
  std::string name;
  std::int32_t replicas = 0;
};

struct ScriptedEvent {
  SimDuration at;
  std::variant<ApplyManifestsEvent, SpotInterruptionEvent, ScaleDeploymentEvent, CapacityEvent>
      action;
  SourceLocation where;
};

// An absolute bound `fleetsim check` holds a report to (the scenario's `gates`).
struct Gate {
  std::string metric;  // a report.json path: "sla.miss_ratio"
  std::optional<double> min;
  std::optional<double> max;
  SourceLocation where;
};

// Metric names an exporter uses -> the simulated metric they stand for (metrics.aliases).
using MetricAliases = std::map<std::string, std::string, std::less<>>;

struct ScenarioConfig {
  std::string name;
  std::uint64_t seed = 1;
  std::int64_t start_unix_s = kDefaultStartUnixSeconds;  // the calendar time of t = 0 (UTC)
  SimDuration duration = hours(1);
  std::string region = "us-east-1";
  ProvisionerKind provisioner = ProvisionerKind::Karpenter;
  SourceLocation provisioner_where;  // its key, when given
  SimDuration report_interval = seconds(60);
  std::filesystem::path file;  // the scenario file itself

  std::shared_ptr<const Catalog> catalog;
  ResourceRegistry resources;

  std::vector<NodePool> nodepools;
  std::vector<EC2NodeClass> node_classes;
  std::vector<NodeGroup> node_groups;  // eksctl ClusterConfig node groups (cluster-autoscaler)
  // NodeOverlays in force: Karpenter's, with karpenter.feature_gates.node_overlay on.
  std::vector<NodeOverlay> node_overlays;
  // gpu_operator: MIG strategy and layout delay, the device plugin's configs, the MIG layouts.
  GpuOperatorSettings gpu_operator;
  ClusterAutoscalerSettings cluster_autoscaler;
  // EKS Auto Mode's management fee per catalog type ($ per instance-hour); empty otherwise.
  std::vector<double> management_fee_by_type;
  std::vector<Workload> workloads;   // Pods, Deployments and Jobs from manifests
  std::vector<Workload> daemonsets;  // per-node overhead
  std::vector<PriorityClass> priority_classes;
  // Some pod names a PodGroup (spec.schedulingGroup): kube-scheduler's GangScheduling plugin
  // runs. Each pod spec carries its group's minCount (PodSpec::gang_min_count).
  bool pod_groups = false;
  std::vector<PodDisruptionBudgetSpec> pdbs;
  std::vector<CapacityBuffer> capacity_buffers;
  // The kube-scheduler's profiles (a KubeSchedulerConfiguration among the manifests, or the
  // default profile); each pod's spec.scheduler_profile indexes them.
  std::vector<SchedulerProfile> scheduler_profiles{SchedulerProfile{}};
  std::vector<HorizontalPodAutoscalerSpec> hpas;  // each scales one Deployment of workloads
  std::vector<ScaledObjectSpec> scaled_objects;   // each scales one Deployment of workloads
  std::vector<JobSource> job_sources;
  std::vector<ScriptedEvent> events;    // sorted by time
  std::vector<ServiceConfig> services;  // traffic and serving, each bound to a Deployment
  SimDuration warmup{0};                // excluded from SLO statistics
  SimDuration scrape_interval = kDefaultScrapeInterval;  // Prometheus scrapes of pod metrics
  // `phase_offsets`: where each periodic controller's loop starts within its period.
  PhaseOffsetSettings phase_offsets;
  MetricAliases metric_aliases;
  std::vector<Gate> gates;
  std::vector<LintAcceptance> lint_accepts;  // `lint: {accept: [...]}`
  // The files it read besides the catalog (scenario, manifests, traces), and the catalog's
  // folder: for input_digests.
  std::vector<std::filesystem::path> input_files;
  std::filesystem::path catalog_dir;

  NodeLatencies node_latencies;
  KarpenterSettings karpenter;
  // Node termination: MinDrainTime, and `api_latency:` (the documented default unless zero).
  TerminationSettings termination{.api_latency = kDefaultApiLatency};
  // `spot:`: interruptions drawn from the Spot Advisor bands; without it, only scripted ones.
  std::optional<SpotMarketSettings> spot_market;
  // The kube-controller-manager's API client: every pod the ReplicaSet and Job controllers
  // create or delete takes a token.
  ApiLimits controller_manager_api;

  std::vector<Warning> warnings;
};

}  // namespace fleetsim
