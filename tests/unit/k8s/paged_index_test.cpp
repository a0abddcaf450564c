// The cluster's pod look-up table (no upstream counterpart: an index of fleetsim's own).
#include "fleetsim/k8s/paged_index.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace fleetsim;

TEST_CASE("a paged index finds what it holds across pages and nothing else", "[k8s]") {
  PagedIndex<std::uint32_t, int> index;
  std::vector<int> values(3000);
  CHECK(index.find(0) == nullptr);
  for (std::uint32_t id = 0; id < 3000; ++id) index.add(id, &values[id]);
  CHECK(index.find(0) == &values[0]);
  CHECK(index.find(1023) == &values[1023]);
  CHECK(index.find(1024) == &values[1024]);
  CHECK(index.find(2999) == &values[2999]);
  CHECK(index.find(3000) == nullptr);
  CHECK(index.find(1'000'000) == nullptr);
  // Emptying a page frees it; the others keep their entries.
  for (std::uint32_t id = 1024; id < 2048; ++id) index.erase(id);
  CHECK(index.find(1500) == nullptr);
  CHECK(index.find(1023) == &values[1023]);
  CHECK(index.find(2048) == &values[2048]);
  index.erase(1500);  // not held: no-op
  index.add(1500, &values[0]);
  CHECK(index.find(1500) == &values[0]);
  CHECK(index.find(1501) == nullptr);
}
