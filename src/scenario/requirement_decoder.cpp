#include "fleetsim/scenario/requirement_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 8> kOperatorNames{"In", "NotIn", "Exists", "DoesNotExist",
                                                         "Gt", "Lt",    "Gte",    "Lte"};

// karpenter.sh/capacity-type values Karpenter knows (WellKnownValuesForRequirements).
constexpr std::array<std::string_view, 3> kCapacityTypes{"on-demand", "spot", "reserved"};

std::string_view label_domain(std::string_view key) {
  auto slash = key.find('/');
  return slash == std::string_view::npos ? std::string_view{} : key.substr(0, slash);
}

bool domain_ends_with(std::string_view domain, std::string_view suffix) {
  return domain.ends_with(suffix);
}

bool is_integer(std::string_view v, bool allow_negative) {
  std::int64_t n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  return ec == std::errc() && ptr == v.data() + v.size() && (allow_negative || n >= 0);
}

void decode_one(const YamlValue& item, RequirementSource source, DecodeContext& ctx,
                Requirements& into) {
  YamlMap m(item);
  YamlValue key_value = m.require("key");
  std::string key = normalize_label_key(key_value.as_string());
  if (auto p = label_key_problem(key)) key_value.fail(*p);
  if (source == RequirementSource::NodePool) {
    if (auto p = nodepool_label_restriction(key)) key_value.fail(*p);
  }
  if (source == RequirementSource::NodeOverlay) {
    if (auto p = overlay_label_restriction(key)) key_value.fail(*p);
  }
  const bool karpenter_rules = source != RequirementSource::Pod;

  YamlValue op_value = m.require("operator");
  std::string op_text = op_value.as_string();
  std::optional<Operator> op = parse_operator(op_text);
  if (!op) {
    op_value.fail(fmt::format("unknown operator \"{}\"{}", op_text.substr(0, 40),
                              did_you_mean(op_text, kOperatorNames)));
  }
  bool karpenter_only = *op == Operator::Gte || *op == Operator::Lte;
  if (source == RequirementSource::Pod && karpenter_only) {
    op_value.fail(
        fmt::format("operator {} is only valid in NodePool requirements; pods use In, "
                    "NotIn, Exists, DoesNotExist, Gt or Lt",
                    op_text));
  }

  std::vector<std::string> values;
  std::optional<YamlValue> values_node = m.get("values");
  if (values_node) {
    for (const YamlValue& v : values_node->items()) {
      std::string text = v.as_string();
      // Karpenter checks In/NotIn values as label values; numeric operators get their own check.
      bool label_values = *op == Operator::In || *op == Operator::NotIn;
      if (karpenter_rules && label_values) {
        if (auto p = label_value_problem(text)) v.fail(*p);
      }
      values.push_back(std::move(text));
    }
  }
  const YamlValue& values_where = values_node ? *values_node : op_value;
  switch (*op) {
    case Operator::In:
    case Operator::NotIn:
      // Kubernetes requires values for both; Karpenter's NodePool CRD only for In.
      if (values.empty() && (*op == Operator::In || source != RequirementSource::NodePool)) {
        values_where.fail(fmt::format("operator {} needs at least one value", op_text));
      }
      break;
    case Operator::Exists:
    case Operator::DoesNotExist:
      if (!values.empty()) values_where.fail(fmt::format("operator {} takes no values", op_text));
      break;
    case Operator::Gt:
    case Operator::Lt:
    case Operator::Gte:
    case Operator::Lte: {
      bool allow_negative = source == RequirementSource::Pod;
      if (values.size() != 1 || !is_integer(values[0], allow_negative)) {
        values_where.fail(fmt::format("operator {} needs exactly one {}integer value", op_text,
                                      allow_negative ? "" : "non-negative "));
      }
      break;
    }
  }
  if (karpenter_rules && key == label::kCapacityType &&
      (*op == Operator::In || *op == Operator::NotIn)) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (std::find(kCapacityTypes.begin(), kCapacityTypes.end(), values[i]) ==
          kCapacityTypes.end()) {
        values_node->items()[i].fail(
            fmt::format("unknown capacity type \"{}\"; expected on-demand, "
                        "spot or reserved{}",
                        values[i].substr(0, 40), did_you_mean(values[i], kCapacityTypes)));
      }
    }
  }

  std::optional<int> min_values;
  if (source == RequirementSource::NodePool) {
    if (auto mv = m.get("minValues")) {
      min_values = static_cast<int>(mv->as_int(kMinMinValues, kMaxMinValues));
      if (*op == Operator::In && values.size() < static_cast<std::size_t>(*min_values)) {
        mv->fail(fmt::format("minValues {} needs at least {} values, found {}", *min_values,
                             *min_values, values.size()));
      }
    }
  }
  m.check_unread(ctx.warnings, ctx.kind,
                 source == RequirementSource::NodePool ? api::NodeSelectorRequirementWithMinValues
                                                       : api::NodeSelectorRequirement);

  Requirement r = Requirement::make(*op, std::move(values));
  r.set_min_values(min_values);
  into.add(key, r);
}

}  // namespace

