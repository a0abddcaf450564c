#include "fleetsim/serving/milestone_tree.hpp"

#include <utility>

namespace fleetsim {

void MilestoneTree::push_back() {
  if (size_ == leaves_) {
    // Twice the leaves: the old ones keep their places in the bottom row, the rest never due.
    std::vector<double> nodes(4 * leaves_, kNever);
    std::copy(nodes_.begin() + static_cast<std::ptrdiff_t>(leaves_), nodes_.end(),
              nodes.begin() + static_cast<std::ptrdiff_t>(2 * leaves_));
    leaves_ *= 2;
    nodes_ = std::move(nodes);
    for (std::size_t k = leaves_; k-- > 1;) nodes_[k] = std::min(nodes_[2 * k], nodes_[2 * k + 1]);
  }
  set(size_++, kNever);
}

// Up from `from` to the first subtree to its right that holds a due entry, then down its left
// edge.
std::size_t MilestoneTree::first_due_after(std::size_t from, double clock) const {
  if (from >= size_) return kNone;
  std::size_t k = from + leaves_;
  if (nodes_[k] <= clock) return from;
  for (;;) {
    while ((k & 1) != 0) {
      if (k == 1) return kNone;
      k /= 2;
    }
    if (nodes_[++k] <= clock) break;
  }
  while (k < leaves_) k = 2 * k + static_cast<std::size_t>(nodes_[2 * k] > clock);
  return k - leaves_;
}

}  // namespace fleetsim
