#include "fleetsim/k8s/capacity_type.hpp"

#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

std::optional<CapacityType> parse_capacity_type(std::string_view text) {
  if (text == label::kCapacityTypeOnDemand) return CapacityType::OnDemand;
  if (text == label::kCapacityTypeSpot) return CapacityType::Spot;
  if (text == "reserved") return CapacityType::Reserved;
  return std::nullopt;
}

std::string_view to_string(CapacityType c) {
  switch (c) {
    case CapacityType::OnDemand:
      return label::kCapacityTypeOnDemand;
    case CapacityType::Spot:
      return label::kCapacityTypeSpot;
    case CapacityType::Reserved:
      return "reserved";
  }
  return "?";
}

}  // namespace fleetsim
