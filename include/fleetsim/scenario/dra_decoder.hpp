// Decoding of Dynamic Resource Allocation manifests (resource.k8s.io/v1 DeviceClass,
// ResourceClaim and ResourceClaimTemplate; v1beta2 alike, v1beta1 with a request's fields on the
// request itself) and the CEL subset their selectors are read in.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/k8s/dra.hpp"
#include "fleetsim/scenario/decode_context.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// The API versions of resource.k8s.io a DRA kind is read at; nullopt for any other.
enum class DraApiVersion : std::uint8_t { V1, V1beta2, V1beta1 };
std::optional<DraApiVersion> dra_api_version(std::string_view api_version);
// Whether `kind` is one of the three DRA kinds.
bool is_dra_kind(std::string_view kind);

struct DeviceClassObject {
  std::string name;
  DraMatch match;
  SourceLocation where;
};

// A ResourceClaim or a ResourceClaimTemplate's claim spec, before its requests' classes are
// resolved (each request's `match` holds only its own selectors).
struct ResourceClaimObject {
  std::string name;
  std::string namespace_name = "default";
  bool is_template = false;
  std::vector<DraRequest> requests;
  std::vector<SourceLocation> class_where;  // beside requests: where deviceClassName is
  SourceLocation where;
};

// One CEL expression in fleetsim's subset: `&&` of `device.driver == "x"` and
// `device.attributes["<domain>"].<type|productName|profile> == "x"` (either quote). nullopt when
// the expression has anything else.
std::optional<DraMatch> parse_cel_selector(std::string_view expression);

// A selectors list ({cel: {expression}}): the conjunction of the expressions fleetsim reads; any
// other gets a dra-not-modelled warning and is left out (it matches every device).
DraMatch decode_dra_selectors(const YamlValue& list, DecodeContext& ctx);

DeviceClassObject decode_device_class(const YamlMap& manifest, DecodeContext& ctx);
ResourceClaimObject decode_resource_claim(const YamlMap& manifest, DraApiVersion version,
                                          bool is_template, DecodeContext& ctx);

// The DeviceClasses the NVIDIA DRA driver's Helm chart installs (gpu.nvidia.com, mig.nvidia.com),
// with its selectors.
std::vector<DeviceClassObject> nvidia_device_classes();

}  // namespace fleetsim
