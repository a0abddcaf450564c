#include "fleetsim/scenario/scenario_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <system_error>

#include "fleetsim/autoscaling/metric_names.hpp"
#include "fleetsim/core/input_file.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/trace_tail.hpp"
#include "fleetsim/scenario/workload_decoder.hpp"
#include "fleetsim/service/exported_metrics.hpp"

namespace fleetsim {

namespace {

// Scripted interruptions per event: more than any offering's capacity in the bundled catalog,
// few enough that a typo (an extra zero or three) is caught.
constexpr std::int64_t kMaxInterruptionsPerEvent = 10'000;
// Bounds on the spot market's knobs, well past any plausible value: a hundredfold interruption
// share, and an hour for a wave's notices to spread or a rebalance recommendation to lead.
constexpr double kMaxSpotRateScale = 100;
constexpr SimDuration kMaxWaveSpread = hours(1);
constexpr double kMinWaveShare = 0.01;
constexpr SimDuration kMaxRebalanceLead = hours(1);

std::string describe_contents(const ManifestSet& set) {
  std::vector<std::string> parts;
  auto add = [&](std::size_t n, std::string_view kind) {
    if (n > 0) parts.push_back(fmt::format("{} {}", n, kind));
  };
  add(set.nodepools.size(), "NodePool");
  // EKS Auto Mode's eks.amazonaws.com NodeClasses are named by their own kind.
  const auto auto_mode =
      static_cast<std::size_t>(std::count_if(set.node_classes.begin(), set.node_classes.end(),
                                             [](const EC2NodeClass& c) { return c.auto_mode; }));
  add(set.node_classes.size() - auto_mode, "EC2NodeClass");
  add(auto_mode, "NodeClass");
  std::size_t pods = 0, jobs = 0, deployments = 0;
  for (const auto& w : set.workloads) {
    pods += w.workload.kind == WorkloadKind::Pod;
    jobs += w.workload.kind == WorkloadKind::Job;
    deployments += w.workload.kind == WorkloadKind::Deployment;
  }
  add(pods, "Pod");
  add(deployments, "Deployment");
  add(jobs, "Job");
  add(set.daemonsets.size(), "DaemonSet");
  add(set.priority_classes.size(), "PriorityClass");
  add(set.pod_groups.size(), "PodGroup");
  add(set.hpas.size(), "HorizontalPodAutoscaler");
  add(set.scaled_objects.size(), "ScaledObject");
  if (parts.empty()) return "nothing fleetsim models";
  return fmt::format("{}", fmt::join(parts, ", "));
}

// A `families:` key: an instance family of the catalog, else an error with a did-you-mean.
void require_family(const YamlMap::Entry& e, const Catalog& catalog) {
  e.read = true;
  std::set<std::string, std::less<>> known;
  for (const auto& t : catalog.types()) known.insert(t.family);
  if (known.contains(e.key)) return;
  std::vector<std::string_view> names(known.begin(), known.end());
  throw ConfigError(e.key_where, e.value.path(),
                    fmt::format("instance family \"{}\" is not in the catalog{}",
                                e.key.substr(0, 60), did_you_mean(e.key, names)));
}

// The largest spread a scenario may set: a p90 seven times the median, beyond any published range.
constexpr double kMaxStartupSigma = 1.5;

NodeLatency decode_latency(const YamlValue& value, NodeLatency base) {
  YamlMap m(value);
  // A phase the scenario sets is fixed: every node takes it as given.
  auto phase = [&](std::string_view key, SimDuration& into, bool& fixed) {
    if (auto v = m.get(key)) {
      into = v->as_duration();
      if (into < SimDuration{0}) v->fail("a latency must not be negative");
      fixed = true;
    }
  };
  phase("launch", base.launch, base.launch_fixed);
  phase("registration", base.registration, base.registration_fixed);
  phase("initialization", base.initialization, base.initialization_fixed);
  if (auto v = m.get("sigma")) {
    base.sigma = v->as_double();
    if (!(base.sigma >= 0 && base.sigma <= kMaxStartupSigma))
      v->fail(fmt::format("sigma must be in [0, {}]", kMaxStartupSigma));
  }
  m.reject_unread(
      std::array<std::string_view, 4>{"launch", "registration", "initialization", "sigma"});
  return base;
}

ManifestSet decode_apply(const YamlValue& apply, const SectionContext& sc) {
  ManifestSet set;
  if (apply.is_seq()) {
    for (const YamlValue& ref : apply.items()) load_manifest_ref(ref, sc, set);
  } else {
    load_manifest_ref(apply, sc, set);
  }
  // An event may add or replace NodePools and EC2NodeClasses and create workloads; DaemonSets,
  // priority classes, autoscalers and PDBs are set-up that fleetsim reads only at the start.
  auto refuse = [](std::string_view kind, const SourceLocation& where) {
    throw ConfigError(where, "",
                      fmt::format("an event cannot apply a {} yet; put it in manifests", kind));
  };
  if (!set.daemonsets.empty()) refuse("DaemonSet", set.daemonsets.front().workload.where);
  if (!set.priority_classes.empty()) refuse("PriorityClass", set.priority_classes.front().where);
  if (!set.pod_groups.empty()) refuse("PodGroup", set.pod_groups.front().where);
  if (!set.hpas.empty()) refuse("HorizontalPodAutoscaler", set.hpas.front().where);
  if (!set.scaled_objects.empty()) refuse("ScaledObject", set.scaled_objects.front().where);
  if (!set.pdbs.empty()) refuse("PodDisruptionBudget", set.pdbs.front().where);
  if (set.scheduler_config) refuse("KubeSchedulerConfiguration", set.scheduler_config->where);
  if (!set.device_classes.empty()) refuse("DeviceClass", set.device_classes.front().where);
  if (!set.resource_claims.empty())
    refuse(set.resource_claims.front().is_template ? "ResourceClaimTemplate" : "ResourceClaim",
           set.resource_claims.front().where);
  return set;
}

SpotInterruptionEvent decode_spot_interruption(const YamlValue& value, const SectionContext& sc) {
  YamlMap m(value);
  SpotInterruptionEvent e;
  const InstanceType* type = nullptr;
  if (auto t = m.get("instance_type")) {
    e.instance_type = t->as_string();
    type = sc.catalog.find(e.instance_type);
    if (type == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& it : sc.catalog.types()) names.push_back(it.name);
      t->fail(fmt::format("instance type \"{}\" is not in the catalog{}",
                          e.instance_type.substr(0, 60), did_you_mean(e.instance_type, names)));
    }
  }
  if (auto z = m.get("zone")) {
    e.zone = z->as_string();
    std::vector<std::string> zones;
    if (type != nullptr) {
      for (const Offering& o : type->offerings)
        if (o.capacity_type == CapacityType::Spot) zones.push_back(o.zone);
    } else {
      zones = sc.catalog.zones();
    }
    if (std::find(zones.begin(), zones.end(), e.zone) == zones.end()) {
      std::string what =
          type != nullptr ? fmt::format("{} has no spot offering in zone \"{}\"", type->name,
                                        e.zone.substr(0, 60))
                          : fmt::format("zone \"{}\" is not in the catalog", e.zone.substr(0, 60));
      // The valid zones are few and listed, so no "did you mean" is needed.
      z->fail(fmt::format(
          "{} (zones: {})", what,
          zones.empty() ? std::string("none") : fmt::format("{}", fmt::join(zones, ", "))));
    }
  } else if (type != nullptr && type->cheapest_offering(CapacityType::Spot) == nullptr) {
    m.value().fail(fmt::format("{} has no spot offering to interrupt", type->name));
  }
  if (auto count = m.get("count"))
    e.count = static_cast<int>(count->as_int(1, kMaxInterruptionsPerEvent));
  m.reject_unread(std::array<std::string_view, 3>{"instance_type", "zone", "count"});
  return e;
}

}  // namespace

