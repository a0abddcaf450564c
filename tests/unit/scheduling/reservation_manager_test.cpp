// Karpenter's reservationmanager_test.go, with the claims of a solve in place of its hostnames
// and reservation indices in place of its offerings: small-reserved (3), medium-reserved (2)
// and large-reserved (1).
#include "fleetsim/scheduling/reservation_manager.hpp"

#include <array>
#include <catch2/catch.hpp>

using namespace fleetsim;

namespace {

constexpr std::uint32_t kThree = 0, kTwo = 1, kOne = 2;

ReservationManager manager() {
  ReservationManager rm;
  const std::array<std::int64_t, 3> capacity{3, 2, 1};
  rm.reset(capacity);
  return rm;
}

}  // namespace

// "should return false when capacity is exhausted" and "should return true for existing
// hostname even when capacity is exhausted".
TEST_CASE("a claim keeps its reservation after the others exhaust it", "[scheduling]") {
  ReservationManager rm = manager();
  CHECK(rm.can_reserve(0, kOne));
  const std::array<std::uint32_t, 1> one{kOne};
  rm.reserve(0, one);
  CHECK(rm.remaining(kOne) == 0);
  CHECK_FALSE(rm.can_reserve(1, kOne));
  CHECK(rm.can_reserve(0, kOne));
}

// "should not double-reserve for the same hostname and reservation".
TEST_CASE("reserving twice for one claim takes one instance", "[scheduling]") {
  ReservationManager rm = manager();
  const std::array<std::uint32_t, 1> three{kThree};
  rm.reserve(0, three);
  rm.reserve(0, three);
  CHECK(rm.remaining(kThree) == 2);
  CHECK(rm.has_reservation(0, kThree));
  CHECK_FALSE(rm.has_reservation(1, kThree));
}

// "should handle releasing non-existent reservations gracefully" and "... from non-existent
// hostname gracefully".
TEST_CASE("releasing what a claim does not hold changes nothing", "[scheduling]") {
  ReservationManager rm = manager();
  const std::array<std::uint32_t, 1> two{kTwo};
  rm.release(0, two);
  rm.release(7, two);
  CHECK(rm.remaining(kTwo) == 2);
  rm.reserve(0, two);
  rm.release(1, two);
  CHECK(rm.remaining(kTwo) == 1);
}

// "should correctly track capacity after multiple reserve/release cycles".
TEST_CASE("a released reservation is taken again by another claim", "[scheduling]") {
  ReservationManager rm = manager();
  const std::array<std::uint32_t, 1> three{kThree};
  rm.reserve(0, three);
  rm.release(0, three);
  rm.reserve(1, three);
  CHECK(rm.remaining(kThree) == 2);
  CHECK_FALSE(rm.has_reservation(0, kThree));
}

// "should handle complex reservation patterns".
TEST_CASE("claims holding several reservations each count once per reservation", "[scheduling]") {
  ReservationManager rm = manager();
  rm.reserve(0, std::array<std::uint32_t, 2>{kTwo, kThree});
  rm.reserve(1, std::array<std::uint32_t, 2>{kTwo, kOne});
  rm.reserve(2, std::array<std::uint32_t, 1>{kThree});
  CHECK(rm.has_reservation(0, kThree));
  CHECK(rm.has_reservation(0, kTwo));
  CHECK(rm.has_reservation(1, kTwo));
  CHECK(rm.has_reservation(1, kOne));
  CHECK(rm.has_reservation(2, kThree));
  CHECK(rm.remaining(kTwo) == 0);
  CHECK(rm.remaining(kThree) == 1);
  CHECK(rm.remaining(kOne) == 0);
}

// "should maintain consistency during mixed operations" (upstream checks one count thrice; this
// checks the three).
TEST_CASE("reserves and releases interleaved leave exact counts", "[scheduling]") {
  ReservationManager rm = manager();
  rm.reserve(0, std::array<std::uint32_t, 2>{kTwo, kThree});
  rm.reserve(1, std::array<std::uint32_t, 2>{kThree, kOne});
  rm.release(0, std::array<std::uint32_t, 1>{kTwo});
  rm.reserve(2, std::array<std::uint32_t, 1>{kTwo});
  rm.release(1, std::array<std::uint32_t, 1>{kOne});
  CHECK_FALSE(rm.has_reservation(0, kTwo));
  CHECK(rm.has_reservation(0, kThree));
  CHECK(rm.has_reservation(1, kThree));
  CHECK_FALSE(rm.has_reservation(1, kOne));
  CHECK(rm.has_reservation(2, kTwo));
  CHECK(rm.remaining(kTwo) == 1);
  CHECK(rm.remaining(kThree) == 1);
  CHECK(rm.remaining(kOne) == 1);
}
