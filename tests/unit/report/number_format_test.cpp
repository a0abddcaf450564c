// format_significant: quantiles from the 1% sketch are printed with three significant digits.
#include "fleetsim/report/number_format.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

TEST_CASE("format_significant keeps three significant digits in fixed notation", "[report]") {
  CHECK(format_significant(131.2, 3) == "131");
  CHECK(format_significant(8080.44, 3) == "8080");
  CHECK(format_significant(48004, 3) == "48000");
  CHECK(format_significant(74265.9, 3) == "74300");
  CHECK(format_significant(1234567.0, 3) == "1230000");  // never 1.23e+06
  CHECK(format_significant(71, 3) == "71.0");
  CHECK(format_significant(9.996, 3) == "10.0");  // rounding carries into a new digit
  CHECK(format_significant(999.6, 3) == "1000");
  CHECK(format_significant(0.0512345, 3) == "0.0512");
  CHECK(format_significant(0.5, 3) == "0.500");
  CHECK(format_significant(-2.468, 2) == "-2.5");
  CHECK(format_significant(0.0, 3) == "0");
}