std::filesystem::path resolve_path(const YamlValue& text, const SectionContext& sc) {
  std::string s = text.as_string();
  if (s.empty()) text.fail("the path is empty");
  std::filesystem::path p(s);
  if (p.is_relative()) p = sc.base_dir / p;
  return p.lexically_normal();
}

void load_manifest_ref(const YamlValue& ref, const SectionContext& sc, ManifestSet& out) {
  if (ref.is_map()) {
    sc.manifests.load_manifest(YamlValue(ref.node(), ref.file_ptr(), ref.path()), out);
  } else if (ref.is_scalar()) {
    std::filesystem::path path = resolve_path(ref, sc);
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
      sc.manifests.load_file(path, ref.where(), ref.path(), out);
      return;
    }
    // A directory reads as `kubectl apply -f DIR` does: its .yaml, .yml and .json files, in name
    // order (sorted here, since directory iteration order is unspecified).
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      auto ext = entry.path().extension();
      if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
      // kubectl would fail on it too: a listed manifest is never skipped silently.
      if (auto why = not_a_regular_file(entry.path()))
        ref.fail(fmt::format("{}: {}", entry.path().string(), *why));
      files.push_back(entry.path());
    }
    if (ec) ref.fail(fmt::format("cannot read directory {}", path.string()));
    std::sort(files.begin(), files.end());
    for (const auto& f : files) sc.manifests.load_file(f, ref.where(), ref.path(), out);
  } else {
    ref.fail(fmt::format("expected a file path or an inline manifest, got {}", ref.describe()));
  }
}

