#include "fleetsim/scenario/scenario_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <set>
#include <span>
#include <system_error>
#include <type_traits>
#include <variant>

#include "fleetsim/catalog/auto_mode.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/cloudprovider/aws/auto_scaling_group.hpp"
#include "fleetsim/core/calendar.hpp"
#include "fleetsim/core/utf8.hpp"
#include "fleetsim/disruption/disruption_controller.hpp"
#include "fleetsim/provisioning/cluster_autoscaler/expander.hpp"
#include "fleetsim/scenario/api_latency_decoder.hpp"
#include "fleetsim/scenario/auto_mode_setup.hpp"
#include "fleetsim/scenario/cluster_autoscaler_decoder.hpp"
#include "fleetsim/scenario/dra_claims.hpp"
#include "fleetsim/scenario/gpu_layout_checks.hpp"
#include "fleetsim/scenario/gpu_operator_decoder.hpp"
#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/node_overlay_setup.hpp"
#include "fleetsim/scenario/pod_groups.hpp"
#include "fleetsim/scenario/priority_resolver.hpp"
#include "fleetsim/scenario/reservation_decoder.hpp"
#include "fleetsim/scenario/scenario_sections.hpp"
#include "fleetsim/scenario/scenario_validation.hpp"
#include "fleetsim/scenario/scheduler_profiles.hpp"
#include "fleetsim/scenario/service_decoder.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"
#include "fleetsim/service/exported_metrics.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 29> kTopLevelKeys{"name",
                                                         "seed",
                                                         "start",
                                                         "duration",
                                                         "region",
                                                         "catalog",
                                                         "provisioner",
                                                         "report_interval",
                                                         "scrape_interval",
                                                         "phase_offsets",
                                                         "api_latency",
                                                         "warmup",
                                                         "manifests",
                                                         "services",
                                                         "serving_mode",
                                                         "jobs",
                                                         "events",
                                                         "node_latencies",
                                                         "karpenter",
                                                         "cluster_autoscaler",
                                                         "gpu_operator",
                                                         "spot",
                                                         "reservations",
                                                         "kube_controller_manager",
                                                         "metrics",
                                                         "gates",
                                                         "manifest_validation",
                                                         "warnings",
                                                         "lint"};

// A Prometheus scrape interval beyond 10 minutes leaves autoscalers reading stale metrics for
// longer than any lookback window fleetsim's queries use; it is a unit mistake.
constexpr SimDuration kMaxScrapeInterval = minutes(10);
constexpr std::size_t kMaxScenarioNameBytes = 253;
// Floors on the periodic work a scenario asks for: below a second, a day's report rows or
// scrapes run into the millions for no insight (and 1 µs hangs the run).
constexpr SimDuration kMinReportInterval = seconds(1);
constexpr SimDuration kMinScrapeInterval = seconds(1);

constexpr std::array<std::string_view, 3> kProvisioners{"karpenter", "cluster-autoscaler",
                                                        "eks-auto-mode"};

