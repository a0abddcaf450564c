// The consolidation candidates one disruption pass shares between multi- and single-node
// consolidation (no upstream test: upstream builds them per method, with the same result).
#include "fleetsim/disruption/candidate_pass.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

TEST_CASE("a pass keeps its candidates until the next pass starts even at the same instant",
          "[disruption]") {
  CandidatePass pass;
  const SimTime now = at(seconds(10));
  pass.start();
  CHECK(pass.kept(now) == nullptr);  // nothing built yet
  const std::vector<Candidate>& kept = pass.keep(now, {Candidate{.node = 3}, Candidate{.node = 1}});
  REQUIRE(pass.kept(now) == &kept);  // the second method of the pass finds them
  CHECK(kept.size() == 2);
  CHECK(kept[0].node == 3);
  // A command started: the loop reruns at the same instant, and the cluster has changed.
  pass.start();
  CHECK(pass.kept(now) == nullptr);
  pass.keep(now, {Candidate{.node = 1}});
  REQUIRE(pass.kept(now) != nullptr);
  CHECK(pass.kept(now)->size() == 1);
}
