// The Cluster Autoscaler's flags fleetsim reads past: a `cluster_autoscaler:` key naming one is
// accepted with a warning rather than refused as unknown, since the user copied a real flag.
#pragma once

#include <span>
#include <string_view>

namespace fleetsim {

// Upstream's flag names (cluster-autoscaler/config/flags/flags.go) with '-' as '_', less the
// ones decode_cluster_autoscaler models; sorted.
std::span<const std::string_view> unmodelled_cluster_autoscaler_flags();

}  // namespace fleetsim
