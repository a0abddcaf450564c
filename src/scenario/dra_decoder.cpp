#include "fleetsim/scenario/dra_decoder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

#include "fleetsim/scenario/api_fields.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/scenario/object_meta.hpp"

namespace fleetsim {

namespace {

// The fields of resource.k8s.io/v1's types (kubernetes/api resource/v1/types.go), by hand: the
// generated table in api_fields_data.cpp predates DRA's GA.
constexpr std::array<std::string_view, 4> kDraDeviceClassFields{"apiVersion", "kind", "metadata",
                                                                "spec"};
constexpr std::array<std::string_view, 3> kDraDeviceClassSpecFields{
    "config", "extendedResourceName", "selectors"};
constexpr std::array<std::string_view, 1> kDraDeviceSelectorFields{"cel"};
constexpr std::array<std::string_view, 1> kDraCelSelectorFields{"expression"};
constexpr std::array<std::string_view, 5> kDraResourceClaimFields{"apiVersion", "kind", "metadata",
                                                                  "spec", "status"};
constexpr std::array<std::string_view, 2> kDraClaimTemplateSpecFields{"metadata", "spec"};
constexpr std::array<std::string_view, 1> kDraResourceClaimSpecFields{"devices"};
constexpr std::array<std::string_view, 3> kDraDeviceClaimFields{"config", "constraints",
                                                                "requests"};
constexpr std::array<std::string_view, 3> kDraDeviceRequestFields{"exactly", "firstAvailable",
                                                                  "name"};
constexpr std::array<std::string_view, 7> kDraExactRequestFields{
    "adminAccess",     "allocationMode", "capacity",   "count",
    "deviceClassName", "selectors",      "tolerations"};
// v1beta1's DeviceRequest: ExactDeviceRequest's fields on the request, beside firstAvailable.
constexpr std::array<std::string_view, 9> kDraV1beta1RequestFields{
    "adminAccess",    "allocationMode", "capacity",  "count",      "deviceClassName",
    "firstAvailable", "name",           "selectors", "tolerations"};

const ApiType kDraDeviceClass{"DeviceClass", kDraDeviceClassFields};
const ApiType kDraDeviceClassSpec{"DeviceClassSpec", kDraDeviceClassSpecFields};
const ApiType kDraDeviceSelector{"DeviceSelector", kDraDeviceSelectorFields};
const ApiType kDraCelSelector{"CELDeviceSelector", kDraCelSelectorFields};
const ApiType kDraResourceClaim{"ResourceClaim", kDraResourceClaimFields};
const ApiType kDraClaimTemplate{"ResourceClaimTemplate", kDraDeviceClassFields};
const ApiType kDraClaimTemplateSpec{"ResourceClaimTemplateSpec", kDraClaimTemplateSpecFields};
const ApiType kDraResourceClaimSpec{"ResourceClaimSpec", kDraResourceClaimSpecFields};
const ApiType kDraDeviceClaim{"DeviceClaim", kDraDeviceClaimFields};
const ApiType kDraDeviceRequest{"DeviceRequest", kDraDeviceRequestFields};
const ApiType kDraExactRequest{"ExactDeviceRequest", kDraExactRequestFields};
const ApiType kDraV1beta1Request{"DeviceRequest", kDraV1beta1RequestFields};

constexpr std::array<std::string_view, 2> kDraAllocationModes{"ExactCount", "All"};
// resource.k8s.io's limit on a request's count (AllocationResultsMaxSize).
constexpr std::int64_t kDraMaxCount = 32;

// A scanner over one CEL expression of the subset.
class CelScanner {
 public:
  explicit CelScanner(std::string_view text) : text_(text) {}
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool done() {
    skip_space();
    return pos_ == text_.size();
  }
  bool take(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  std::optional<std::string> string_literal() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) return std::nullopt;
    const char quote = text_[pos_];
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(text_.substr(pos_ + 1, end - pos_ - 1));
    if (out.find('\\') != std::string::npos) return std::nullopt;  // escapes: not in the subset
    pos_ = end + 1;
    return out;
  }
  std::optional<std::string> identifier() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) != 0 || text_[pos_] == '_'))
      ++pos_;
    if (pos_ == start) return std::nullopt;
    return std::string(text_.substr(start, pos_ - start));
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// One `lhs == "value"` term into `out`; false when it is not in the subset.
bool parse_cel_term(CelScanner& s, DraMatch& out) {
  if (!s.take("device.")) return false;
  std::string* field = nullptr;
  if (s.take("driver")) {
    field = &out.driver;
  } else if (s.take("attributes[")) {
    if (!s.string_literal() || !s.take("]")) return false;
    std::optional<std::string> name;
    if (s.take(".")) {
      name = s.identifier();
    } else if (s.take("[")) {
      name = s.string_literal();
      if (!s.take("]")) return false;
    }
    if (!name) return false;
    if (*name == "type") {
      field = &out.type;
    } else if (*name == "productName") {
      field = &out.product_name;
    } else if (*name == "profile") {
      field = &out.profile;
    } else {
      return false;
    }
  } else {
    return false;
  }
  if (!s.take("==")) return false;
  std::optional<std::string> value = s.string_literal();
  if (!value) return false;
  DraMatch term;
  term.driver = field == &out.driver ? *value : std::string();
  term.type = field == &out.type ? *value : std::string();
  term.product_name = field == &out.product_name ? *value : std::string();
  term.profile = field == &out.profile ? *value : std::string();
  out.add(term);
  return true;
}

