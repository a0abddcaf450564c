// The Ready replicas of a service as the router sees them: which one takes the next request.
#pragma once

#include <cstdint>
#include <vector>

namespace fleetsim {

using ReplicaId = std::uint64_t;

// The replica with the fewest requests in flight, ties to the lowest id (DESIGN.md §4.4).
// In-flight counts are small integers that move by one per request, so the replicas are kept in
// one bitset per count, over their rank by id: the choice is the lowest bit of the lowest
// non-empty count, and a request moves one bit between neighbouring counts. A heap of them paid
// a walk of its depth per request, on the serving path's hottest line. Adding or removing a
// replica (rare: readiness, scale-down) shifts the bitsets.
class ReadyReplicas {
 public:
  // In-flight counts run from 0 to `max_in_flight` (the service's concurrency).
  explicit ReadyReplicas(std::uint32_t max_in_flight);

  bool empty() const { return by_rank_.empty(); }
  std::size_t size() const { return by_rank_.size(); }

  // `replica` is an index the caller owns (its replica table's); ids are unique.
  void insert(std::uint32_t replica, ReplicaId id, std::uint32_t in_flight);
  void remove(std::uint32_t replica, std::uint32_t in_flight);
  void move(std::uint32_t replica, std::uint32_t from, std::uint32_t to);

  struct Choice {
    std::uint32_t replica;
    std::uint32_t in_flight;
  };
  // The replica the next request goes to; the set must not be empty.
  Choice best() const;

 private:
  std::uint64_t* level(std::uint32_t in_flight) { return &bits_[in_flight * words_]; }
  void set(std::uint32_t in_flight, std::size_t rank);
  void clear(std::uint32_t in_flight, std::size_t rank);
  void grow();

  std::uint32_t levels_;
  std::size_t words_ = 1;                // per level
  std::vector<std::uint64_t> bits_;      // level-major: level × words_ + word
  std::vector<std::uint32_t> count_;     // replicas per level
  std::vector<std::uint64_t> nonempty_;  // a bit per level with replicas
  std::vector<std::uint32_t> by_rank_;   // replica at each rank, ids ascending
  std::vector<ReplicaId> ids_;           // id at each rank
  std::vector<std::uint32_t> rank_of_;   // by replica index
};

}  // namespace fleetsim
