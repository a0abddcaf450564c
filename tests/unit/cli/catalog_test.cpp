#include <catch2/catch.hpp>
#include <filesystem>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

TEST_CASE("catalog lists every type when no --filter is given (issue 12, finding 6)", "[cli]") {
  Scratch s;
  const std::string dir =
      (std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog" / "aws" / "us-east-1")
          .string();
  for (const std::string& args : {std::string("catalog"), "catalog --catalog " + dir}) {
    INFO(args);
    Run r = s.fleetsim(args);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("g5.xlarge"));
    CHECK_THAT(r.out, Catch::Contains("m5.large"));
  }
  // A filter given but empty is still a mistake.
  Run empty = s.fleetsim("catalog --filter ''");
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Catch::Contains("--filter: empty filter expression"));
}
