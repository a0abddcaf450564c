#include "fleetsim/scenario/scenario_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <set>
#include <system_error>

#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/scenario/manifest_loader.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/priority_resolver.hpp"
#include "fleetsim/scenario/scenario_sections.hpp"
#include "fleetsim/scenario/service_decoder.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 14> kTopLevelKeys{
    "name",     "seed",     "duration", "region", "catalog",        "provisioner", "report_interval",
    "warmup",   "manifests", "services", "jobs",   "events",         "node_latencies", "karpenter"};

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
  if (text == "cluster-autoscaler" || text == "eks-auto-mode") {
    v.fail(fmt::format("provisioner \"{}\" is not supported yet; use karpenter", text));
  }
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

// A NodePool naming a missing EC2NodeClass: an error when the scenario defines node classes
// (a typo), a warning when it defines none (the common case of pools written alone).
void check_node_class_refs(const std::vector<NodePool>& pools,
                           const std::vector<EC2NodeClass>& classes, WarningLog& warnings) {
  std::vector<std::string_view> names;
  for (const auto& c : classes) names.push_back(c.name);
  for (const NodePool& pool : pools) {
    if (std::find(names.begin(), names.end(), pool.node_class) != names.end()) continue;
    if (!classes.empty()) {
      throw ConfigError(pool.where, "spec.template.spec.nodeClassRef.name",
                        fmt::format("no EC2NodeClass named \"{}\"{}", pool.node_class,
                                    did_you_mean(pool.node_class, names)));
    }
    warnings.add(pool.where, "NodePool.spec.template.spec.nodeClassRef.name",
                 fmt::format("no EC2NodeClass named \"{}\"; using defaults", pool.node_class));
  }
}

}  // namespace