DraRequest decode_exact_request(const YamlMap& r, DraRequest out, SourceLocation& class_where,
                                DecodeContext& ctx) {
  YamlValue cls = r.require("deviceClassName");
  out.device_class = cls.as_string();
  class_where = cls.where();
  if (auto selectors = r.get("selectors")) out.match = decode_dra_selectors(*selectors, ctx);
  bool all = false;
  if (auto mode = r.get("allocationMode")) {
    const std::string text = mode->as_string();
    if (text == "All") {
      all = true;
    } else if (text != "ExactCount") {
      mode->fail(fmt::format("unknown allocationMode \"{}\"; expected ExactCount or All{}",
                             text.substr(0, 40), did_you_mean(text, kDraAllocationModes)));
    }
  }
  out.all = all;
  if (auto count = r.get("count")) {
    if (all) count->fail("count is only allowed with allocationMode ExactCount");
    const std::int64_t n = count->as_int(std::numeric_limits<std::int64_t>::min(),
                                         std::numeric_limits<std::int64_t>::max());
    if (n <= 0) count->fail(fmt::format("count must be at least 1, not {}", n));
    if (n > kDraMaxCount)
      count->fail(fmt::format("count must be at most {} (resource.k8s.io's limit)", kDraMaxCount));
    out.count = n;
  }
  if (auto admin = r.get("adminAccess"); admin && admin->as_bool())
    ctx.warn(WarningCode::DraNotModelled, *admin,
             "adminAccess is not modelled: the request is allocated devices as an ordinary "
             "request would be, not given access to devices already in use");
  for (std::string_view key : {"tolerations", "capacity"})
    if (auto v = r.get(key))
      ctx.warn(WarningCode::DraNotModelled, *v,
               fmt::format("a request's {} is not modelled (device taints and consumable "
                           "capacity are not published); ignored",
                           key));
  return out;
}

}  // namespace

std::optional<DraApiVersion> dra_api_version(std::string_view api_version) {
  if (api_version == "resource.k8s.io/v1") return DraApiVersion::V1;
  if (api_version == "resource.k8s.io/v1beta2") return DraApiVersion::V1beta2;
  if (api_version == "resource.k8s.io/v1beta1") return DraApiVersion::V1beta1;
  return std::nullopt;
}

bool is_dra_kind(std::string_view kind) {
  return kind == "DeviceClass" || kind == "ResourceClaim" || kind == "ResourceClaimTemplate";
}

std::optional<DraMatch> parse_cel_selector(std::string_view expression) {
  CelScanner s(expression);
  DraMatch out;
  do {
    if (!parse_cel_term(s, out)) return std::nullopt;
  } while (s.take("&&"));
  if (!s.done()) return std::nullopt;
  return out;
}

DraMatch decode_dra_selectors(const YamlValue& list, DecodeContext& ctx) {
  DraMatch out;
  for (const YamlValue& item : list.items()) {
    YamlMap sel(item);
    YamlMap cel(sel.require("cel"));
    YamlValue expr = cel.require("expression");
    const std::string text = expr.as_string();
    if (std::optional<DraMatch> m = parse_cel_selector(text)) {
      out.add(*m);
    } else {
      ctx.warn(WarningCode::DraNotModelled, expr,
               fmt::format("CEL selector \"{}\" is beyond what fleetsim reads (&& of "
                           "device.driver == \"…\" and device.attributes[\"…\"].type, "
                           ".productName or .profile == \"…\"); it is ignored, so it matches "
                           "every device",
                           text.substr(0, 120)));
    }
    cel.check_unread(ctx.warnings, ctx.kind, kDraCelSelector);
    sel.check_unread(ctx.warnings, ctx.kind, kDraDeviceSelector);
  }
  return out;
}

DeviceClassObject decode_device_class(const YamlMap& m, DecodeContext& ctx) {
  const ObjectMeta meta = decode_object_meta(m, ctx, NameRule::Required);
  DeviceClassObject out{.name = meta.name, .where = meta.where};
  if (auto spec_value = m.get("spec")) {
    YamlMap spec(*spec_value);
    if (auto selectors = spec.get("selectors")) out.match = decode_dra_selectors(*selectors, ctx);
    if (auto v = spec.get("extendedResourceName"))
      ctx.warn(WarningCode::DraNotModelled, *v,
               "extendedResourceName (DRA serving extended-resource requests) is not modelled; "
               "pods asking for that resource use the device plugin's");
    spec.check_unread(ctx.warnings, ctx.kind, kDraDeviceClassSpec);
  }
  m.check_unread(ctx.warnings, ctx.kind, kDraDeviceClass);
  return out;
}