std::vector<DecodedJobSource> decode_job_sources(const YamlValue& list, const SectionContext& sc) {
  std::vector<DecodedJobSource> out;
  for (const YamlValue& item : list.items()) {
    YamlMap m(item);
    m.ignore({"trace", "template"});
    m.reject_unread(std::array<std::string_view, 2>{"trace", "template"});
    DecodedJobSource d;
    d.source.where = item.where();

    YamlValue trace = m.require("trace");
    std::filesystem::path trace_path = resolve_path(trace, sc);
    std::error_code ec;
    if (auto why = not_a_regular_file(trace_path))
      trace.fail(fmt::format("{}: {}", *why, trace_path.string()));
    d.source.trace = std::filesystem::absolute(trace_path, ec).lexically_normal();
    if (ec) d.source.trace = trace_path;

    YamlValue tmpl = m.require("template");
    ManifestSet set;
    load_manifest_ref(tmpl, sc, set);
    bool ok = set.object_count() == 1 && set.workloads.size() == 1 &&
              (set.workloads[0].workload.kind == WorkloadKind::Job ||
               set.workloads[0].workload.kind == WorkloadKind::Pod);
    if (!ok) {
      tmpl.fail(fmt::format("a job template must be exactly one Job or Pod manifest; found {}",
                            describe_contents(set)));
    }
    d.source.template_workload = std::move(set.workloads[0].workload);
    d.priority = std::move(set.workloads[0].priority);
    out.push_back(std::move(d));
  }
  return out;
}

// The most instances a scripted capacity may name: far beyond any offering's real capacity.
constexpr std::int64_t kMaxScriptedCapacity = 1'000'000;

