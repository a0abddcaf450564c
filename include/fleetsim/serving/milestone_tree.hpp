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
  void set(std::size_t i, double at) {
    std::size_t k = i + leaves_;
    nodes_[k] = at;
    for (k >>= 1; k > 0; k >>= 1) {
      const double low = std::min(nodes_[2 * k], nodes_[2 * k + 1]);
      if (nodes_[k] == low) return;  // the ancestors hold it already
      nodes_[k] = low;
    }
  }
  double earliest() const { return nodes_[1]; }
  // The first entry at or after `from` due by `clock` (at ≤ clock), or kNone.
  std::size_t first_due(std::size_t from, double clock) const {
    if (from >= size_) return kNone;
    std::size_t k = from + leaves_;
    if (nodes_[k] > clock) {
      // Up to the first subtree to the right that holds a due entry, then down its left edge.
      for (;;) {
        while ((k & 1) != 0) {
          if (k == 1) return kNone;
          k >>= 1;
        }
        if (nodes_[++k] <= clock) break;
      }
      while (k < leaves_) {
        k *= 2;
        if (nodes_[k] > clock) ++k;
      }
    }
    return k - leaves_;
  }

 private:
  std::size_t size_ = 0;
  std::size_t leaves_ = 1;                     // a power of two
  std::vector<double> nodes_{kNever, kNever};  // the root at 1, leaves from leaves_
};

}  // namespace fleetsim
