#include "fleetsim/scenario/warning_codes.hpp"

#include <array>

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 52> kNames{
    "unmodelled-field",
    "unmodelled-kind",
    "unknown-field",
    "deprecated-field",
    "unused-settings",
    "unused-nodepool",
    "unused-node-class",
    "unused-auto-mode-config",
    "missing-node-class",
    "no-nodepool",
    "pods-unhostable",
    "model-keeps-off-types",
    "best-effort-pods",
    "endless-job",
    "checkpoint-ignored",
    "do-not-disrupt-ignored",
    "topology-key-not-modelled",
    "affinity-term-without-selector",
    "namespace-labels",
    "subnets-not-resolved",
    "volume-kept",
    "spot-no-interruption-band",
    "keda-idle-replica-count",
    "auto-mode-expiry-capped",
    "auto-mode-spot-to-spot",
    "node-group-in-apply",
    "priority-expander-empty",
    "probe-never-passes",
    "spot-no-interruption-rate",
    "trace-rows-after-end",
    "ignored-trace-column",
    "priority-expander-unused",
    "priority-configmap-namespace",
    "unmodelled-autoscaler-flag",
    "model-assumed",
    "engine-note",
    "nominal-accelerator",
    "gpus-unused",
    "server-flag-not-read",
    "scheduler-plugin-not-modelled",
    "no-scheduler-profile",
    "node-overlay-gate-off",
    "node-overlay-conflict",
    "node-overlay-unused",
    "capacity-buffer-ignored",
    "shared-gpu-memory",
    "fluid-mode-not-applied",
    "pod-group-missing",
    "gang-exceeds-limits",
    "asg-tag-ignored",
    "dra-not-modelled",
    "dra-pods-ignored",
};
static_assert(kNames.size() == static_cast<std::size_t>(WarningCode::DraPodsIgnored) + 1);

}  // namespace

std::string_view to_string(WarningCode code) { return kNames[static_cast<std::size_t>(code)]; }

std::optional<WarningCode> parse_warning_code(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<WarningCode>(i);
  return std::nullopt;
}

std::span<const std::string_view> warning_code_names() { return kNames; }

}  // namespace fleetsim
