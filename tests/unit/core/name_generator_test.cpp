// Generated names: Kubernetes' generateName alphabet, seeded, and unique where asked.
#include "fleetsim/core/name_generator.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace fleetsim;

TEST_CASE("suffixes use generateName's alphabet and repeat for the same seed", "[core]") {
  NameGenerator a(RngStream(7, "names"));
  NameGenerator b(RngStream(7, "names"));
  const std::string s = a.suffix(10);
  CHECK(s.size() == 10);
  CHECK(s.find_first_not_of("bcdfghjklmnpqrstvwxz2456789") == std::string::npos);
  CHECK(b.suffix(10) == s);
}

TEST_CASE("unique names never repeat, though 20,000 draws of 5 characters collide", "[core]") {
  // 27^5 suffixes: 20,000 draws repeat one about 14 times; each repeat is drawn again.
  NameGenerator names(RngStream(1, "nodeclaim-names"));
  std::set<std::string> seen;
  for (int i = 0; i < 20'000; ++i) {
    const std::string name = names.unique("default");
    REQUIRE(name.size() == std::string("default-").size() + 5);
    REQUIRE(name.starts_with("default-"));
    REQUIRE(seen.insert(name).second);
  }
}
