// What every manifest decoder shares: the scenario's resource registry, its warning log, and the
// kind being decoded (the prefix of warning fields).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/karpenter_version.hpp"
#include "fleetsim/scenario/warning_log.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// The taint effects Kubernetes accepts (for NodePools' taints and pods' tolerations).
inline constexpr std::array<std::string_view, 3> kTaintEffects{"NoSchedule", "PreferNoSchedule",
                                                               "NoExecute"};

struct DecodeContext {
  ResourceRegistry& resources;
  WarningLog& warnings;
  std::string kind;            // "Deployment", "NodePool", …
  KarpenterVersion karpenter;  // the scenario's `karpenter.version`: what its API accepts

  // One "not modelled; ignored" warning for the field at `v`, keyed "<kind>.<path>".
  void warn_unmodelled(const YamlValue& v) const {
    warnings.add_unmodelled(v.where(), kind + "." + strip_indices(v.local_path()),
                            std::string(kNotModelled));
  }
  // A warning about the field at `v`, with list indices stripped so it is reported once.
  void warn(WarningCode code, const YamlValue& v, std::string message) const {
    warnings.add(code, v.where(), kind + "." + strip_indices(v.local_path()), std::move(message));
  }
};

}  // namespace fleetsim
