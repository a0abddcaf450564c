// The router's choice among Ready replicas: the fewest requests in flight, ties to the lowest id.
#include "fleetsim/serving/ready_replicas.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <utility>

#include "fleetsim/core/rng.hpp"

using namespace fleetsim;

TEST_CASE("the fewest in flight wins, ties to the lowest id", "[serving]") {
  ReadyReplicas ready(4);
  ready.insert(0, 30, 0);
  ready.insert(1, 10, 1);
  ready.insert(2, 20, 0);
  CHECK(ready.best().replica == 2);  // id 20 before id 30, both idle
  ready.move(2, 0, 1);
  CHECK(ready.best().replica == 0);
  ready.move(0, 0, 1);
  CHECK(ready.best().replica == 1);  // all at 1: id 10
  CHECK(ready.best().in_flight == 1);
  ready.remove(1, 1);
  CHECK(ready.best().replica == 2);
  CHECK(ready.size() == 2);
}

TEST_CASE("the bitsets agree with an ordered set over thousands of replicas and moves",
          "[serving]") {
  // Beyond one 64-bit word per count, with replicas joining in any id order and leaving at any
  // count, as readiness and scale-down make them.
  constexpr std::uint32_t kConcurrency = 8;
  ReadyReplicas ready(kConcurrency);
  std::set<std::pair<std::uint32_t, ReplicaId>> reference;               // (in flight, id)
  std::map<std::uint32_t, std::pair<ReplicaId, std::uint32_t>> members;  // replica → id, count
  RngStream rng(3, "ready-replicas");
  std::uint32_t next_replica = 0;
  for (int step = 0; step < 100'000; ++step) {
    const double u = rng.uniform();
    if ((u < 0.3 && members.size() < 300) || members.empty()) {
      const std::uint32_t replica = next_replica++;
      const ReplicaId id = rng.below(1'000'000'000);
      const auto count = static_cast<std::uint32_t>(rng.below(kConcurrency + 1));
      ready.insert(replica, id, count);
      reference.insert({count, id});
      members[replica] = {id, count};
    } else {
      auto it = members.begin();
      std::advance(it, static_cast<long>(rng.below(members.size())));
      auto& [id, count] = it->second;
      if (u < 0.4) {
        ready.remove(it->first, count);
        reference.erase({count, id});
        members.erase(it);
      } else {
        const std::uint32_t to = count == 0              ? 1
                                 : count == kConcurrency ? count - 1
                                 : rng.uniform() < 0.5   ? count - 1
                                                         : count + 1;
        ready.move(it->first, count, to);
        reference.erase({count, id});
        reference.insert({to, id});
        count = to;
      }
    }
    REQUIRE(ready.size() == reference.size());
    if (reference.empty()) continue;
    const ReadyReplicas::Choice best = ready.best();
    REQUIRE(best.in_flight == reference.begin()->first);
    REQUIRE(members.at(best.replica).first == reference.begin()->second);
  }
}