// Region names appear in a path (aws/<region>), so only AWS's own alphabet is accepted.
bool is_region_name(std::string_view r) {
  return !r.empty() && r.size() <= 32 && std::all_of(r.begin(), r.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

ProvisionerKind decode_provisioner(const YamlValue& v) {
  std::string text = v.as_string();
  if (text == "karpenter") return ProvisionerKind::Karpenter;
  if (text == "cluster-autoscaler") return ProvisionerKind::ClusterAutoscaler;
  if (text == "eks-auto-mode") return ProvisionerKind::EksAutoMode;
  v.fail(fmt::format(
      "unknown provisioner \"{}\"; expected karpenter, cluster-autoscaler or eks-auto-mode{}",
      text.substr(0, 40), did_you_mean(text, kProvisioners)));
}

std::filesystem::path catalog_dir(const YamlMap& top, const std::string& region,
                                  const SectionContext& sc,
                                  const std::filesystem::path& default_root,
                                  const std::string& file) {
  std::error_code ec;
  if (auto c = top.get("catalog")) {
    std::filesystem::path dir = resolve_path(*c, sc);
    if (!std::filesystem::is_directory(dir, ec))
      c->fail(fmt::format("catalog directory not found: {}", dir.string()));
    return dir;
  }
  if (default_root.empty()) {
    throw ConfigError(SourceLocation{.file = file}, "catalog",
                      "no catalog given and no bundled catalog is known");
  }
  std::filesystem::path dir = (default_root / "aws" / region).lexically_normal();
  if (!std::filesystem::is_directory(dir, ec)) {
    SourceLocation where = top.get("region") ? top.get("region")->where() : top.value().where();
    throw ConfigError(
        where, "region",
        fmt::format("no bundled catalog for region \"{}\" (looked in {}); give `catalog`", region,
                    dir.string()));
  }
  return dir;
}

std::string workload_key(const Workload& w) {
  return fmt::format("{}/{}/{}", to_string(w.kind), w.namespace_name, w.name);
}

// The Deployment that `ref` ("name" or "namespace/name") names among `deployments`.
const Workload& find_deployment(const std::vector<Workload>& deployments, std::string_view ref,
                                const SourceLocation& where, const std::string& field) {
  std::string_view ns, name = ref;
  if (auto slash = name.find('/'); slash != std::string_view::npos) {
    ns = name.substr(0, slash);
    name = name.substr(slash + 1);
  }
  const Workload* match = nullptr;
  std::vector<std::string_view> names;
  for (const Workload& w : deployments) {
    names.push_back(w.name);
    if (w.name != name || (!ns.empty() && w.namespace_name != ns)) continue;
    if (match != nullptr)
      throw ConfigError(where, field,
                        fmt::format("Deployments named \"{}\" exist in namespaces {} and {}; "
                                    "write NAMESPACE/NAME",
                                    name, match->namespace_name, w.namespace_name));
    match = &w;
  }
  if (match == nullptr)
    throw ConfigError(where, field,
                      fmt::format("no Deployment named \"{}\" exists by then{}", ref.substr(0, 60),
                                  did_you_mean(name, names)));
  return *match;
}

// A NodePool naming a missing EC2NodeClass: an error when the scenario defines node classes
// (a typo), a warning when it defines none (the common case of pools written alone).
void check_node_class_refs(const std::vector<NodePool>& pools,
                           const std::vector<EC2NodeClass>& classes, WarningLog& warnings) {
  std::vector<std::string_view> names;
  for (const auto& c : classes) names.push_back(c.name);
  for (const NodePool& pool : pools) {
    if (std::find(names.begin(), names.end(), pool.node_class) != names.end()) continue;
    // EKS Auto Mode's pools name an eks.amazonaws.com NodeClass: say that kind to its users.
    const std::string_view kind = pool.auto_mode_node_class ? "NodeClass" : "EC2NodeClass";
    if (!classes.empty()) {
      throw ConfigError(pool.node_class_where, "spec.template.spec.nodeClassRef.name",
                        fmt::format("no {} named \"{}\"{}", kind, pool.node_class,
                                    did_you_mean(pool.node_class, names)));
    }
    warnings.add(WarningCode::MissingNodeClass, pool.node_class_where,
                 "NodePool.spec.template.spec.nodeClassRef.name",
                 fmt::format("no {} named \"{}\"; using defaults", kind, pool.node_class));
  }
}

// A Job of the manifests (not a trace's template, whose rows give run times) without a run time.
void warn_endless_job(const Workload& w, WarningLog& warnings) {
  if (w.kind != WorkloadKind::Job || w.run_time) return;
  warnings.add(WarningCode::EndlessJob, w.where,
               fmt::format("Job.metadata.annotations.{}", kDurationAnnotation),
               fmt::format("Job \"{}\" has no {} annotation (on the Job or its pod template): "
                           "its pods run until the end of the run and it never completes",
                           w.name, kDurationAnnotation));
}

// A bare Pod of the manifests (not a trace's template, whose rows become Jobs) is not replaced
// when evicted, so it never resumes from a checkpoint.
void warn_bare_pod_checkpoints(const Workload& w, WarningLog& warnings) {
  if (w.kind != WorkloadKind::Pod || !w.checkpointing.interval) return;
  warnings.add(WarningCode::CheckpointIgnored, w.where,
               fmt::format("Pod.metadata.annotations.{}", kCheckpointIntervalAnnotation),
               fmt::format("Pod \"{}\" is not replaced when evicted, so its checkpoints have no "
                           "effect; run it as a Job to resume from them",
                           w.name));
}

// Diurnal traffic peaks at a UTC hour: it needs the hour of day at t = 0.
void set_start_hour(TrafficConfig& traffic, std::int64_t start_unix_s) {
  const double hour = static_cast<double>((start_unix_s % 86400 + 86400) % 86400) / 3600.0;
  auto set = [&](auto& config) {
    if constexpr (std::is_same_v<std::decay_t<decltype(config)>, DiurnalConfig>) {
      config.start_hour = hour;
    }
  };
  std::visit(set, traffic);
  if (auto* surge = std::get_if<SurgeConfig>(&traffic)) std::visit(set, surge->base);
}

// What input_digests reads back: the scenario, its manifests and its traces.
void record_input_files(ScenarioConfig& cfg, const ManifestLoader& manifests) {
  cfg.input_files.push_back(cfg.file);
  for (const auto& f : manifests.files()) cfg.input_files.push_back(f);
  for (const JobSource& j : cfg.job_sources) cfg.input_files.push_back(j.trace);
  if (cfg.spot_market) {
    for (const std::filesystem::path* trace :
         {&cfg.spot_market->availability_trace, &cfg.spot_market->price_trace,
          &cfg.spot_market->capacity_trace})
      if (!trace->empty()) cfg.input_files.push_back(*trace);
  }
  for (const ServiceConfig& s : cfg.services) {
    if (const auto* replay = std::get_if<ReplayConfig>(&s.traffic))
      cfg.input_files.push_back(replay->trace);
    if (const auto* surge = std::get_if<SurgeConfig>(&s.traffic))
      if (const auto* replay = std::get_if<ReplayConfig>(&surge->base))
        cfg.input_files.push_back(replay->trace);
    if (const TokenConfig* tokens = tokens_of(s.traffic); tokens && !tokens->file.empty())
      cfg.input_files.push_back(tokens->file);
  }
}

// The scenario file's one document, with the sweep's key overrides applied, as a mapping whose
// keys are all known.
YamlMap scenario_document(const std::filesystem::path& file, std::span<const Override> overrides) {
  YamlDocuments docs = load_yaml_file(file);
  std::vector<YAML::Node> documents;
  for (const YAML::Node& d : docs.documents)
    if (!d.IsNull()) documents.push_back(d);
  if (documents.empty())
    throw ConfigError(SourceLocation{.file = *docs.file}, "", "the scenario file is empty");
  if (documents.size() > 1) {
    throw ConfigError(
        YamlValue(documents[1], docs.file).where(), "",
        "a scenario file holds one YAML document; put manifests in files of their own");
  }
  for (const Override& o : overrides)
    if (o.kind.empty()) apply_override(documents[0], o);
  YamlMap top(YamlValue(documents[0], docs.file));
  // Unknown keys first: a misspelt `duraton` should say so, not that `duration` is missing.
  for (std::string_view key : kTopLevelKeys) top.ignore({key});
  top.reject_unread(kTopLevelKeys);
  return top;
}

// `warnings: {suppress: [CODE, …]}`, with the command line's --suppress.
std::vector<WarningCode> read_suppressed(const YamlMap& top, std::vector<WarningCode> codes) {
  const std::optional<YamlValue> v = top.get("warnings");
  if (!v) return codes;
  YamlMap m(*v);
  if (auto list = m.get("suppress")) {
    for (const YamlValue& item : list->items()) {
      const std::string name = item.as_string();
      const std::optional<WarningCode> code = parse_warning_code(name);
      if (!code) {
        item.fail(fmt::format("unknown warning code \"{}\"{} (the codes: {})", name.substr(0, 40),
                              did_you_mean(name, warning_code_names()),
                              fmt::join(warning_code_names(), ", ")));
      }
      codes.push_back(*code);
    }
  }
  m.reject_unread(std::array<std::string_view, 1>{"suppress"});
  return codes;
}

// `lint: {accept: [...]}`: the findings `fleetsim lint` counts instead of reporting.
void read_lint_accepts(const YamlMap& top, ScenarioConfig& cfg) {
  if (auto v = top.get("lint")) cfg.lint_accepts = decode_lint_accepts(*v, cfg.file.parent_path());
}

// `manifest_validation`: strict (the default) or lenient; the command line's --lenient wins.
FieldValidation read_field_validation(const YamlMap& top, FieldValidation from_command_line) {
  const std::optional<YamlValue> v = top.get("manifest_validation");
  if (!v) return from_command_line;
  const std::string text = v->as_string();
  if (text != "strict" && text != "lenient") {
    constexpr std::array<std::string_view, 2> known{"strict", "lenient"};
    v->fail(fmt::format("unknown manifest_validation \"{}\"; expected strict or lenient{}",
                        text.substr(0, 40), did_you_mean(text, known)));
  }
  return text == "lenient" ? FieldValidation::Lenient : from_command_line;
}

void read_name_and_seed(const YamlMap& top, ScenarioConfig& cfg) {
  YamlValue name = top.require("name");
  cfg.name = name.as_string();
  if (cfg.name.empty()) name.fail("the name must not be empty");
  // It is written into every output: a bounded, valid UTF-8 text without control characters.
  if (cfg.name.size() > kMaxScenarioNameBytes || !is_valid_utf8(cfg.name) ||
      std::any_of(cfg.name.begin(), cfg.name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20; }))
    name.fail(
        fmt::format("the name must be valid UTF-8 of at most {} bytes without control "
                    "characters",
                    kMaxScenarioNameBytes));
  if (auto seed = top.get("seed")) {
    cfg.seed =
        static_cast<std::uint64_t>(seed->as_int(0, std::numeric_limits<std::int64_t>::max()));
  }
}

// `start`, `duration` and `warmup`.
void read_time_span(const YamlMap& top, ScenarioConfig& cfg) {
  if (auto start = top.get("start")) {
    ParsedTimestamp t = parse_rfc3339(start->as_string());
    if (!t.unix_s) start->fail(t.problem);
    cfg.start_unix_s = *t.unix_s;
  }
  YamlValue duration = top.require("duration");
  cfg.duration = duration.as_duration();
  if (cfg.duration <= SimDuration{0}) duration.fail("the duration must be positive");
  if (cfg.duration > kMaxScenarioDuration) {
    duration.fail(
        fmt::format("the duration must be at most {} days", kMaxScenarioDuration / hours(24)));
  }
  if (auto warmup = top.get("warmup")) {
    cfg.warmup = warmup->as_duration();
    if (cfg.warmup >= cfg.duration) {
      warmup->fail(fmt::format("the warmup ({}) must be shorter than the duration ({})",
                               format_duration(cfg.warmup), format_duration(cfg.duration)));
    }
  }
}

void read_region_and_provisioner(const YamlMap& top, ScenarioConfig& cfg) {
  if (auto region = top.get("region")) {
    cfg.region = region->as_string();
    if (!is_region_name(cfg.region))
      region->fail(fmt::format("invalid region \"{}\"", cfg.region.substr(0, 40)));
  }
  if (auto p = top.get("provisioner")) {
    cfg.provisioner = decode_provisioner(*p);
    cfg.provisioner_where = p->where();
  }
}

// `report_interval` and `scrape_interval`.
void read_intervals(const YamlMap& top, ScenarioConfig& cfg) {
  if (auto interval = top.get("report_interval")) {
    cfg.report_interval = interval->as_duration();
    if (cfg.report_interval < kMinReportInterval)
      interval->fail(fmt::format("the report interval must be at least {}",
                                 format_duration(kMinReportInterval)));
  }
  if (auto interval = top.get("scrape_interval")) {
    cfg.scrape_interval = interval->as_duration();
    if (cfg.scrape_interval < kMinScrapeInterval)
      interval->fail(fmt::format("the scrape interval must be at least {}",
                                 format_duration(kMinScrapeInterval)));
    if (cfg.scrape_interval > kMaxScrapeInterval) {
      interval->fail(fmt::format("the scrape interval must be at most {}",
                                 format_duration(kMaxScrapeInterval)));
    }
  }
}

// `karpenter`, `metrics`, `gates` and `kube_controller_manager`.
void read_controller_settings(const YamlMap& top, ScenarioConfig& cfg, WarningLog& warnings) {
  if (auto k = top.get("karpenter")) cfg.karpenter = decode_karpenter_settings(*k);
  if (cfg.provisioner == ProvisionerKind::EksAutoMode) {
    // Auto Mode runs spot-to-spot consolidation, and the user cannot turn it off.
    const std::optional<YamlValue> k = top.get("karpenter");
    const std::optional<YamlValue> gates = k ? YamlMap(*k).get("feature_gates") : std::nullopt;
    if (gates && YamlMap(*gates).get("spot_to_spot_consolidation") &&
        !cfg.karpenter.spot_to_spot_consolidation)
      warnings.add(WarningCode::AutoModeSpotToSpot, gates->where(),
                   "karpenter.feature_gates.spot_to_spot_consolidation",
                   "EKS Auto Mode always consolidates spot to spot; false is ignored");
    cfg.karpenter.spot_to_spot_consolidation = true;
  }
  if (auto m = top.get("metrics")) cfg.metric_aliases = decode_metric_aliases(*m);
  if (auto g = top.get("gates")) cfg.gates = decode_gates(*g);
  if (auto k = top.get("kube_controller_manager"))
    cfg.controller_manager_api = decode_controller_manager_settings(*k);
}

// The instance catalog (`catalog`, else the bundled one of the region); under EKS Auto Mode, its
// view of it with the management fee per type.
void read_catalog(const YamlMap& top, const SectionContext& sc,
                  const std::filesystem::path& default_root, ScenarioConfig& cfg) {
  cfg.catalog_dir = catalog_dir(top, cfg.region, sc, default_root, top.value().where().file);
  Catalog catalog = load_catalog(cfg.catalog_dir);
  if (cfg.provisioner == ProvisionerKind::EksAutoMode) {
    std::error_code ec;
    if (!std::filesystem::exists(cfg.catalog_dir / kAutoModeFeesFile, ec)) {
      top.get("provisioner")
          ->fail(fmt::format("EKS Auto Mode's fees are not in the catalog ({} has no {})",
                             cfg.catalog_dir.string(), kAutoModeFeesFile));
    }
    AutoModeCatalog auto_mode = auto_mode_catalog(catalog, cfg.catalog_dir, cfg.start_unix_s);
    catalog = std::move(auto_mode.catalog);
    cfg.management_fee_by_type = std::move(auto_mode.fee_by_type);
  }
  if (auto reservations = top.get("reservations")) {
    std::vector<Reservation> list = decode_reservations(*reservations, catalog);
    if (!list.empty() && cfg.provisioner != ProvisionerKind::Karpenter)
      reservations->fail(
          "reservations are modelled for provisioner: karpenter only (its "
          "capacityReservationSelectorTerms)");
    catalog = catalog.with_reservations(std::move(list));
  }
  cfg.catalog = std::make_shared<const Catalog>(std::move(catalog));
}

// Each EC2NodeClass (those of scripted applies too) gets the reservations its
// capacityReservationSelectorTerms select.
void resolve_reservations(ScenarioConfig& cfg) {
  const auto& reservations = cfg.catalog->reservations();
  auto resolve = [&](std::vector<EC2NodeClass>& classes) {
    for (EC2NodeClass& nc : classes)
      nc.reservations = select_reservations(nc.capacity_reservation_terms, reservations);
  };
  resolve(cfg.node_classes);
  for (ScriptedEvent& e : cfg.events)
    if (auto* apply = std::get_if<ApplyManifestsEvent>(&e.action)) resolve(apply->node_classes);
}

// What the scenario's sections decode to before they are resolved against one another.
struct Sections {
  ManifestSet set;
  std::vector<DecodedJobSource> jobs;
  std::vector<DecodedEvent> events;
};

// `node_latencies`, `spot`, `manifests`, `services`, `jobs` and `events`.
Sections read_sections(const YamlMap& top, const SectionContext& ctx, ScenarioConfig& cfg,
                       WarningLog& warnings) {
  if (auto latencies = top.get("node_latencies"))
    cfg.node_latencies = decode_node_latencies(*latencies, *cfg.catalog);
  if (auto spot = top.get("spot")) cfg.spot_market = decode_spot_market(*spot, ctx, warnings);
  Sections out;
  if (auto list = top.get("manifests")) {
    for (const YamlValue& ref : list->items()) load_manifest_ref(ref, ctx, out.set);
  }
  if (auto list = top.get("services")) cfg.services = decode_services(*list, ctx);
  if (auto mode = top.get("serving_mode")) apply_serving_mode(cfg.services, *mode, warnings);
  for (ServiceConfig& service : cfg.services) set_start_hour(service.traffic, cfg.start_unix_s);
  if (auto list = top.get("jobs")) out.jobs = decode_job_sources(*list, ctx);
  if (auto list = top.get("events")) out.events = decode_events(*list, ctx);
  return out;
}

// The manifests' workloads, DaemonSets and job templates with their priorities resolved, into
// `cfg`; the services bound to their Deployments. Returns the workloads' keys.
std::set<std::string> admit_workloads(ManifestSet& set, std::vector<DecodedJobSource>& jobs,
                                      const PriorityTable& priorities, ScenarioConfig& cfg,
                                      WarningLog& warnings) {
  std::set<std::string> workload_keys;
  for (auto& d : set.workloads) {
    priorities.resolve(d.workload.pod.spec, d.priority);
    warn_endless_job(d.workload, warnings);
    warn_bare_pod_checkpoints(d.workload, warnings);
    workload_keys.insert(workload_key(d.workload));
    cfg.workloads.push_back(std::move(d.workload));
  }
  resolve_service_deployments(cfg.services, cfg.workloads);
  apply_server_args(cfg.services, cfg.workloads, warnings);
  for (auto& d : set.daemonsets) {
    priorities.resolve(d.workload.pod.spec, d.priority);
    cfg.daemonsets.push_back(std::move(d.workload));
  }
  for (auto& j : jobs) {
    priorities.resolve(j.source.template_workload.pod.spec, j.priority);
    cfg.job_sources.push_back(std::move(j.source));
  }
  return workload_keys;
}

// Each pod template's spec.resourceClaims against the scenario's ResourceClaims,
// ResourceClaimTemplates and DeviceClasses (the NVIDIA driver's among them).
void resolve_dra_claims(Sections& sections, WarningLog& warnings) {
  ManifestSet& set = sections.set;
  const DraCatalog dra(std::move(set.device_classes), std::move(set.resource_claims));
  for (auto& d : set.workloads) dra.resolve(d.workload.pod, d.workload.namespace_name);
  for (auto& j : sections.jobs)
    dra.resolve(j.source.template_workload.pod, j.source.template_workload.namespace_name);
  for (auto& e : sections.events)
    if (auto* applied = std::get_if<ManifestSet>(&e.action))
      for (auto& d : applied->workloads) dra.resolve(d.workload.pod, d.workload.namespace_name);
  for (auto& d : set.daemonsets) {
    if (d.workload.pod.claim_refs.empty()) continue;
    dra.resolve(d.workload.pod, d.workload.namespace_name);  // the references must still hold
    d.workload.pod.spec.resource_claims.clear();
    warnings.add(WarningCode::DraNotModelled, d.workload.pod.claim_refs.front().where,
                 "DaemonSet.spec.template.spec.resourceClaims",
                 "a DaemonSet's claims are not modelled: its pods count as overhead on every "
                 "node they select, claims ignored (Karpenter under --ignore-dra-requests "
                 "leaves such DaemonSet pods out of its overhead, which fleetsim does not)");
  }
}

// Resolves scripted events in time order against what exists by each one's time: the
// EC2NodeClasses a scripted NodePool may name (the scenario's and those applied so far), the
// Deployments a scale may name, and whether an applied workload is new or an update.
class EventResolver {
 public:
  EventResolver(const ScenarioConfig& cfg, std::vector<EC2NodeClass> classes,
                std::set<std::string> workload_keys, const PriorityTable& priorities,
                WarningLog& warnings)
      : provisioner_(cfg.provisioner),
        priorities_(priorities),
        warnings_(warnings),
        known_classes_(std::move(classes)),
        workload_keys_(std::move(workload_keys)) {
    for (const Workload& w : cfg.workloads)
      if (w.kind == WorkloadKind::Deployment) known_deployments_.push_back(w);
  }

  std::vector<ScriptedEvent> resolve(std::vector<DecodedEvent> events) {
    // Same-time events keep their file order.
    std::stable_sort(events.begin(), events.end(),
                     [](const DecodedEvent& a, const DecodedEvent& b) { return a.at < b.at; });
    std::vector<ScriptedEvent> out;
    for (DecodedEvent& e : events) out.push_back(resolve_event(e));
    return out;
  }

 private:
  ScriptedEvent resolve_event(DecodedEvent& e) {
    ScriptedEvent out{.at = e.at, .action = ApplyManifestsEvent{}, .where = e.where};
    if (auto* spot = std::get_if<SpotInterruptionEvent>(&e.action)) {
      out.action = *spot;
    } else if (auto* capacity = std::get_if<CapacityEvent>(&e.action)) {
      out.action = *capacity;
    } else if (auto* scale = std::get_if<ScaleRequest>(&e.action)) {
      const Workload& target = find_deployment(known_deployments_, scale->deployment,
                                               scale->deployment_where, scale->deployment_field);
      out.action = ScaleDeploymentEvent{.namespace_name = target.namespace_name,
                                        .name = target.name,
                                        .replicas = scale->replicas};
    } else {
      out.action = apply(std::get<ManifestSet>(e.action), e.at);
    }
    return out;
  }

  ApplyManifestsEvent apply(ManifestSet& applied, SimDuration time) {
    check_unique_names(applied);
    for (const NodeGroup& g : applied.node_groups)
      warnings_.add(WarningCode::NodeGroupInApply, g.where, "ClusterConfig.node_groups",
                    fmt::format("node group {} is not added: node groups come from the "
                                "scenario's manifests, not a scripted apply",
                                g.name));
    for (NodePool& pool : applied.nodepools) {
      if (provisioner_ == ProvisionerKind::ClusterAutoscaler) {
        warnings_.add(WarningCode::UnusedNodePool, pool.where, "NodePool",
                      fmt::format("NodePool {} is not used: the provisioner is "
                                  "cluster-autoscaler",
                                  pool.name));
      }
      apply_nodepool_rules(provisioner_, pool, warnings_);
    }
    for (const EC2NodeClass& c : applied.node_classes) {
      std::erase_if(known_classes_, [&](const EC2NodeClass& k) { return k.name == c.name; });
      known_classes_.push_back(c);
    }
    check_node_class_refs(applied.nodepools, known_classes_, warnings_);
    for (const NodeOverlay& o : applied.node_overlays)
      warnings_.add(WarningCode::NodeOverlayUnused, o.where, "NodeOverlay",
                    fmt::format("NodeOverlay {} is not applied: a scripted apply does not add "
                                "NodeOverlays; give it among the scenario's manifests",
                                o.name));
    ApplyManifestsEvent out;
    out.nodepools = std::move(applied.nodepools);
    out.node_classes = std::move(applied.node_classes);
    for (auto& d : applied.workloads) admit_applied(std::move(d), time, out);
    return out;
  }

  // A new workload is created at the event's time; a Deployment that exists is updated, as
  // kubectl apply does; any other kind that exists is immutable.
  void admit_applied(DecodedWorkload d, SimDuration time, ApplyManifestsEvent& out) {
    priorities_.resolve(d.workload.pod.spec, d.priority);
    warn_endless_job(d.workload, warnings_);
    warn_bare_pod_checkpoints(d.workload, warnings_);
    if (workload_keys_.insert(workload_key(d.workload)).second) {
      d.workload.created_at = at(time);
      if (d.workload.kind == WorkloadKind::Deployment) known_deployments_.push_back(d.workload);
      out.workloads.push_back(std::move(d.workload));
    } else if (d.workload.kind == WorkloadKind::Deployment) {
      out.updates.push_back(std::move(d.workload));
    } else {
      throw ConfigError(
          d.workload.where, "metadata.name",
          fmt::format("{} {}/{} exists; {}s are immutable: give the new one another name",
                      to_string(d.workload.kind), d.workload.namespace_name, d.workload.name,
                      to_string(d.workload.kind)));
    }
  }

  ProvisionerKind provisioner_;
  const PriorityTable& priorities_;
  WarningLog& warnings_;
  std::vector<EC2NodeClass> known_classes_;
  std::vector<Workload> known_deployments_;
  std::set<std::string> workload_keys_;
};

// "least-waste", "priority,least-waste": as the --expander flag is written.
std::string expander_list(std::span<const Expander> expanders) {
  std::string out;
  for (Expander x : expanders) out += (out.empty() ? "" : ",") + std::string(to_string(x));
  return out;
}

// `cluster_autoscaler`, and the priority expander's ConfigMap among the manifests.
void read_cluster_autoscaler(const YamlMap& top, ManifestSet& set, ScenarioConfig& cfg,
                             WarningLog& warnings) {
  if (auto ca = top.get("cluster_autoscaler")) {
    if (cfg.provisioner != ProvisionerKind::ClusterAutoscaler)
      warnings.add(WarningCode::UnusedSettings, ca->where(), "cluster_autoscaler",
                   "the provisioner is not cluster-autoscaler; these flags are ignored");
    cfg.cluster_autoscaler = decode_cluster_autoscaler(*ca, warnings);
  }
  // Upstream reads the ConfigMap from its own namespace (--namespace, kube-system by default:
  // expander/priority/readme.md); one elsewhere is never read. One without a namespace is taken
  // as applied there.
  const std::string& ns = cfg.cluster_autoscaler.config_namespace;
  if (set.expander_priorities_namespace && *set.expander_priorities_namespace != ns) {
    warnings.add(WarningCode::PriorityConfigMapNamespace, set.expander_priorities_namespace_where,
                 "ConfigMap",
                 fmt::format("ConfigMap {}/{}: the Cluster Autoscaler reads its priority "
                             "expander's ConfigMap from its own namespace, {}; this one is not "
                             "read",
                             set.expander_priorities_namespace->substr(0, 63),
                             kPriorityExpanderConfigMap, ns));
    set.expander_priorities.clear();
  }
  if (cfg.cluster_autoscaler.priorities.empty()) {
    cfg.cluster_autoscaler.priorities = std::move(set.expander_priorities);
  } else if (!set.expander_priorities.empty()) {
    warnings.add(WarningCode::UnusedSettings, set.expander_priorities_where, "ConfigMap",
                 "cluster_autoscaler.priorities is given: this priority expander ConfigMap is "
                 "not used");
  }
  if (cfg.provisioner == ProvisionerKind::ClusterAutoscaler) {
    const auto& e = cfg.cluster_autoscaler.expanders;
    if (cfg.cluster_autoscaler.priorities.empty() &&
        std::find(e.begin(), e.end(), Expander::Priority) != e.end())
      warnings.add(WarningCode::PriorityExpanderEmpty, top.get("cluster_autoscaler")->where(),
                   "cluster_autoscaler.expander",
                   "the priority expander has no priorities (cluster_autoscaler.priorities, or "
                   "the ConfigMap cluster-autoscaler-priority-expander): it keeps every option");
    // Only the priority expander reads the map (expander/priority): otherwise it is dead input.
    if (!cfg.cluster_autoscaler.priorities.empty() &&
        std::find(e.begin(), e.end(), Expander::Priority) == e.end()) {
      const std::optional<YamlValue> ca = top.get("cluster_autoscaler");
      const std::optional<YamlValue> own = ca ? YamlMap(*ca).get("priorities") : std::nullopt;
      warnings.add(WarningCode::PriorityExpanderUnused,
                   own ? own->where() : set.expander_priorities_where,
                   own ? "cluster_autoscaler.priorities" : "ConfigMap",
                   fmt::format("the expander is {}, without priority, and only the priority "
                               "expander reads these priorities: they are ignored; add priority "
                               "to cluster_autoscaler.expander (priority,{})",
                               expander_list(e), expander_list(e)));
    }
    if (auto k = top.get("karpenter"))
      warnings.add(WarningCode::UnusedSettings, k->where(), "karpenter",
                   "the provisioner is cluster-autoscaler; Karpenter's settings are ignored");
  }
}

// `phase_offsets`: seeded (the default), zero, or a map of fixed offsets by controller, each
// from 0 to below the controller's period (a ScaledObject's the shortest polling interval).
void read_phase_offsets(const YamlMap& top, ScenarioConfig& cfg) {
  const std::optional<YamlValue> v = top.get("phase_offsets");
  if (!v) return;
  constexpr std::array<PeriodicController, kPeriodicControllers> kinds{
      PeriodicController::Hpa,
      PeriodicController::Keda,
      PeriodicController::Scrape,
      PeriodicController::ClusterAutoscaler,
      PeriodicController::KarpenterDisruption,
      PeriodicController::AutoScalingGroups};
  std::array<std::string_view, kPeriodicControllers> keys{};
  for (std::size_t i = 0; i < kinds.size(); ++i) keys[i] = phase_key(kinds[i]);
  if (!v->is_map()) {
    const std::string text = v->as_string();
    if (text == "seeded") return;
    if (text == "zero") {
      cfg.phase_offsets.seeded = false;
      return;
    }
    v->fail(fmt::format(
        "unknown value \"{}\"; expected seeded, zero or a map of offsets by controller ({})",
        text.substr(0, 40), fmt::join(keys, ", ")));
  }
  const YamlMap m(*v);
  for (PeriodicController c : kinds) {
    const std::optional<YamlValue> offset = m.get(phase_key(c));
    if (!offset) continue;
    const SimDuration d = offset->as_duration();  // never negative
    std::optional<SimDuration> period;
    switch (c) {
      case PeriodicController::Hpa:
        period = kHpaSyncPeriod;
        break;
      case PeriodicController::Keda:
        for (const ScaledObjectSpec& so : cfg.scaled_objects)
          if (!period || so.polling_interval < *period) period = so.polling_interval;
        break;
      case PeriodicController::Scrape:
        period = cfg.scrape_interval;
        break;
      case PeriodicController::ClusterAutoscaler:
        period = cfg.cluster_autoscaler.scan_interval;
        break;
      case PeriodicController::KarpenterDisruption:
        period = kDisruptionPollPeriod;
        break;
      case PeriodicController::AutoScalingGroups:
        period = kAutoScalingReconcileInterval;
        break;
    }
    if (period && d >= *period)
      offset->fail(fmt::format("the offset ({}) must be shorter than the period ({})",
                               format_duration(d), format_duration(*period)));
    cfg.phase_offsets.fixed[static_cast<std::size_t>(c)] = d;
  }
  m.reject_unread(keys);
}

// A buffer's scalableRef names a Deployment of its namespace; a podTemplateRef a PodTemplate,
// which fleetsim does not read yet.
void check_capacity_buffers(const ManifestSet& set) {
  for (const CapacityBuffer& b : set.capacity_buffers) {
    if (b.scalable_ref) {
      const bool found =
          std::any_of(set.workloads.begin(), set.workloads.end(), [&](const auto& d) {
            return d.workload.kind == WorkloadKind::Deployment &&
                   d.workload.name == b.scalable_ref->name &&
                   d.workload.namespace_name == b.namespace_name;
          });
      if (!found)
        throw ConfigError(
            b.where, "spec.scalableRef.name",
            fmt::format("CapacityBuffer \"{}\": no Deployment named \"{}\" in namespace \"{}\"",
                        b.name, b.scalable_ref->name, b.namespace_name));
    }
    if (b.pod_template_ref)
      throw ConfigError(b.where, "spec.podTemplateRef.name",
                        fmt::format("CapacityBuffer \"{}\": no PodTemplate named \"{}\" (fleetsim "
                                    "reads no PodTemplate manifests yet: use a scalableRef)",
                                    b.name, *b.pod_template_ref));
  }
}

// A buffer nothing runs is never dropped in silence.
void warn_capacity_buffers(const std::vector<CapacityBuffer>& buffers, const ScenarioConfig& cfg,
                           WarningLog& warnings) {
  for (const CapacityBuffer& b : buffers) {
    const std::string field = fmt::format("CapacityBuffer/{}", b.name);
    if (cfg.provisioner == ProvisionerKind::ClusterAutoscaler) {
      const ClusterAutoscalerSettings& ca = cfg.cluster_autoscaler;
      if (!ca.capacity_buffer_controller_enabled || !ca.capacity_buffer_pod_injection_enabled)
        warnings.add(WarningCode::CapacityBufferIgnored, b.where, field,
                     fmt::format("the Cluster Autoscaler runs a CapacityBuffer with "
                                 "--capacity-buffer-controller-enabled and "
                                 "--capacity-buffer-pod-injection-enabled (both off by default); "
                                 "without {}: the buffer is ignored",
                                 !ca.capacity_buffer_controller_enabled
                                     ? "cluster_autoscaler.capacity_buffer_controller_enabled"
                                     : "cluster_autoscaler.capacity_buffer_pod_injection_enabled"));
      else if (b.provisioning_strategy && *b.provisioning_strategy != kActiveCapacityStrategy)
        warnings.add(WarningCode::CapacityBufferIgnored, b.where, field + ".provisioningStrategy",
                     fmt::format("the Cluster Autoscaler injects pods only for "
                                 "buffer.x-k8s.io/active-capacity, not \"{}\": the buffer is "
                                 "ignored",
                                 *b.provisioning_strategy));
    } else if (cfg.provisioner != ProvisionerKind::Karpenter) {
      warnings.add(WarningCode::CapacityBufferIgnored, b.where, field,
                   "EKS Auto Mode's Karpenter has no CapacityBuffer gate to turn on; the buffer "
                   "is ignored");
    } else if (!cfg.karpenter.capacity_buffer) {
      warnings.add(WarningCode::CapacityBufferIgnored, b.where, field,
                   "Karpenter's CapacityBuffer feature gate is off (its default): the buffer is "
                   "ignored; karpenter.feature_gates.capacity_buffer: true turns it on");
    } else if (b.provisioning_strategy && *b.provisioning_strategy != kActiveCapacityStrategy) {
      // Karpenter copies the strategy into the status and provisions every buffer alike.
      warnings.add(WarningCode::CapacityBufferIgnored, b.where, field + ".provisioningStrategy",
                   fmt::format("Karpenter does not read provisioningStrategy \"{}\": the buffer "
                               "is provisioned as buffer.x-k8s.io/active-capacity",
                               *b.provisioning_strategy));
    }
  }
}

// The manifests' cluster objects, into `cfg`.
void adopt_manifests(ManifestSet& set, ScenarioConfig& cfg) {
  cfg.nodepools = std::move(set.nodepools);
  cfg.node_classes = std::move(set.node_classes);
  cfg.node_groups = std::move(set.node_groups);
  cfg.priority_classes = std::move(set.priority_classes);
  cfg.pdbs = std::move(set.pdbs);
  cfg.capacity_buffers = std::move(set.capacity_buffers);
  cfg.hpas = std::move(set.hpas);
  cfg.scaled_objects = std::move(set.scaled_objects);
}

// An override of a manifest that edited nothing names an object the manifests do not have.
void check_overrides_used(std::span<const Override> overrides, const ManifestLoader& manifests) {
  for (std::size_t i = 0; i < overrides.size(); ++i) {
    if (!overrides[i].kind.empty() && manifests.override_hits()[i] == 0)
      throw ConfigError(overrides[i].where, "target",
                        fmt::format("\"{}\": no {} named \"{}\" in the scenario's manifests",
                                    overrides[i].target, overrides[i].kind, overrides[i].name));
  }
}

}  // namespace

