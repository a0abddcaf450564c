// Karpenter's capacity types: the values of the karpenter.sh/capacity-type label.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fleetsim {

enum class CapacityType : std::uint8_t { OnDemand, Spot, Reserved };
std::optional<CapacityType> parse_capacity_type(
    std::string_view text);  // "on-demand", "spot", "reserved"
std::string_view to_string(CapacityType c);

// Bit of a capacity type in a capacity-type mask.
constexpr std::uint8_t capacity_bit(CapacityType ct) {
  return static_cast<std::uint8_t>(1U << static_cast<unsigned>(ct));
}

}  // namespace fleetsim