CapacityEvent decode_capacity(const YamlValue& value, const SectionContext& sc) {
  YamlMap m(value);
  CapacityEvent e;
  const YamlValue type_value = m.require("instance_type");
  e.instance_type = type_value.as_string();
  const InstanceType* type = sc.catalog.find(e.instance_type);
  if (type == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& it : sc.catalog.types()) names.push_back(it.name);
    type_value.fail(fmt::format("instance type \"{}\" is not in the catalog{}",
                                e.instance_type.substr(0, 60),
                                did_you_mean(e.instance_type, names)));
  }
  if (auto ct = m.get("capacity_type")) {
    const std::string text = ct->as_string();
    if (text == "spot") {
      e.capacity_type = CapacityType::Spot;
    } else if (text == "on-demand") {
      e.capacity_type = CapacityType::OnDemand;
    } else {
      ct->fail(fmt::format("unknown capacity type \"{}\"; expected spot or on-demand",
                           text.substr(0, 40)));
    }
  }
  std::vector<std::string> zones;
  for (const Offering& o : type->offerings)
    if (o.capacity_type == e.capacity_type) zones.push_back(o.zone);
  if (zones.empty()) {
    m.value().fail(fmt::format("{} has no {} offering", type->name, to_string(e.capacity_type)));
  }
  if (auto z = m.get("zone")) {
    e.zone = z->as_string();
    if (std::find(zones.begin(), zones.end(), e.zone) == zones.end()) {
      z->fail(fmt::format("{} has no {} offering in zone \"{}\" (zones: {})", type->name,
                          to_string(e.capacity_type), e.zone.substr(0, 60),
                          fmt::join(zones, ", ")));
    }
  }
  const YamlValue count = m.require("count");
  if (!(count.is_scalar() && count.as_string() == "unlimited")) {
    e.count = count.as_int(0, kMaxScriptedCapacity);
  }
  m.reject_unread(
      std::array<std::string_view, 4>{"instance_type", "zone", "capacity_type", "count"});
  return e;
}

std::vector<DecodedEvent> decode_events(const YamlValue& list, const SectionContext& sc) {
  std::vector<DecodedEvent> out;
  for (const YamlValue& item : list.items()) {
    YamlMap m(item);
    YamlValue at = m.require("at");
    std::optional<YamlValue> apply = m.get("apply");
    std::optional<YamlValue> spot = m.get("spot_interruption");
    std::optional<YamlValue> scale = m.get("scale");
    std::optional<YamlValue> capacity = m.get("capacity");
    m.reject_unread(
        std::array<std::string_view, 5>{"at", "apply", "spot_interruption", "scale", "capacity"});
    DecodedEvent e{.at = at.as_duration(), .where = item.where(), .action = ManifestSet{}};
    if (e.at < SimDuration{0}) at.fail("an event time must not be negative");
    if (e.at > sc.duration) {
      at.fail(fmt::format("the event at {} comes after the end of the scenario ({})",
                          format_duration(e.at), format_duration(sc.duration)));
    }
    if (int{apply.has_value()} + int{spot.has_value()} + int{scale.has_value()} +
            int{capacity.has_value()} !=
        1) {
      item.fail("an event needs exactly one of apply, spot_interruption, scale or capacity");
    }
    if (apply) {
      e.action = decode_apply(*apply, sc);
    } else if (spot) {
      e.action = decode_spot_interruption(*spot, sc);
    } else if (capacity) {
      e.action = decode_capacity(*capacity, sc);
    } else {
      YamlMap s(*scale);
      YamlValue deployment = s.require("deployment");
      e.action = ScaleRequest{
          .deployment = deployment.as_string(),
          .replicas = static_cast<std::int32_t>(s.require("replicas").as_int(0, kMaxReplicas)),
          .deployment_where = deployment.where(),
          .deployment_field = deployment.path()};
      s.reject_unread(std::array<std::string_view, 2>{"deployment", "replicas"});
    }
    out.push_back(std::move(e));
  }
  return out;
}

NodeLatencies decode_node_latencies(const YamlValue& value, const Catalog& catalog) {
  NodeLatencies out;
  YamlMap m(value);
  if (auto cpu = m.get("cpu")) out.cpu = decode_latency(*cpu, out.cpu);
  if (auto gpu = m.get("gpu")) out.gpu = decode_latency(*gpu, out.gpu);
  if (auto families = m.get("families")) {
    YamlMap f(*families);
    for (const auto& e : f.entries()) {
      require_family(e, catalog);
      bool accelerated =
          std::any_of(catalog.types().begin(), catalog.types().end(),
                      [&](const InstanceType& t) { return t.family == e.key && t.has_gpu(); });
      out.by_family.emplace(e.key, decode_latency(e.value, accelerated ? out.gpu : out.cpu));
    }
  }
  if (auto bandwidth = m.get("image_pull_bandwidth")) {
    out.image_pull_bytes_per_s = bandwidth->as_quantity().value_ceil();
    if (out.image_pull_bytes_per_s <= 0)
      bandwidth->fail("the image pull bandwidth must be positive");
  }
  m.reject_unread(
      std::array<std::string_view, 4>{"cpu", "gpu", "families", "image_pull_bandwidth"});
  return out;
}

