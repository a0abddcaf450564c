#include "fleetsim/scenario/eksctl_decoder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "fleetsim/core/quantity.hpp"
#include "fleetsim/scenario/bottlerocket_user_data.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/nodeclass_decoder.hpp"
#include "fleetsim/scenario/nodepool_decoder.hpp"
#include "fleetsim/scenario/object_meta.hpp"

namespace fleetsim {

namespace {

// Auto Scaling groups hold at most this many instances here: far beyond any GPU fleet, and a
// bound that keeps a typo from launching millions of nodes.
constexpr std::int64_t kMaxGroupSize = 10'000;
constexpr std::int64_t kMaxVolumeGiB = 64 * 1024;
constexpr std::int64_t kMaxPodsPerNode = 1'000;

constexpr std::array<std::string_view, 4> kSpotStrategies{"lowest-price", "capacity-optimized",
                                                          "price-capacity-optimized",
                                                          "capacity-optimized-prioritized"};

std::vector<std::string> string_list(const YamlValue& v) {
  std::vector<std::string> out;
  for (const YamlValue& item : v.items()) out.push_back(item.as_string());
  return out;
}

void add_types(NodeGroup& g, const YamlValue& list) {
  for (const YamlValue& item : list.items()) {
    g.instance_types.push_back(item.as_string());
    g.instance_type_where.push_back(item.where());
  }
  if (g.instance_types.empty()) list.fail("give at least one instance type");
}

// taints: a list of {key, value, effect}, or the older map form key: "value:Effect".
std::vector<Taint> decode_group_taints(const YamlValue& v, DecodeContext& ctx) {
  if (!v.is_map()) return decode_taints(v, ctx);
  std::vector<Taint> out;
  YamlMap m(v);
  for (const auto& e : m.entries()) {
    // eksctl's parseTaint (pkg/utils/taints): "value:Effect", or "Effect" alone.
    const std::string text = e.value.as_string();
    const std::size_t colon = text.find(':');
    const bool at_most_one =
        colon == std::string::npos || text.find(':', colon + 1) == std::string::npos;
    const std::string effect = colon == std::string::npos ? text : text.substr(colon + 1);
    const std::optional<TaintEffect> parsed =
        at_most_one ? parse_taint_effect(effect) : std::nullopt;
    if (!parsed) {
      e.value.fail(
          fmt::format("expected \"value:Effect\" or \"Effect\" with Effect NoSchedule, "
                      "PreferNoSchedule or NoExecute, got \"{}\"",
                      text.substr(0, 60)));
    }
    out.push_back(Taint{.key = e.key,
                        .value = colon == std::string::npos ? std::string() : text.substr(0, colon),
                        .effect = *parsed});
  }
  return out;
}

// The group's tags the Cluster Autoscaler's AWS provider reads for a scale-from-zero template
// (aws_manager.go buildNodeFromTemplate: extractAllocatableResourcesFromAsg, extractLabelsFromAsg,
// extractTaintsFromAsg). eksctl puts a self-managed group's tags on its ASG; a managed group's go
// on the EKS node group, whose tags the autoscaler reads through DescribeNodegroup. A tag it
// skips (a resource amount that is no quantity, a taint not "value:Effect") is a warning; other
// tags are cost and ownership tags.
void decode_template_tags(const YamlValue& v, NodeGroup& g, DecodeContext& ctx) {
  constexpr std::string_view kPrefix = "k8s.io/cluster-autoscaler/node-template/";
  YamlMap tags(v);
  for (const auto& e : tags.entries()) {
    std::string_view key = e.key;
    if (!key.starts_with(kPrefix)) continue;
    key.remove_prefix(kPrefix.size());
    const std::string value = e.value.as_string();
    auto skipped = [&](std::string_view why) {
      ctx.warnings.add(WarningCode::AsgTagIgnored, e.value.where(), e.value.path(),
                       fmt::format("the Cluster Autoscaler skips this tag: {}", why));
    };
    if (key.starts_with("resources/") && key.size() > 10) {
      const std::string name(key.substr(10));
      const std::optional<Quantity> q = parse_quantity(value);
      if (!q) {
        skipped(fmt::format("\"{}\" is not a quantity", value.substr(0, 40)));
        continue;
      }
      g.template_resources.emplace_back(name, name == "cpu" ? q->milli : q->value_ceil());
    } else if (key.starts_with("label/") && key.size() > 6) {
      g.template_labels[std::string(key.substr(6))] = value;
    } else if (key.starts_with("taint/") && key.size() > 6) {
      const std::size_t colon = value.find(':');
      const std::optional<TaintEffect> effect =
          colon == std::string::npos ? std::nullopt : parse_taint_effect(value.substr(colon + 1));
      if (!effect) {
        skipped(
            "a taint's value must be \"value:Effect\" with Effect NoSchedule, "
            "PreferNoSchedule or NoExecute");
        continue;
      }
      g.template_taints.push_back(Taint{
          .key = std::string(key.substr(6)), .value = value.substr(0, colon), .effect = *effect});
    }
  }
}

// Sizes as eksctl sets and checks them (validation.go, ValidateManagedNodeGroup; for self-managed
// groups cfn/builder/nodegroup.go: the same rules without the max of at least 1
// (DefaultMaxSize)).
void decode_sizes(const YamlMap& m, NodeGroup& g) {
  auto size = [&](std::string_view key) -> std::optional<int> {
    if (auto v = m.get(key)) return static_cast<int>(v->as_int(0, kMaxGroupSize));
    return std::nullopt;
  };
  std::optional<int> min = size("minSize");
  std::optional<int> max = size("maxSize");
  const std::optional<int> desired = size("desiredCapacity");
  auto fail = [&](std::string_view key, std::string message) {
    m.get(key)->fail(std::move(message));
  };
  if (!min) {
    min = desired ? *desired : kEksctlDefaultNodeCount;
  } else if (desired && *desired < *min) {
    fail("desiredCapacity", fmt::format("desiredCapacity {} is below minSize {}", *desired, *min));
  }
  if (!max) {
    max = desired ? *desired : *min;
    if (*max == 0 && g.managed) max = 1;  // DefaultMaxSize
  } else if (desired && *desired > *max) {
    fail("desiredCapacity", fmt::format("desiredCapacity {} is above maxSize {}", *desired, *max));
  } else if (*max < *min) {
    fail("maxSize", fmt::format("maxSize {} is below minSize {}", *max, *min));
  }
  g.min_size = *min;
  g.max_size = *max;
  g.desired_capacity = desired ? *desired : *min;
}

void decode_distribution(const YamlValue& v, NodeGroup& g, DecodeContext& ctx) {
  YamlMap d(v);
  add_types(g, d.require("instanceTypes"));
  if (auto base = d.get("onDemandBaseCapacity"))
    g.on_demand_base = static_cast<int>(base->as_int(0, kMaxGroupSize));
  if (auto pct = d.get("onDemandPercentageAboveBaseCapacity"))
    g.on_demand_percentage_above_base = static_cast<int>(pct->as_int(0, 100));
  if (auto s = d.get("spotAllocationStrategy")) {
    const std::string text = s->as_string();
    if (std::find(kSpotStrategies.begin(), kSpotStrategies.end(), text) == kSpotStrategies.end()) {
      s->fail(
          fmt::format("unknown spotAllocationStrategy \"{}\"; expected lowest-price, "
                      "capacity-optimized, price-capacity-optimized or "
                      "capacity-optimized-prioritized{}",
                      text.substr(0, 40), did_you_mean(text, kSpotStrategies)));
    }
    g.spot_strategy = text == "capacity-optimized-prioritized" ? AllocationStrategy::Prioritized
                                                               : AllocationStrategy::LowestPrice;
  }
  if (auto s = d.get("onDemandAllocationStrategy")) {
    const std::string text = s->as_string();
    if (text != "prioritized" && text != "lowest-price") {
      s->fail(
          fmt::format("unknown onDemandAllocationStrategy \"{}\"; expected prioritized or "
                      "lowest-price",
                      text.substr(0, 40)));
    }
    g.on_demand_strategy =
        text == "lowest-price" ? AllocationStrategy::LowestPrice : AllocationStrategy::Prioritized;
  }
  d.check_unread(
      ctx.warnings, ctx.kind,
      api::NodeGroupInstancesDistribution);  // maxPrice, spotInstancePools, capacityRebalance
}

// bottlerocket: its settings' MIG partitioning (validateNodeGroupBase: only with amiFamily
// Bottlerocket).
void decode_bottlerocket(const YamlMap& group, const YamlValue& bottlerocket, NodeGroup& g,
                         DecodeContext& ctx) {
  const std::optional<YamlValue> family = group.get("amiFamily");
  const std::string found = family ? family->as_string() : "";
  if (found != "Bottlerocket")
    bottlerocket.fail(
        fmt::format("bottlerocket config can only be used with amiFamily "
                    "\"Bottlerocket\" but found \"{}\" (eksctl refuses it)",
                    found.substr(0, 40)));
  YamlMap b(bottlerocket);
  if (auto settings = b.get("settings"))
    g.bottlerocket_mig = decode_bottlerocket_settings(*settings, "bottlerocket.settings", ctx);
  b.check_unread(ctx.warnings, ctx.kind, api::NodeGroupBottlerocket);
}

NodeGroup decode_group(const YamlValue& item, bool managed,
                       const std::vector<std::string>& cluster_zones,
                       const SourceLocation& cluster_zones_where, DecodeContext& ctx) {
  YamlMap m(item);
  NodeGroup g;
  g.managed = managed;
  g.where = item.where();
  const YamlValue name = m.require("name");
  g.name = name.as_string();
  if (auto p = dns_subdomain_problem(g.name)) name.fail(*p);

  // eksctl decodes strictly and a managed group has no such field (eksctl#1600: "json: unknown
  // field \"instancesDistribution\""): a warning here would leave every pod unschedulable.
  if (managed) {
    if (auto d = m.get("instancesDistribution")) {
      d->fail(
          "managedNodeGroups have no instancesDistribution, and eksctl refuses it; give a "
          "managed group instanceTypes and spot: true, or make it a self-managed group under "
          "nodeGroups");
    }
  }
  const std::optional<YamlValue> type = m.get("instanceType");
  const std::optional<YamlValue> types = managed ? m.get("instanceTypes") : std::nullopt;
  const std::optional<YamlValue> distribution =
      managed ? std::nullopt : m.get("instancesDistribution");
  if (type && (types || distribution)) {
    const bool mixed = distribution && type->as_string() == "mixed";
    if (!mixed) {
      type->fail(fmt::format("give instanceType or {}, not both",
                             managed ? "instanceTypes" : "instancesDistribution.instanceTypes"));
    }
  }
  if (types) add_types(g, *types);
  if (distribution) decode_distribution(*distribution, g, ctx);
  if (type && g.instance_types.empty()) {
    g.instance_types.push_back(type->as_string());
    g.instance_type_where.push_back(type->where());
  }
  if (g.instance_types.empty()) {
    g.instance_types.emplace_back(kEksctlDefaultInstanceType);
    g.instance_type_where.push_back(item.where());
  }

  decode_sizes(m, g);
  if (auto spot = managed ? m.get("spot") : std::nullopt; spot && spot->as_bool())
    g.on_demand_percentage_above_base = 0;

  if (auto zones = m.get("availabilityZones")) {
    g.zones = string_list(*zones);
    g.zones_where = zones->where();
  } else {
    g.zones = cluster_zones;
    g.zones_where = cluster_zones_where;
  }
  if (auto labels = m.get("labels")) g.labels = decode_labels(*labels);
  if (auto taints = m.get("taints")) g.taints = decode_group_taints(*taints, ctx);
  // eksctl's propagateASGTags copies the labels and taints to the ASG as node-template tags.
  g.template_has_group_labels = managed;
  if (auto propagate = m.get("propagateASGTags"); propagate && propagate->as_bool())
    g.template_has_group_labels = true;
  if (auto tags = m.get("tags")) decode_template_tags(*tags, g, ctx);
  g.root_volume = BlockDevice{.device_name = "/dev/xvda",
                              .size_bytes = std::int64_t{kEksctlDefaultVolumeGiB} << 30,
                              .type = EbsVolumeType::gp3};
  if (auto size = m.get("volumeSize"))
    g.root_volume.size_bytes = size->as_int(1, kMaxVolumeGiB) << 30;
  if (auto type_value = m.get("volumeType")) g.root_volume.type = parse_volume_type(*type_value);
  if (auto iops = m.get("volumeIOPS")) g.root_volume.iops = iops->as_int(0, kMaxEbsIops);
  if (auto throughput = m.get("volumeThroughput"))
    g.root_volume.throughput_mibps = throughput->as_int(0, kMaxEbsThroughputMibps);
  if (auto max_pods = m.get("maxPodsPerNode"))
    g.max_pods = static_cast<int>(max_pods->as_int(1, kMaxPodsPerNode));
  if (auto bottlerocket = m.get("bottlerocket")) decode_bottlerocket(m, *bottlerocket, g, ctx);
  m.check_unread(ctx.warnings, ctx.kind,
                 managed ? api::EksctlManagedNodeGroup : api::EksctlNodeGroup);
  return g;
}

}  // namespace

ClusterConfigSpec decode_cluster_config(const YamlMap& manifest, DecodeContext& ctx) {
  ClusterConfigSpec spec;
  if (auto auto_mode = manifest.get("autoModeConfig")) {
    YamlMap a(*auto_mode);
    const bool enabled = a.get("enabled") && a.get("enabled")->as_bool();
    if (enabled) {
      // eksctl's default: both built-in pools.
      std::vector<std::string> pools{"general-purpose", "system"};
      if (auto list = a.get("nodePools")) {
        pools = string_list(*list);
        for (const std::string& p : pools)
          if (p != "general-purpose" && p != "system")
            list->fail(
                fmt::format("unknown built-in NodePool \"{}\"; expected general-purpose "
                            "or system",
                            p.substr(0, 40)));
      }
      spec.auto_mode_node_pools = std::move(pools);
      spec.auto_mode_where = auto_mode->where();
    }
    a.check_unread(ctx.warnings, ctx.kind, api::AutoModeConfig);
  }
  std::vector<std::string> cluster_zones;
  SourceLocation cluster_zones_where;
  if (auto zones = manifest.get("availabilityZones")) {
    cluster_zones = string_list(*zones);
    cluster_zones_where = zones->where();
  }
  if (auto md = manifest.get("metadata")) {
    YamlMap meta(*md);
    meta.require("name");
    meta.check_unread(ctx.warnings, ctx.kind,
                      api::ClusterMeta);  // region, version, tags: the scenario has its own
  }
  for (auto [key, managed] : {std::pair{"managedNodeGroups", true}, {"nodeGroups", false}}) {
    if (auto groups = manifest.get(key)) {
      for (const YamlValue& item : groups->items())
        spec.groups.push_back(decode_group(item, managed, cluster_zones, cluster_zones_where, ctx));
    }
  }
  return spec;
}

void check_node_groups(std::vector<NodeGroup>& groups, const Catalog& catalog) {
  std::vector<std::string_view> type_names;
  for (const InstanceType& t : catalog.types()) type_names.push_back(t.name);
  const std::vector<std::string> catalog_zones = catalog.zones();
  for (std::size_t i = 0; i < groups.size(); ++i) {
    NodeGroup& g = groups[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (groups[j].name == g.name) {
        throw ConfigError(g.where, "name",
                          fmt::format("a second node group named \"{}\" (the first is at {})",
                                      g.name, groups[j].where.to_string()));
      }
    }
    for (const std::string& zone : g.zones) {
      if (std::find(catalog_zones.begin(), catalog_zones.end(), zone) == catalog_zones.end()) {
        throw ConfigError(g.zones_where, "availabilityZones",
                          fmt::format("zone \"{}\" is not in the catalog (zones: {})",
                                      zone.substr(0, 40), fmt::join(catalog_zones, ", ")));
      }
    }
    std::vector<CapacityType> wanted;
    if (g.on_demand_base > 0 || g.on_demand_percentage_above_base > 0)
      wanted.push_back(CapacityType::OnDemand);
    if (g.on_demand_percentage_above_base < 100) wanted.push_back(CapacityType::Spot);
    std::vector<std::string> zones_sold;
    for (std::size_t k = 0; k < g.instance_types.size(); ++k) {
      const std::string& name = g.instance_types[k];
      const InstanceType* type = catalog.find(name);
      if (type == nullptr) {
        const std::string hint = name == "mixed"
                                     ? std::string("; \"mixed\" needs instancesDistribution")
                                     : did_you_mean(name, type_names);
        throw ConfigError(
            g.instance_type_where[k], "instanceType",
            fmt::format("instance type \"{}\" is not in the catalog{}", name.substr(0, 60), hint));
      }
      for (CapacityType ct : wanted) {
        const bool sold =
            std::any_of(type->offerings.begin(), type->offerings.end(), [&](const Offering& o) {
              return o.capacity_type == ct &&
                     (g.zones.empty() ||
                      std::find(g.zones.begin(), g.zones.end(), o.zone) != g.zones.end());
            });
        if (!sold) {
          throw ConfigError(g.instance_type_where[k], "instanceType",
                            fmt::format("{} has no {} offering in node group {}'s zones", name,
                                        to_string(ct), g.name));
        }
      }
      for (const Offering& o : type->offerings)
        if (std::find(zones_sold.begin(), zones_sold.end(), o.zone) == zones_sold.end())
          zones_sold.push_back(o.zone);
    }
    if (g.zones.empty()) {
      std::sort(zones_sold.begin(), zones_sold.end());
      g.zones = std::move(zones_sold);
    }
  }
}

}  // namespace fleetsim