ScenarioConfig load_scenario(const std::filesystem::path& file,
                             const std::filesystem::path& default_catalog_root) {
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
  YamlValue root(documents[0], docs.file);
  YamlMap top(root);
  // Unknown keys first: a misspelt `duraton` should say so, not that `duration` is missing.
  for (std::string_view key : kTopLevelKeys) top.ignore({key});
  top.reject_unread(kTopLevelKeys);

  ScenarioConfig cfg;
  cfg.file = file;
  WarningLog warnings;

  YamlValue name = top.require("name");
  cfg.name = name.as_string();
  if (cfg.name.empty()) name.fail("the name must not be empty");
  if (auto seed = top.get("seed")) {
    cfg.seed =
        static_cast<std::uint64_t>(seed->as_int(0, std::numeric_limits<std::int64_t>::max()));
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
  if (auto region = top.get("region")) {
    cfg.region = region->as_string();
    if (!is_region_name(cfg.region))
      region->fail(fmt::format("invalid region \"{}\"", cfg.region.substr(0, 40)));
  }
  if (auto p = top.get("provisioner")) cfg.provisioner = decode_provisioner(*p);
  if (auto interval = top.get("report_interval")) {
    cfg.report_interval = interval->as_duration();
    if (cfg.report_interval <= SimDuration{0})
      interval->fail("the report interval must be positive");
  }
  if (auto k = top.get("karpenter")) cfg.karpenter = decode_karpenter_settings(*k);

  ManifestLoader manifests(cfg.resources, warnings);
  Catalog empty_catalog;
  SectionContext sc{.base_dir = file.parent_path(),
                    .manifests = manifests,
                    .catalog = empty_catalog,
                    .duration = cfg.duration};
  cfg.catalog = std::make_shared<const Catalog>(
      load_catalog(catalog_dir(top, cfg.region, sc, default_catalog_root, *docs.file)));
  SectionContext ctx{.base_dir = sc.base_dir,
                     .manifests = manifests,
                     .catalog = *cfg.catalog,
                     .duration = cfg.duration};
  if (auto latencies = top.get("node_latencies"))
    cfg.node_latencies = decode_node_latencies(*latencies, *cfg.catalog);

  ManifestSet set;
  if (auto list = top.get("manifests")) {
    for (const YamlValue& ref : list->items()) load_manifest_ref(ref, ctx, set);
  }
  if (auto list = top.get("services")) cfg.services = decode_services(*list, ctx);
  std::vector<DecodedJobSource> jobs;
  if (auto list = top.get("jobs")) jobs = decode_job_sources(*list, ctx);
  std::vector<DecodedEvent> events;
  if (auto list = top.get("events")) events = decode_events(*list, ctx);

  // Cross-checks, now that every manifest is known.
  check_unique_names(set);
  check_node_class_refs(set.nodepools, set.node_classes, warnings);
  PriorityTable priorities(set.priority_classes);
  std::set<std::string> workload_keys;
  for (auto& d : set.workloads) {
    priorities.resolve(d.workload.pod.spec, d.priority);
    workload_keys.insert(workload_key(d.workload));
    cfg.workloads.push_back(std::move(d.workload));
  }
  check_service_deployments(cfg.services, cfg.workloads);
  for (auto& d : set.daemonsets) {
    priorities.resolve(d.workload.pod.spec, d.priority);
    cfg.daemonsets.push_back(std::move(d.workload));
  }
  for (auto& j : jobs) {
    priorities.resolve(j.source.template_workload.pod.spec, j.priority);
    cfg.job_sources.push_back(std::move(j.source));
  }
  for (auto& e : events) {
    ScriptedEvent out{.at = e.at, .action = ApplyManifestsEvent{}, .where = e.where};
    if (auto* spot = std::get_if<SpotInterruptionEvent>(&e.action)) {
      out.action = *spot;
    } else {
      ManifestSet& applied = std::get<ManifestSet>(e.action);
      check_unique_names(applied);
      check_node_class_refs(applied.nodepools, set.node_classes, warnings);
      ApplyManifestsEvent apply;
      apply.nodepools = std::move(applied.nodepools);
      for (auto& d : applied.workloads) {
        if (!workload_keys.insert(workload_key(d.workload)).second) {
          throw ConfigError(
              d.workload.where, "metadata.name",
              fmt::format("a {} named \"{}\" already exists; events cannot update workloads yet",
                          to_string(d.workload.kind), d.workload.name));
        }
        priorities.resolve(d.workload.pod.spec, d.priority);
        d.workload.created_at = at(e.at);
        apply.workloads.push_back(std::move(d.workload));
      }
      out.action = std::move(apply);
    }
    cfg.events.push_back(std::move(out));
  }
  // Same-time events keep their file order.
  std::stable_sort(cfg.events.begin(), cfg.events.end(),
                   [](const ScriptedEvent& a, const ScriptedEvent& b) { return a.at < b.at; });

  cfg.nodepools = std::move(set.nodepools);
  cfg.node_classes = std::move(set.node_classes);
  cfg.priority_classes = std::move(set.priority_classes);
  cfg.hpas = std::move(set.hpas);
  cfg.scaled_objects = std::move(set.scaled_objects);
  // Decoded and checked, but a run keeps Deployments at their replicas until the serving model
  // and metrics pipeline drive the autoscalers: say so rather than ignore them silently.
  for (const auto& hpa : cfg.hpas)
    warnings.add(hpa.where, "HorizontalPodAutoscaler",
                 "does not scale replicas in `fleetsim run` yet (use `fleetsim autoscale`)");
  for (const auto& so : cfg.scaled_objects)
    warnings.add(so.where, "ScaledObject", "does not scale replicas in `fleetsim run` yet (use `fleetsim autoscale`)");
  // Decoded and checked; the serving model is not wired into the world yet.
  for (std::size_t i = 0; i < cfg.services.size(); ++i)
    warnings.add(cfg.services[i].where, fmt::format("services[{}]", i),
                 "is not driven in `fleetsim run` yet: its Deployment keeps fixed replicas and "
                 "serves no traffic");
  cfg.warnings = warnings.take();
  // Reported in file order, so a user reads them alongside the manifests.
  std::stable_sort(cfg.warnings.begin(), cfg.warnings.end(), [](const Warning& a, const Warning& b) {
    return std::tie(a.where.file, a.where.line, a.where.col) < std::tie(b.where.file, b.where.line, b.where.col);
  });
  return cfg;
}

}  // namespace fleetsim
