#include "fleetsim/scheduling/reservation_manager.hpp"

#include <algorithm>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

void ReservationManager::reset(std::span<const std::int64_t> remaining) {
  remaining_.assign(remaining.begin(), remaining.end());
  for (std::int64_t& left : remaining_) left = std::max<std::int64_t>(left, 0);
  held_.clear();
}

bool ReservationManager::has_reservation(std::uint32_t claim, std::uint32_t r) const {
  if (claim >= held_.size()) return false;
  const std::vector<std::uint32_t>& held = held_[claim];
  return std::find(held.begin(), held.end(), r) != held.end();
}

bool ReservationManager::can_reserve(std::uint32_t claim, std::uint32_t r) const {
  // Upstream panics on an unknown reservation: a solver bug, never the user's input.
  FLEETSIM_ASSERT(r < remaining_.size());
  return has_reservation(claim, r) || remaining_[r] > 0;
}

void ReservationManager::reserve(std::uint32_t claim, std::span<const std::uint32_t> reservations) {
  if (claim >= held_.size()) held_.resize(claim + 1);
  for (std::uint32_t r : reservations) {
    FLEETSIM_ASSERT(r < remaining_.size());
    if (has_reservation(claim, r)) continue;
    FLEETSIM_ASSERT(remaining_[r] > 0);  // over-reserving is a solver bug
    --remaining_[r];
    held_[claim].push_back(r);
  }
}

void ReservationManager::release(std::uint32_t claim, std::span<const std::uint32_t> reservations) {
  if (claim >= held_.size()) return;
  std::vector<std::uint32_t>& held = held_[claim];
  for (std::uint32_t r : reservations) {
    auto it = std::find(held.begin(), held.end(), r);
    if (it == held.end()) continue;
    held.erase(it);
    ++remaining_[r];
  }
}

}  // namespace fleetsim