std::string normalize_label_key(std::string_view key) {
  // Karpenter core NormalizedLabels plus the AWS provider's EBS CSI zone label.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kAliases{{
      {"failure-domain.beta.kubernetes.io/zone", label::kZone},
      {"failure-domain.beta.kubernetes.io/region", label::kRegion},
      {"beta.kubernetes.io/arch", label::kArch},
      {"beta.kubernetes.io/os", label::kOs},
      {"beta.kubernetes.io/instance-type", label::kInstanceType},
      {"topology.ebs.csi.aws.com/zone", label::kZone},
  }};
  for (auto [alias, name] : kAliases)
    if (key == alias) return std::string(name);
  return std::string(key);
}

std::optional<std::string> overlay_label_restriction(std::string_view key) {
  // IsRestrictedLabel: well-known labels pass, then the karpenter.sh domain and hostname fail.
  if (key == label::kNodePool || key == label::kCapacityType) return std::nullopt;
  const std::string_view domain = label_domain(key);
  if (domain == "karpenter.sh" || domain_ends_with(domain, ".karpenter.sh"))
    return std::string("label domain \"karpenter.sh\" is restricted");
  if (key == label::kHostname) return fmt::format("label \"{}\" is restricted", key);
  return std::nullopt;
}

std::optional<std::string> nodepool_label_restriction(std::string_view key) {
  if (key == label::kNodePool || key == label::kHostname) {
    return fmt::format("label \"{}\" is restricted", key);
  }
  // Karpenter's WellKnownLabels belong to restricted domains but are allowed.
  static constexpr std::array<std::string_view, 7> kWellKnown{label::kZone,
                                                              label::kRegion,
                                                              label::kInstanceType,
                                                              label::kArch,
                                                              label::kOs,
                                                              label::kCapacityType,
                                                              "node.kubernetes.io/windows-build"};
  for (auto k : kWellKnown)
    if (k == key) return std::nullopt;
  std::string_view domain = label_domain(key);
  // Sub-domains Karpenter exempts (LabelDomainExceptions, KubeletSelfSetSuffixesAllowed).
  static constexpr std::array<std::string_view, 4> kExceptions{
      "node-role.kubernetes.io", "kops.k8s.io", "node-restriction.kubernetes.io",
      "node.kubernetes.io"};
  for (auto e : kExceptions)
    if (domain_ends_with(domain, e)) return std::nullopt;
  // RestrictedLabelDomains of Karpenter core, plus karpenter.k8s.aws from the AWS provider,
  // whose own instance labels are well known.
  static constexpr std::array<std::string_view, 3> kRestricted{"kubernetes.io", "k8s.io",
                                                               "karpenter.sh"};
  for (auto r : kRestricted) {
    if (domain_ends_with(domain, r)) return fmt::format("label domain \"{}\" is restricted", r);
  }
  if (domain_ends_with(domain, "karpenter.k8s.aws") && !is_well_known_label(key)) {
    return std::string("label domain \"karpenter.k8s.aws\" is restricted");
  }
  return std::nullopt;
}

void decode_requirements(const YamlValue& list, RequirementSource source, DecodeContext& ctx,
                         Requirements& into) {
  std::vector<YamlValue> items = list.items();
  if (source != RequirementSource::Pod && items.size() > kMaxNodePoolRequirements) {
    list.fail(fmt::format("at most {} requirements are allowed, found {}", kMaxNodePoolRequirements,
                          items.size()));
  }
  for (const YamlValue& item : items) decode_one(item, source, ctx, into);
}

}  // namespace fleetsim