ApiLimits decode_controller_manager_settings(const YamlValue& value) {
  ApiLimits out;
  YamlMap m(value);
  if (auto qps = m.get("kube_api_qps")) {
    out.qps = qps->as_double();
    if (!(out.qps > 0 && out.qps <= 1e6)) qps->fail("must be in (0, 1000000]");
  }
  if (auto burst = m.get("kube_api_burst"))
    out.burst = static_cast<std::int32_t>(burst->as_int(1, 1'000'000));
  m.reject_unread(std::array<std::string_view, 2>{"kube_api_qps", "kube_api_burst"});
  return out;
}

MetricAliases decode_metric_aliases(const YamlValue& value) {
  YamlMap m(value);
  MetricAliases out;
  if (auto aliases = m.get("aliases")) {
    YamlMap a(*aliases);
    for (const auto& e : a.entries()) {
      e.read = true;
      if (!is_prometheus_metric_name(e.key))
        throw ConfigError(
            e.key_where, e.value.path(),
            fmt::format("\"{}\" is not a Prometheus metric name", e.key.substr(0, 80)));
      if (is_simulated_metric(e.key))
        throw ConfigError(e.key_where, e.value.path(),
                          fmt::format("{} is a metric fleetsim produces itself", e.key));
      std::string target = e.value.as_string();
      if (!is_simulated_metric(target))
        e.value.fail(fmt::format("\"{}\" is not a metric fleetsim produces; expected one of {}{}",
                                 target.substr(0, 80), fmt::join(kSimulatedMetrics, ", "),
                                 did_you_mean(target, kSimulatedMetrics)));
      out.emplace(e.key, std::move(target));
    }
  }
  m.reject_unread(std::array<std::string_view, 1>{"aliases"});
  return out;
}

