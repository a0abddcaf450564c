#include "fleetsim/scenario/gpu_operator_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "fleetsim/scenario/embedded_yaml.hpp"

namespace fleetsim {

namespace {

// A mig_layout_delay past an hour is a unit mistake: the node would sit idle and billed.
constexpr SimDuration kMaxLayoutDelay = hours(1);

std::optional<MigStrategy> mig_strategy(const YamlValue& v, bool none_allowed) {
  const std::string s = v.as_string();
  if (s == "single") return MigStrategy::Single;
  if (s == "mixed") return MigStrategy::Mixed;
  if (s == "none" && none_allowed) return std::nullopt;
  v.fail(fmt::format("unknown MIG strategy \"{}\"; expected single or mixed{}", s.substr(0, 40),
                     none_allowed ? " (or none)" : ""));
}

// sharing.timeSlicing or sharing.mps (api/config/v1/replicas.go's UnmarshalJSON).
void decode_replicated(const YamlValue& v, GpuSharingKind kind, DevicePluginConfig& out) {
  YamlMap m(v);
  if (auto r = m.get("renameByDefault")) out.rename_by_default = r->as_bool();
  if (auto f = m.get("failRequestsGreaterThanOne"))
    out.fail_requests_greater_than_one = f->as_bool();
  const std::optional<YamlValue> list = m.get("resources");
  if (!list || list->items().empty()) v.fail("no resources specified");
  for (const YamlValue& item : list->items()) {
    YamlMap r(item);
    ReplicatedResource rr{.name = r.require("name").as_string(), .where = item.where()};
    if (rr.name != "nvidia.com/gpu" && !rr.name.starts_with("nvidia.com/mig-"))
      r.require("name").fail(
          fmt::format("\"{}\" is no resource the device plugin shares: nvidia.com/gpu or "
                      "nvidia.com/mig-<profile>",
                      rr.name.substr(0, 60)));
    const YamlValue replicas = r.require("replicas");
    rr.replicas = static_cast<int>(replicas.as_int(std::numeric_limits<int>::min(), 1024));
    // replicas.go: "number of replicas must be >= 2"; the plugin does not start.
    if (rr.replicas < 2)
      replicas.fail(fmt::format("number of replicas must be >= 2 (the device plugin refuses {})",
                                rr.replicas));
    if (auto rename = r.get("rename"))
      rename->fail(
          "the device plugin ignores rename (\"not yet supported in the config\"); use "
          "renameByDefault");
    if (auto devices = r.get("devices"))
      if (!devices->is_scalar() || devices->as_string() != "all")
        devices->fail(
            "the device plugin ignores devices other than all (\"not yet supported in "
            "the config\")");
    r.reject_unread(std::array<std::string_view, 4>{"name", "replicas", "rename", "devices"});
    out.resources.push_back(std::move(rr));
  }
  out.sharing = kind;
  m.reject_unread(std::array<std::string_view, 3>{"renameByDefault", "failRequestsGreaterThanOne",
                                                  "resources"});
}

}  // namespace

DevicePluginConfig decode_device_plugin_config(const YamlValue& config, std::string name) {
  DevicePluginConfig out{.name = std::move(name), .where = config.where()};
  YamlMap m(config);
  const YamlValue version = m.require("version");
  if (version.as_string() != "v1")
    version.fail(fmt::format("unknown version \"{}\"; the device plugin reads v1",
                             version.as_string().substr(0, 20)));
  if (auto flags = m.get("flags")) {
    YamlMap f(*flags);
    if (auto s = f.get("migStrategy")) out.mig_strategy = mig_strategy(*s, true);
    // The other flags (failOnInitError, nvidiaDriverRoot, plugin, gfd) change nothing fleetsim
    // models: read, not refused.
    for (const auto& e : f.entries()) e.read = true;
  }
  if (auto sharing = m.get("sharing")) {
    YamlMap s(*sharing);
    const std::optional<YamlValue> ts = s.get("timeSlicing");
    const std::optional<YamlValue> mps = s.get("mps");
    // sharing.go SharingStrategy: MPS wins when both replicate.
    if (mps) {
      decode_replicated(*mps, GpuSharingKind::Mps, out);
      // config.go: MPS keeps failing requests above one unless the config relaxes it.
      if (!YamlMap(*mps).contains("failRequestsGreaterThanOne"))
        out.fail_requests_greater_than_one = true;
      if (ts) ts->fail("sharing.mps is set too, and the device plugin then uses MPS: remove one");
    } else if (ts) {
      decode_replicated(*ts, GpuSharingKind::TimeSlicing, out);
    }
    s.reject_unread(std::array<std::string_view, 2>{"timeSlicing", "mps"});
  }
  if (auto r = m.get("resources"))
    r->fail("the device plugin ignores resources (\"not yet supported in the config\")");
  m.ignore({"imex"});
  m.reject_unread(
      std::array<std::string_view, 5>{"version", "flags", "resources", "sharing", "imex"});
  return out;
}

void read_gpu_operator(const YamlMap& top, ManifestSet& set, ScenarioConfig& cfg,
                       WarningLog& warnings) {
  GpuOperatorSettings& s = cfg.gpu_operator;
  std::string config_map;
  std::optional<YamlValue> config_map_key;
  if (auto v = top.get("gpu_operator")) {
    YamlMap m(*v);
    if (auto x = m.get("mig_strategy")) s.mig_strategy = *mig_strategy(*x, false);
    if (auto x = m.get("mig_layout_delay")) {
      s.mig_layout_delay = x->as_duration();
      if (s.mig_layout_delay < SimDuration{0} || s.mig_layout_delay > kMaxLayoutDelay)
        x->fail(fmt::format("must be from 0s to {}", format_duration(kMaxLayoutDelay)));
    }
    if (auto x = m.get("device_plugin_config")) {
      config_map = x->as_string();
      config_map_key = x;
    }
    if (auto x = m.get("device_plugin_default")) {
      s.default_config = x->as_string();
      if (!config_map_key)
        x->fail(
            "names a config of the device plugin's ConfigMap, but device_plugin_config "
            "names no ConfigMap");
    }
    m.reject_unread(std::array<std::string_view, 4>{
        "mig_strategy", "mig_layout_delay", "device_plugin_config", "device_plugin_default"});
  }
  bool found = false;
  for (const ManifestSet::ConfigMapObject& cm : set.config_maps) {
    if (!config_map_key || cm.name != config_map) {
      warnings.add_unmodelled(cm.where, "ConfigMap", "kind ConfigMap is not modelled; ignored");
      continue;
    }
    found = true;
    if (!cm.data) continue;
    const YamlMap data(*cm.data);
    for (const YamlMap::Entry& e : data.entries()) {
      e.read = true;
      const std::string text = e.value.as_string();
      std::optional<YamlDocuments> parsed;
      const std::string file = fmt::format("(device plugin config {})", e.key.substr(0, 60));
      try {
        parsed = parse_yaml(text, file);
      } catch (const InputError& err) {
        throw ConfigError(text_origin(e.value).map(err.where()), e.value.path(),
                          fmt::format("does not parse as YAML: {}", err.message()));
      }
      if (parsed->documents.size() != 1 || !parsed->documents[0].IsMap())
        e.value.fail("must hold one device plugin config (version: v1, sharing: ...)");
      try {
        DevicePluginConfig c = decode_device_plugin_config(
            YamlValue(parsed->documents[0], parsed->file, e.value.path()), e.key);
        c.where = e.key_where;
        for (ReplicatedResource& r : c.resources) r.where = text_origin(e.value).map(r.where);
        s.device_plugin_configs.push_back(std::move(c));
      } catch (const InputError& err) {
        if (err.where().file != file) throw;
        throw ConfigError(text_origin(e.value).map(err.where()), err.field(), err.message());
      }
    }
  }
  std::sort(s.device_plugin_configs.begin(), s.device_plugin_configs.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  if (config_map_key && !found)
    config_map_key->fail(
        fmt::format("no ConfigMap named \"{}\" among the manifests", config_map.substr(0, 60)));
  if (!s.default_config.empty() &&
      std::none_of(s.device_plugin_configs.begin(), s.device_plugin_configs.end(),
                   [&](const auto& c) { return c.name == s.default_config; }))
    YamlMap(*top.get("gpu_operator"))
        .require("device_plugin_default")
        .fail(fmt::format("ConfigMap {} has no config \"{}\"", config_map.substr(0, 60),
                          s.default_config.substr(0, 60)));
}

}  // namespace fleetsim
