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

TEST_CASE("catalog --gpu shows each GPU type's memory, bandwidth, peaks and interconnect",
          "[cli]") {
  Scratch s;
  Run r = s.fleetsim("catalog --gpu --filter 'family=p5|g5,gpu-count>=4'");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out,
             Catch::StartsWith(
                 "TYPE         GPUS     GPU GiB  BW GB/s  BF16 TF  FP16 TF  FP8 TF  INT8 TOPS  "
                 "LINK      LINK GB/s\n"
                 "g5.12xlarge  4x a10g     22.5      600       70       70      no        250  "
                 "pcie             20\n"
                 "g5.24xlarge  4x a10g     22.5      600       70       70      no        250  "
                 "pcie             20\n"
                 "g5.48xlarge  8x a10g     22.5      600       70       70      no        250  "
                 "pcie             20\n"
                 "p5.48xlarge  8x h100     79.6     3350      989      989    1979       1979  "
                 "nvswitch        450\n"
                 "4 of 285 instance types ("));
  // A type without figures shows dashes; a single GPU has no link.
  Run other = s.fleetsim("catalog --gpu --filter 'family=p3|g4dn'");
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.out, Catch::Contains("p3.8xlarge     4x v100        -        -        -        "
                                        "-       -          -  -             -\n"));
  CHECK_THAT(other.out, Catch::Contains("g4dn.xlarge    1x t4       15.0      320       no       "
                                        "65      no        130  -             -\n"));
}
