// Node taints and pod tolerations, matched as the Kubernetes scheduler matches them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

enum class TaintEffect { NoSchedule, PreferNoSchedule, NoExecute };

// Karpenter taints a node it is about to disrupt so that no new pod lands on it.
inline constexpr std::string_view kDisruptedTaintKey = "karpenter.sh/disrupted";

std::optional<TaintEffect> parse_taint_effect(std::string_view text);
std::string_view to_string(TaintEffect e);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;
  friend bool operator==(const Taint&, const Taint&) = default;
};

enum class TolerationOperator { Equal, Exists };

struct Toleration {
  std::string key;  // empty with Exists tolerates every taint
  TolerationOperator op = TolerationOperator::Equal;
  std::string value;
  std::optional<TaintEffect> effect;  // nullopt matches every effect

  bool tolerates(const Taint& taint) const;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

// The first taint in `taints` that no toleration tolerates, or nullptr.
// PreferNoSchedule taints count unless `ignore_prefer_no_schedule` (Karpenter relaxes them last).
const Taint* first_untolerated(std::span<const Taint> taints,
                               std::span<const Toleration> tolerations,
                               bool ignore_prefer_no_schedule = false);

}  // namespace fleetsim
