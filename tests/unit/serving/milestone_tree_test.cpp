// The replicas' next milestones: the earliest, and the due ones in index order, as a scan of
// every replica would find them.
#include "fleetsim/serving/milestone_tree.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "fleetsim/core/rng.hpp"

using namespace fleetsim;

TEST_CASE("the due milestones come in index order from any start", "[serving]") {
  MilestoneTree tree;
  for (int i = 0; i < 5; ++i) tree.push_back();
  CHECK(tree.earliest() == MilestoneTree::kNever);
  CHECK(tree.first_due(0, 1e9) == MilestoneTree::kNone);
  tree.set(3, 2.0);
  tree.set(1, 5.0);
  tree.set(4, 1.0);
  CHECK(tree.earliest() == 1.0);
  CHECK(tree.first_due(0, 0.5) == MilestoneTree::kNone);
  CHECK(tree.first_due(0, 2.0) == 3);
  CHECK(tree.first_due(4, 2.0) == 4);
  CHECK(tree.first_due(0, 5.0) == 1);
  CHECK(tree.first_due(2, 5.0) == 3);
  CHECK(tree.first_due(5, 5.0) == MilestoneTree::kNone);
  tree.set(4, MilestoneTree::kNever);  // its replica went
  CHECK(tree.earliest() == 2.0);
}

TEST_CASE("the tree agrees with a scan under random updates while it grows", "[serving]") {
  MilestoneTree tree;
  std::vector<double> scan;
  RngStream rng(3, "milestones");
  for (int step = 0; step < 20'000; ++step) {
    if (scan.size() < 70 && rng.below(50) == 0) {
      tree.push_back();
      scan.push_back(MilestoneTree::kNever);
    }
    if (scan.empty()) continue;
    const std::size_t i = rng.below(scan.size());
    scan[i] = rng.below(10) == 0 ? MilestoneTree::kNever : rng.uniform() * 100;
    tree.set(i, scan[i]);
    double earliest = MilestoneTree::kNever;
    for (const double at : scan) earliest = std::min(earliest, at);
    REQUIRE(tree.earliest() == earliest);
    const double clock = rng.uniform() * 100;
    const std::size_t from = rng.below(scan.size() + 1);
    std::size_t expected = MilestoneTree::kNone;
    for (std::size_t j = from; j < scan.size(); ++j) {
      if (scan[j] <= clock) {
        expected = j;
        break;
      }
    }
    REQUIRE(tree.first_due(from, clock) == expected);
  }
  CHECK(tree.size() == scan.size());
  CHECK(scan.size() > 32);
}
