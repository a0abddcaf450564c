#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

std::optional<TaintEffect> parse_taint_effect(std::string_view text) {
  if (text == "NoSchedule") return TaintEffect::NoSchedule;
  if (text == "PreferNoSchedule") return TaintEffect::PreferNoSchedule;
  if (text == "NoExecute") return TaintEffect::NoExecute;
  return std::nullopt;
}

std::string_view to_string(TaintEffect e) {
  switch (e) {
    case TaintEffect::NoSchedule:
      return "NoSchedule";
    case TaintEffect::PreferNoSchedule:
      return "PreferNoSchedule";
    case TaintEffect::NoExecute:
      return "NoExecute";
  }
  return "?";
}

bool Toleration::tolerates(const Taint& taint) const {
  if (effect && *effect != taint.effect) return false;
  if (key.empty()) return op == TolerationOperator::Exists;
  if (key != taint.key) return false;
  return op == TolerationOperator::Exists || value == taint.value;
}

const Taint* first_untolerated(std::span<const Taint> taints,
                               std::span<const Toleration> tolerations,
                               bool ignore_prefer_no_schedule) {
  for (const Taint& t : taints) {
    if (ignore_prefer_no_schedule && t.effect == TaintEffect::PreferNoSchedule) continue;
    bool ok = false;
    for (const Toleration& tol : tolerations) {
      if (tol.tolerates(t)) {
        ok = true;
        break;
      }
    }
    if (!ok) return &t;
  }
  return nullptr;
}

}  // namespace fleetsim
