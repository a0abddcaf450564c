// Kubernetes' intstr.IntOrString as fleetsim uses it: an integer or a percentage.
#pragma once

#include <cstdint>

namespace fleetsim {

struct IntOrPercent {
  std::int64_t value = 0;
  bool percent = false;
  friend bool operator==(const IntOrPercent&, const IntOrPercent&) = default;
};

// intstr.GetScaledValueFromIntOrPercent: a percentage of `total`, rounded up or down.
constexpr std::int64_t scaled_value(const IntOrPercent& v, std::int64_t total, bool round_up) {
  if (!v.percent) return v.value;
  return round_up ? (v.value * total + 99) / 100 : v.value * total / 100;
}

}  // namespace fleetsim
