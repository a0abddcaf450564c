#include "fleetsim/workload/scale_down_order.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

namespace {

std::vector<std::uint32_t> order(std::vector<ScaleDownCandidate> pods, SimTime now) {
  sort_for_scale_down(pods, now);
  std::vector<std::uint32_t> ids;
  for (const auto& p : pods) ids.push_back(p.id);
  return ids;
}

ScaleDownCandidate ready_pod(std::uint32_t id, SimDuration ready_since, SimDuration created,
                             std::string uid) {
  return {.id = id,
          .assigned = true,
          .running = true,
          .ready = true,
          .ready_since = at(ready_since),
          .created = at(created),
          .colocated = 1,
          .uid = std::move(uid)};
}

}  // namespace

TEST_CASE("scale-down deletes unscheduled, then pending, then unready pods first", "[workload]") {
  const SimTime now = at(hours(1));
  std::vector<ScaleDownCandidate> pods{
      ready_pod(0, seconds(10), seconds(0), "a"),
      {.id = 1,
       .assigned = true,
       .running = true,
       .ready = false,
       .created = at(seconds(5)),
       .colocated = 1,
       .uid = "b"},
      {.id = 2,
       .assigned = true,
       .running = false,
       .ready = false,
       .created = at(seconds(5)),
       .colocated = 1,
       .uid = "c"},
      {.id = 3, .assigned = false, .created = at(seconds(1)), .uid = "d"},
  };
  CHECK(order(pods, now) == std::vector<std::uint32_t>{3, 2, 1, 0});
}

TEST_CASE("scale-down prefers pods doubled up on a node", "[workload]") {
  const SimTime now = at(hours(1));
  auto a = ready_pod(0, seconds(100), seconds(0), "a");
  auto b = ready_pod(1, seconds(3000), seconds(0), "b");
  b.colocated = 2;
  CHECK(order({a, b}, now) == std::vector<std::uint32_t>{1, 0});
}

TEST_CASE("scale-down removes the most recently ready, in log2 buckets, ties by uid",
          "[workload]") {
  const SimTime now = at(seconds(10'000));
  // Ready for 100 s (bucket of 2^36 ns) and for 5,000 s (2^42): the newer one goes first.
  auto older = ready_pod(0, seconds(5'000), seconds(0), "a");
  auto newer = ready_pod(1, seconds(9'900), seconds(0), "b");
  CHECK(order({older, newer}, now) == std::vector<std::uint32_t>{1, 0});
  // Ready for 100 s and 120 s: the same bucket (2^36 ns ≈ 68.7 s up to 137.4 s): by uid.
  auto x = ready_pod(2, seconds(9'900), seconds(0), "z");
  auto y = ready_pod(3, seconds(9'880), seconds(0), "y");
  CHECK(order({x, y}, now) == std::vector<std::uint32_t>{3, 2});
}

TEST_CASE("unready pods of the same rank go newest first", "[workload]") {
  const SimTime now = at(seconds(10'000));
  ScaleDownCandidate old_pod{.id = 0, .assigned = false, .created = at(seconds(10)), .uid = "a"};
  ScaleDownCandidate new_pod{.id = 1, .assigned = false, .created = at(seconds(9'990)), .uid = "b"};
  CHECK(order({old_pod, new_pod}, now) == std::vector<std::uint32_t>{1, 0});
}
