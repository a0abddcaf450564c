// Karpenter's ReservationManager (scheduling/reservationmanager.go): during one solve, the
// instances each capacity reservation still has, and which NodeClaims of the solve hold one.
// A claim reserves every compatible reservation it could launch into (pessimistically), so the
// claims of one batch never ask for more than a reservation's remaining count.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fleetsim {

class ReservationManager {
 public:
  // `remaining`: per reservation (Catalog::reservations()), the instances it can still launch.
  void reset(std::span<const std::int64_t> remaining);

  // Whether `claim` holds reservation `r` or may take it. Idempotent.
  bool can_reserve(std::uint32_t claim, std::uint32_t r) const;
  // Takes one instance of each reservation `claim` does not hold yet. Idempotent.
  void reserve(std::uint32_t claim, std::span<const std::uint32_t> reservations);
  // Gives back the ones `claim` holds; the others are ignored.
  void release(std::uint32_t claim, std::span<const std::uint32_t> reservations);
  bool has_reservation(std::uint32_t claim, std::uint32_t r) const;
  // The reservations `claim` holds, in the order it took them.
  std::span<const std::uint32_t> held(std::uint32_t claim) const {
    if (claim >= held_.size()) return {};
    return held_[claim];
  }
  std::int64_t remaining(std::uint32_t r) const { return remaining_[r]; }

 private:
  std::vector<std::int64_t> remaining_;
  std::vector<std::vector<std::uint32_t>> held_;  // per claim, the reservations it holds
};

}  // namespace fleetsim
