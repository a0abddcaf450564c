#include "fleetsim/scenario/warning_codes.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace fleetsim;

TEST_CASE("warning codes are unique kebab-case names that parse back", "[scenario]") {
  std::set<std::string_view> seen;
  for (std::string_view name : warning_code_names()) {
    CHECK(seen.insert(name).second);
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string_view::npos);
    const auto code = parse_warning_code(name);
    REQUIRE(code);
    CHECK(to_string(*code) == name);
  }
  CHECK(to_string(WarningCode::PodsUnhostable) == "pods-unhostable");
  CHECK_FALSE(parse_warning_code("Pods-Unhostable"));
}