ScenarioConfig load_scenario(const std::filesystem::path& file,
                             const std::filesystem::path& default_catalog_root,
                             std::span<const Override> overrides, const ReadOptions& options) {
  const YamlMap top = scenario_document(file, overrides);
  ScenarioConfig cfg;
  cfg.file = file;
  WarningLog warnings(read_field_validation(top, options.validation));
  read_name_and_seed(top, cfg);
  read_time_span(top, cfg);
  read_region_and_provisioner(top, cfg);
  read_intervals(top, cfg);
  read_controller_settings(top, cfg, warnings);
  read_lint_accepts(top, cfg);

  ManifestLoader manifests(cfg.resources, warnings);
  manifests.set_overrides(overrides);
  manifests.set_karpenter_version(cfg.karpenter.version);
  Catalog empty_catalog;
  const SectionContext sc{.base_dir = file.parent_path(),
                          .manifests = manifests,
                          .catalog = empty_catalog,
                          .duration = cfg.duration};
  read_catalog(top, sc, default_catalog_root, cfg);
  const SectionContext ctx{.base_dir = sc.base_dir,
                           .manifests = manifests,
                           .catalog = *cfg.catalog,
                           .duration = cfg.duration,
                           .warnings = &warnings};
  Sections sections = read_sections(top, ctx, cfg, warnings);
  if (options.serving_mode) apply_serving_mode(cfg.services, *options.serving_mode, warnings);

  // Resolved against one another, now that every manifest is known.
  ManifestSet& set = sections.set;
  check_unique_names(set);
  resolve_dra_claims(sections, warnings);
  apply_provisioner_rules(cfg.provisioner, set, warnings);
  check_node_class_refs(set.nodepools, set.node_classes, warnings);
  check_capacity_buffers(set);
  const PriorityTable priorities(set.priority_classes);
  std::set<std::string> workload_keys =
      admit_workloads(set, sections.jobs, priorities, cfg, warnings);
  cfg.events = EventResolver(cfg, set.node_classes, std::move(workload_keys), priorities, warnings)
                   .resolve(std::move(sections.events));
  read_cluster_autoscaler(top, set, cfg, warnings);
  warn_capacity_buffers(set.capacity_buffers, cfg, warnings);  // after the autoscaler's flags
  read_gpu_operator(top, set, cfg, warnings);
  adopt_scheduler_profiles(std::move(set.scheduler_config), cfg, warnings);
  adopt_manifests(set, cfg);
  adopt_pod_groups(set.pod_groups, cfg, warnings);  // the NodePools' limits are in cfg now
  resolve_reservations(cfg);
  adopt_node_overlays(std::move(set.node_overlays), cfg, warnings);
  check_gpu_layouts(cfg, warnings);
  warn_dra_pods(cfg, warnings);
  read_phase_offsets(top, cfg);
  if (const std::optional<YamlValue> v = top.get("api_latency"))
    cfg.termination.api_latency = decode_api_latency(*v);
  cfg.termination.min_drain_time = cfg.karpenter.version.min_drain_time();
  check_overrides_used(overrides, manifests);
  record_input_files(cfg, manifests);
  cfg.warnings = warnings.take();
  validate_scenario(cfg);
  drop_suppressed(read_suppressed(top, options.suppress), cfg.warnings);
  return cfg;
}

}  // namespace fleetsim
