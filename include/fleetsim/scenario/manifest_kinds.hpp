// The manifest kinds fleetsim decodes, the apiVersion each is read at, and what to tell a user
// whose manifest names another version or misspells a kind.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/scenario/api_fields.hpp"

namespace fleetsim {

struct DecodedKind {
  std::string_view kind;
  std::string_view api_version;
  const ApiType* fields;  // the top-level fields of a manifest of this kind
};

// The kind fleetsim decodes under this name, or null.
const DecodedKind* decoded_kind(std::string_view kind);

// Why `api_version` cannot be read for a decoded kind: the version fleetsim reads, and the
// migration when the version is a retired one (karpenter.sh/v1beta1, autoscaling/v2beta2, …).
std::string api_version_problem(const DecodedKind& kind, std::string_view api_version);

// The decoded kind that `kind` (not decoded itself) is a typo of, when it is within two edits of
// one in the same API group and is no real kind of its own (Node is not a typo of Pod); or a
// retired kind's successor (Provisioner → NodePool). nullopt for any other kind, which is only
// warned about.
std::optional<std::string> misspelt_kind_problem(std::string_view kind,
                                                 std::string_view api_version);

}  // namespace fleetsim
