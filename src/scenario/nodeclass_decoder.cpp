#include "fleetsim/scenario/nodeclass_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "fleetsim/scenario/bottlerocket_user_data.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"
#include "fleetsim/scenario/reservation_decoder.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::pair<std::string_view, EbsVolumeType>, 7> kVolumeTypes{{
    {"gp2", EbsVolumeType::gp2},
    {"gp3", EbsVolumeType::gp3},
    {"io1", EbsVolumeType::io1},
    {"io2", EbsVolumeType::io2},
    {"st1", EbsVolumeType::st1},
    {"sc1", EbsVolumeType::sc1},
    {"standard", EbsVolumeType::standard},
}};

BlockDevice decode_block_device(const YamlValue& item, DecodeContext& ctx) {
  YamlMap m(item);
  BlockDevice d;
  if (auto name = m.get("deviceName")) d.device_name = name->as_string();
  if (auto ebs_value = m.get("ebs")) {
    YamlMap ebs(*ebs_value);
    if (auto size = ebs.get("volumeSize")) {
      d.size_bytes = size->as_quantity().value_ceil();
      if (d.size_bytes <= 0 || d.size_bytes > kMaxEbsVolumeBytes) {
        size->fail("volumeSize must be more than 0 and at most 64Ti");
      }
    }
    if (auto type = ebs.get("volumeType")) d.type = parse_volume_type(*type);
    if (auto iops = ebs.get("iops")) d.iops = iops->as_int(0, kMaxEbsIops);
    if (auto throughput = ebs.get("throughput"))
      d.throughput_mibps = throughput->as_int(0, kMaxEbsThroughputMibps);
    // Volumes are billed while their node runs; one kept after termination is not.
    if (auto keep = ebs.get("deleteOnTermination"); keep && !keep->as_bool()) {
      ctx.warn(WarningCode::VolumeKept, *keep,
               "a volume kept after its node ends is not billed after that");
    }
    ebs.check_unread(ctx.warnings, ctx.kind, api::BlockDevice);
  }
  m.check_unread(ctx.warnings, ctx.kind, api::BlockDeviceMapping);
  return d;
}

// FNV-1a over a YAML tree with map keys sorted: the same spec hashes the same however it is laid
// out.
void hash_yaml(const YAML::Node& node, std::uint64_t& h) {
  auto mix = [&](std::string_view s) {
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 0x100000001b3ULL;
    }
    h ^= 0xff;
    h *= 0x100000001b3ULL;
  };
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      mix("s");
      mix(node.Scalar());
      break;
    case YAML::NodeType::Sequence:
      mix("[");
      for (const YAML::Node& item : node) hash_yaml(item, h);
      mix("]");
      break;
    case YAML::NodeType::Map: {
      // Sorted through indices: assigning a YAML::Node (as sorting would) rewrites the tree.
      std::vector<std::string> keys;
      std::vector<YAML::Node> values;
      for (const auto& kv : node) {
        keys.push_back(kv.first.Scalar());
        values.emplace_back(kv.second);
      }
      std::vector<std::size_t> order(keys.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(),
                [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
      mix("{");
      for (std::size_t i : order) {
        mix(keys[i]);
        hash_yaml(values[i], h);
      }
      mix("}");
      break;
    }
    default:
      mix("~");
  }
}

}  // namespace

EbsVolumeType parse_volume_type(const YamlValue& v) {
  std::string text = v.as_string();
  for (auto [name, type] : kVolumeTypes)
    if (name == text) return type;
  std::array<std::string_view, kVolumeTypes.size()> names;
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kVolumeTypes[i].first;
  v.fail(
      fmt::format("unknown volumeType \"{}\"; expected gp2, gp3, io1, io2, st1, sc1 or standard{}",
                  text.substr(0, 40), did_you_mean(text, names)));
}

