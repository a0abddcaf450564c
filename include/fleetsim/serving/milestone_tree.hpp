// The replicas' next milestones in a tournament tree: the earliest is read at once, and the due
// ones are found in index order in O(log n) each, where a scan of every replica cost each
// arrival of a serving run a pass over them all.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

namespace fleetsim {

class MilestoneTree {
 public:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  std::size_t size() const { return size_; }
  // Adds an entry that is never due; grows on scale-up, not per request.
  void push_back();
  // The walks have the tree's depth whatever the values: no branch on them to mispredict (an
  // early exit where an ancestor already held the minimum cost more in mispredictions than the
  // levels it spared). The minimum climbs in a register, each level reading only the sibling,
  // which this walk never writes: no chain through memory.
  void set(std::size_t i, double at) {
    std::size_t k = i + leaves_;
    nodes_[k] = at;
    for (; k > 1; k /= 2) {
      at = std::min(at, nodes_[k ^ 1]);
      nodes_[k / 2] = at;
    }
  }
  double earliest() const { return nodes_[1]; }
  // The first entry at or after `from` due by `clock` (at ≤ clock), or kNone. The first due entry
  // of all is found by a walk down the tree; only when it lies before `from` (an entry settled
  // earlier in the same pass is still due) does the search climb from `from`.
  std::size_t first_due(std::size_t from, double clock) const {
    if (nodes_[1] > clock) return kNone;
    std::size_t k = 1;
    while (k < leaves_) k = 2 * k + static_cast<std::size_t>(nodes_[2 * k] > clock);
    const std::size_t first = k - leaves_;
    return first >= from ? first : first_due_after(from, clock);
  }

 private:
  std::size_t first_due_after(std::size_t from, double clock) const;

  std::size_t size_ = 0;
  std::size_t leaves_ = 1;                     // a power of two
  std::vector<double> nodes_{kNever, kNever};  // the root at 1, leaves from leaves_
};

}  // namespace fleetsim
