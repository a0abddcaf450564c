#include "fleetsim/catalog/reservations.hpp"

#include <algorithm>
#include <array>

namespace fleetsim {

std::string_view to_string(ReservationType type) {
  return type == ReservationType::CapacityBlock ? "capacity-block" : "default";
}

bool reservation_open(const Reservation& r, SimTime now) {
  if (now < r.start || now >= r.end) return false;
  return r.type != ReservationType::CapacityBlock || now < r.end - kCapacityBlockExpiringBefore;
}

bool valid_capacity_block_count(std::int64_t count) {
  static constexpr std::array<std::int64_t, 7> kSizes{1, 2, 4, 8, 16, 32, 64};
  return std::find(kSizes.begin(), kSizes.end(), count) != kSizes.end();
}

}  // namespace fleetsim