EC2NodeClass decode_node_class(const YamlMap& manifest, DecodeContext& ctx) {
  EC2NodeClass nc;
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  nc.name = meta.name;
  nc.where = meta.where;
  const YamlValue spec_value = manifest.require("spec");
  nc.spec_hash = 0xcbf29ce484222325ULL;
  hash_yaml(spec_value.node(), nc.spec_hash);
  YamlMap spec(spec_value);
  if (auto mappings = spec.get("blockDeviceMappings")) {
    for (const YamlValue& item : mappings->items())
      nc.block_devices.push_back(decode_block_device(item, ctx));
  }
  if (auto kubelet_value = spec.get("kubelet")) {
    YamlMap kubelet(*kubelet_value);
    if (auto max_pods = kubelet.get("maxPods")) {
      nc.max_pods = max_pods->as_int(0, std::numeric_limits<std::int32_t>::max());
    }
    kubelet.check_unread(ctx.warnings, ctx.kind, api::KubeletConfiguration);
  }
  // Resolved against the scenario's `reservations:` once every manifest is read.
  if (auto terms = spec.get("capacityReservationSelectorTerms"))
    nc.capacity_reservation_terms = decode_capacity_reservation_terms(*terms);
  // Bottlerocket's userData is TOML settings; its NVIDIA device plugin's MIG partitioning is the
  // nodes' MIG layout (nvidia-migmanager). Another AMI's userData is a boot script: not read.
  if (is_bottlerocket_node_class(spec)) {
    if (auto user_data = spec.get("userData"))
      nc.bottlerocket_mig = decode_bottlerocket_user_data(*user_data, ctx);
  }
  if (auto subnets = spec.get("subnetSelectorTerms")) {
    ctx.warn(WarningCode::SubnetsNotResolved, *subnets,
             "subnets are not resolved to zones: nodes launch in every zone the NodePool allows "
             "(a topology.kubernetes.io/zone requirement narrows them); a change in a scripted "
             "apply drifts the nodes");
  }
  // Everything else shapes how a node boots; a change in a scripted apply still drifts the nodes
  // (spec_hash). The fields that cannot change a number (role, amiSelectorTerms, tags, …) are
  // accepted silently (inert_fields.cpp); the rest (subnetSelectorTerms, which fleetsim does not
  // resolve to zones, amiFamily, userData, …) warn.
  spec.check_unread(ctx.warnings, ctx.kind, api::EC2NodeClassSpec,
                    "not modelled, except that changing it in a scripted apply drifts the nodes");
  return nc;
}

EC2NodeClass decode_auto_mode_node_class(const YamlMap& manifest, DecodeContext& ctx) {
  EC2NodeClass nc;
  nc.auto_mode = true;
  ObjectMeta meta = decode_object_meta(manifest, ctx, NameRule::Required);
  nc.name = meta.name;
  nc.where = meta.where;
  const YamlValue spec_value = manifest.require("spec");
  nc.spec_hash = 0xcbf29ce484222325ULL;
  hash_yaml(spec_value.node(), nc.spec_hash);
  nc.block_devices = {auto_mode_root_volume()};
  YamlMap spec(spec_value);
  if (auto storage_value = spec.get("ephemeralStorage")) {
    YamlMap storage(*storage_value);
    BlockDevice& root = nc.block_devices.front();
    if (auto size = storage.get("size")) {
      const std::int64_t bytes = size->as_quantity().value_ceil();
      if (bytes <= 0 || bytes > kMaxEbsVolumeBytes)
        size->fail("the size is above 0 and at most 64Ti");
      root.size_bytes = bytes;
    }
    if (auto iops = storage.get("iops")) root.iops = iops->as_int(3000, 16000);
    if (auto throughput = storage.get("throughput"))
      root.throughput_mibps = throughput->as_int(125, 1000);
    storage.check_unread(ctx.warnings, ctx.kind, api::AutoModeEphemeralStorage);
  }
  spec.check_unread(ctx.warnings, ctx.kind, api::AutoModeNodeClassSpec,
                    "not modelled, except that changing it in a scripted apply drifts the nodes");
  return nc;
}

BlockDevice auto_mode_root_volume() {
  return BlockDevice{
      .device_name = "/dev/xvda", .size_bytes = std::int64_t{80} << 30, .type = EbsVolumeType::gp3};
}

}  // namespace fleetsim