ResourceClaimObject decode_resource_claim(const YamlMap& m, DraApiVersion version, bool is_template,
                                          DecodeContext& ctx) {
  const ObjectMeta meta = decode_object_meta(m, ctx, NameRule::Required);
  ResourceClaimObject out{.name = meta.name,
                          .namespace_name = meta.namespace_name,
                          .is_template = is_template,
                          .where = meta.where};
  m.ignore({"status"});
  YamlValue spec_value = m.require("spec");
  std::optional<YamlMap> tmpl;
  YamlValue claim_spec = spec_value;
  if (is_template) {
    tmpl.emplace(spec_value);
    tmpl->ignore({"metadata"});  // the claim's labels and annotations: no effect here
    claim_spec = tmpl->require("spec");
  }
  YamlMap spec(claim_spec);
  YamlMap devices(spec.require("devices"));
  YamlValue requests = devices.require("requests");
  std::vector<std::string> names;
  for (const YamlValue& item : requests.items()) {
    YamlMap r(item);
    YamlValue name = r.require("name");
    DraRequest req{.name = name.as_string()};
    if (std::find(names.begin(), names.end(), req.name) != names.end())
      name.fail(fmt::format("a second request named \"{}\" in the claim", req.name));
    names.push_back(req.name);
    SourceLocation class_where;
    if (auto first = r.get("firstAvailable")) {
      // Prioritized alternatives: the scheduler takes the first subrequest that can be
      // allocated; fleetsim takes the first always.
      if (r.contains("exactly") || r.contains("deviceClassName"))
        first->fail("a request has either firstAvailable or exactly (deviceClassName), not both");
      const std::vector<YamlValue> subs = first->items();
      if (subs.empty()) first->fail("firstAvailable needs at least one subrequest");
      ctx.warn(WarningCode::DraNotModelled, *first,
               "firstAvailable is not modelled beyond its first subrequest: the request always "
               "asks for that one, never the alternatives after it");
      YamlMap sub(subs.front());
      sub.require("name");
      req = decode_exact_request(sub, std::move(req), class_where, ctx);
      sub.check_unread(ctx.warnings, ctx.kind, kDraExactRequest);
      r.check_unread(ctx.warnings, ctx.kind, kDraDeviceRequest);
    } else if (version == DraApiVersion::V1beta1) {
      req = decode_exact_request(r, std::move(req), class_where, ctx);
      r.check_unread(ctx.warnings, ctx.kind, kDraV1beta1Request);
    } else {
      if (r.contains("deviceClassName"))
        r.require("deviceClassName")
            .fail(
                "in resource.k8s.io/v1 (and v1beta2) a request's deviceClassName goes under "
                "`exactly:` (v1beta1 had it on the request)");
      YamlMap exactly(r.require("exactly"));
      req = decode_exact_request(exactly, std::move(req), class_where, ctx);
      exactly.check_unread(ctx.warnings, ctx.kind, kDraExactRequest);
      r.check_unread(ctx.warnings, ctx.kind, kDraDeviceRequest);
    }
    out.requests.push_back(std::move(req));
    out.class_where.push_back(class_where);
  }
  if (out.requests.empty()) requests.fail("a claim needs at least one request");
  for (std::string_view key : {"constraints", "config"})
    if (auto v = devices.get(key))
      ctx.warn(WarningCode::DraNotModelled, *v,
               fmt::format("a claim's devices.{} is not modelled ({}); ignored", key,
                           key == "constraints" ? "matchAttribute across requests"
                                                : "opaque driver configuration, e.g. "
                                                  "time-slicing or MPS through DRA"));
  devices.check_unread(ctx.warnings, ctx.kind, kDraDeviceClaim);
  spec.check_unread(ctx.warnings, ctx.kind, kDraResourceClaimSpec);
  if (tmpl) tmpl->check_unread(ctx.warnings, ctx.kind, kDraClaimTemplateSpec);
  m.check_unread(ctx.warnings, ctx.kind, is_template ? kDraClaimTemplate : kDraResourceClaim);
  return out;
}

std::vector<DeviceClassObject> nvidia_device_classes() {
  // k8s-dra-driver-gpu's deployments/helm templates: device.driver == 'gpu.nvidia.com' &&
  // device.attributes['gpu.nvidia.com'].type == 'gpu' (and 'mig').
  std::vector<DeviceClassObject> out;
  for (std::string_view type : {"gpu", "mig"}) {
    DeviceClassObject c;
    c.name = type == "gpu" ? std::string(kNvidiaDraDriver) : std::string(kNvidiaMigDeviceClass);
    c.match.driver = kNvidiaDraDriver;
    c.match.type = type;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace fleetsim
