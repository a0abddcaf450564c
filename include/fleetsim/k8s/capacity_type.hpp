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

}  // namespace fleetsim