std::vector<Gate> decode_gates(const YamlValue& value) {
  YamlMap m(value);
  std::vector<Gate> out;
  for (const auto& e : m.entries()) {
    e.read = true;
    YamlMap bounds(e.value);
    Gate g{.metric = e.key, .where = e.key_where};
    if (auto v = bounds.get("min")) g.min = v->as_double();
    if (auto v = bounds.get("max")) g.max = v->as_double();
    bounds.reject_unread(std::array<std::string_view, 2>{"min", "max"});
    if (!g.min && !g.max) e.value.fail("a gate needs min, max or both");
    if (g.min && g.max && *g.min > *g.max)
      e.value.fail(fmt::format("min {} is above max {}", *g.min, *g.max));
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

// band_midpoint | band_max | {band_quantile: q} | {per_month: share}.
SpotRate decode_spot_rate(const YamlValue& value) {
  if (value.is_scalar()) {
    const std::string text = value.as_string();
    if (text == "band_midpoint") return {.kind = SpotRate::Kind::BandQuantile, .value = 0.5};
    if (text == "band_max") return {.kind = SpotRate::Kind::BandQuantile, .value = 1.0};
    value.fail(fmt::format(
        "unknown interruption rate \"{}\"; expected band_midpoint, band_max, "
        "{{band_quantile: Q}} or {{per_month: SHARE}}{}",
        text.substr(0, 60),
        did_you_mean(text, std::array<std::string_view, 2>{"band_midpoint", "band_max"})));
  }
  YamlMap m(value);
  const std::optional<YamlValue> quantile = m.get("band_quantile");
  const std::optional<YamlValue> share = m.get("per_month");
  m.reject_unread(std::array<std::string_view, 2>{"band_quantile", "per_month"});
  if (quantile.has_value() == share.has_value())
    value.fail("give exactly one of band_quantile or per_month");
  SpotRate out;
  if (quantile) {
    out = {.kind = SpotRate::Kind::BandQuantile, .value = quantile->as_double()};
    if (out.value < 0 || out.value > 1) quantile->fail("a quantile within the band is from 0 to 1");
  } else {
    out = {.kind = SpotRate::Kind::PerMonth, .value = share->as_double()};
    if (out.value < 0 || out.value > kMaxMonthlyShare) {
      share->fail(fmt::format("the monthly interruption share is from 0 to {}", kMaxMonthlyShare));
    }
  }
  return out;
}

double decode_share(const YamlValue& value, double max) {
  const double share = value.as_double();
  if (share < 0 || share > max) value.fail(fmt::format("must be from 0 to {}", max));
  return share;
}

}  // namespace

SpotMarketSettings decode_spot_market(const YamlValue& value, const SectionContext& sc,
                                      WarningLog& warnings) {
  const Catalog& catalog = sc.catalog;
  SpotMarketSettings out;
  YamlMap m(value);
  const std::optional<YamlValue> rate = m.get("interruption_rate");
  const std::optional<YamlValue> availability = m.get("availability");
  const std::optional<YamlValue> prices = m.get("prices");
  const std::optional<YamlValue> capacity = m.get("capacity");
  if (!rate && !availability && !prices && !capacity)
    value.fail("give at least one of interruption_rate, availability, prices or capacity");
  if (rate) out.rate = decode_spot_rate(*rate);
  if (availability) {
    out.availability_trace = resolve_path(*availability, sc);
    out.availability = read_availability_trace(out.availability_trace, catalog);
    warn_rows_after_end(tail_of<AvailabilityChange>(out.availability, sc.duration),
                        out.availability_trace, availability->path(), sc.duration, warnings);
  }
  if (prices) {
    out.price_trace = resolve_path(*prices, sc);
    out.prices = read_price_trace(out.price_trace, catalog);
    warn_rows_after_end(tail_of<PriceChange>(out.prices, sc.duration), out.price_trace,
                        prices->path(), sc.duration, warnings);
  }
  if (capacity) {
    out.capacity_trace = resolve_path(*capacity, sc);
    out.capacity = read_capacity_trace(out.capacity_trace, catalog);
    warn_rows_after_end(tail_of<CapacityChange>(out.capacity, sc.duration), out.capacity_trace,
                        capacity->path(), sc.duration, warnings);
  }
  if (auto families = m.get("families")) {
    YamlMap f(*families);
    for (const auto& e : f.entries()) {
      require_family(e, catalog);
      out.by_family.emplace(e.key, decode_spot_rate(e.value));
    }
  }
  if (auto scale = m.get("scale")) {
    out.scale = scale->as_double();
    if (!(out.scale >= 0 && out.scale <= kMaxSpotRateScale)) {
      scale->fail(fmt::format("the scale is from 0 to {}", kMaxSpotRateScale));
    }
  }
  if (auto waves = m.get("waves")) {
    YamlMap w(*waves);
    if (auto share = w.get("share")) {
      out.wave_share = decode_share(*share, 1.0);
      // Waves come at the hazard ÷ share: a tiny share floods the run with waves that never end.
      if (out.wave_share < kMinWaveShare)
        share->fail(fmt::format("a wave takes a share from {} to 1", kMinWaveShare));
    }
    if (auto spread = w.get("spread")) {
      out.wave_spread = spread->as_duration();
      if (out.wave_spread < SimDuration{0} || out.wave_spread > kMaxWaveSpread) {
        spread->fail(fmt::format("the spread is from 0 to {}", format_duration(kMaxWaveSpread)));
      }
    }
    w.reject_unread(std::array<std::string_view, 2>{"share", "spread"});
  }
  if (auto rebalance = m.get("rebalance")) {
    YamlMap r(*rebalance);
    if (auto share = r.get("share")) out.rebalance_share = decode_share(*share, 1.0);
    if (auto lead = r.get("lead")) {
      out.rebalance_lead = lead->as_duration();
      if (out.rebalance_lead < SimDuration{0} || out.rebalance_lead > kMaxRebalanceLead) {
        lead->fail(fmt::format("the lead is from 0 to {}", format_duration(kMaxRebalanceLead)));
      }
    }
    r.reject_unread(std::array<std::string_view, 2>{"share", "lead"});
  }
  m.reject_unread(std::array<std::string_view, 8>{"interruption_rate", "availability", "prices",
                                                  "capacity", "families", "scale", "waves",
                                                  "rebalance"});
  // scale, waves and rebalance shape the interruptions a rate draws (spot_market.cpp); with
  // neither interruption_rate nor families, no wave ever comes and they change nothing.
  if (!rate && out.by_family.empty()) {
    for (std::string_view knob : {"scale", "waves", "rebalance"}) {
      if (auto v = m.get(knob)) {
        warnings.add(WarningCode::SpotNoInterruptionRate, v->where(), v->path(),
                     fmt::format("{} shapes the interruptions drawn from interruption_rate or "
                                 "families, and neither is given: no interruption is drawn, so "
                                 "{} is ignored",
                                 knob, knob));
      }
    }
  }

  // A band rate needs a band: name the spot types the catalog gives none, which never get one.
  std::vector<std::string> unbanded;
  for (const InstanceType& t : catalog.types()) {
    const auto family = out.by_family.find(t.family);
    const SpotRate* rate = family != out.by_family.end() ? &family->second
                           : out.rate                    ? &*out.rate
                                                         : nullptr;
    if (rate == nullptr || rate->kind != SpotRate::Kind::BandQuantile) continue;
    const bool missing = std::any_of(t.offerings.begin(), t.offerings.end(), [](const Offering& o) {
      return o.capacity_type == CapacityType::Spot && !band_share(o.interruption_bucket, 0);
    });
    if (missing) unbanded.push_back(t.name);
  }
  if (!unbanded.empty()) {
    warnings.add(WarningCode::SpotNoInterruptionBand, value.where(),
                 value.path() + ".interruption_rate",
                 fmt::format("{} spot instance type(s) have no Spot Advisor band in the catalog "
                             "and are never interrupted ({}); give their families a per_month "
                             "share under families",
                             unbanded.size(), first_names(unbanded)));
  }
  return out;
}

KarpenterSettings decode_karpenter_settings(const YamlValue& value) {
  KarpenterSettings out;
  YamlMap m(value);
  auto positive = [&](std::string_view key, SimDuration& into) {
    if (auto v = m.get(key)) {
      into = v->as_duration();
      if (into <= SimDuration{0}) v->fail("must be positive");
    }
  };
  positive("batch_idle", out.batch_idle);
  positive("batch_max", out.batch_max);
  if (auto gates = m.get("feature_gates")) {
    YamlMap g(*gates);
    if (auto s2s = g.get("spot_to_spot_consolidation"))
      out.spot_to_spot_consolidation = s2s->as_bool();
    if (auto overlay = g.get("node_overlay")) {
      out.node_overlay = overlay->as_bool();
      out.node_overlay_where = overlay->where();
    }
    if (auto cb = g.get("capacity_buffer")) out.capacity_buffer = cb->as_bool();
    g.reject_unread(std::array<std::string_view, 3>{"capacity_buffer", "node_overlay",
                                                    "spot_to_spot_consolidation"});
  }
  if (auto v = m.get("ignore_dra_requests")) {
    out.ignore_dra_requests = v->as_bool();
    out.ignore_dra_requests_where = v->where();
  }
  if (auto v = m.get("version")) {
    std::optional<KarpenterVersion> version = parse_karpenter_version(v->as_string());
    if (!version)
      v->fail(fmt::format("\"{}\" is not a modelled Karpenter release: give v1.{} to v1.{}",
                          v->as_string(), kOldestKarpenterMinor, kLatestKarpenterMinor));
    out.version = *version;
  }
  m.reject_unread(std::array<std::string_view, 5>{"batch_idle", "batch_max", "feature_gates",
                                                  "ignore_dra_requests", "version"});
  return out;
}

}  // namespace fleetsim
