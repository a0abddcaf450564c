// The manifest kinds and fields that cannot change a simulated number: fleetsim accepts them
// without a warning. Every other field it does not model warns once (WarningLog).
#pragma once

#include <span>
#include <string_view>

namespace fleetsim {

struct InertField {
  // "Kind.path" as warnings name fields ("EC2NodeClass.spec.role"), a kind alone ("ConfigMap"),
  // or "pod:path" for a path under any pod spec (a Pod's spec, or the pod template's spec of a
  // Deployment, Job or DaemonSet: "pod:containers[].env").
  std::string_view field;
  std::string_view why;
};

// The list, in the order README documents it.
std::span<const InertField> inert_fields();

// Whether a warning about `field` ("Kind.path" or a kind) is about an inert field.
bool is_inert(std::string_view field);

}  // namespace fleetsim
