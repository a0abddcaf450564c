#include "fleetsim/serving/number_format.hpp"

#include <catch2/catch.hpp>

using namespace fleetsim;

TEST_CASE("number formats parse from the names engines and users write", "[serving]") {
  CHECK(parse_number_format("bf16") == NumberFormat::Bf16);
  CHECK(parse_number_format("BFloat16") == NumberFormat::Bf16);
  CHECK(parse_number_format("fp16") == NumberFormat::Fp16);
  CHECK(parse_number_format("float16") == NumberFormat::Fp16);
  CHECK(parse_number_format("half") == NumberFormat::Fp16);
  CHECK(parse_number_format("fp8") == NumberFormat::Fp8);
  CHECK(parse_number_format("FP8_E4M3") == NumberFormat::Fp8);
  CHECK(parse_number_format("int8") == NumberFormat::Int8);
  CHECK(parse_number_format("w8a8") == NumberFormat::Int8);
  CHECK(parse_number_format("int4") == NumberFormat::Int4);
  CHECK(parse_number_format("AWQ") == NumberFormat::Int4);
  CHECK(parse_number_format("gptq") == NumberFormat::Int4);
  CHECK(parse_number_format("fp32") == NumberFormat::Fp32);
  CHECK(parse_number_format("float32") == NumberFormat::Fp32);
  CHECK_FALSE(parse_number_format("fp4").has_value());
  CHECK_FALSE(parse_number_format("").has_value());
  CHECK_FALSE(parse_number_format("bf16 ").has_value());
}

TEST_CASE("each number format's name parses back to it", "[serving]") {
  for (NumberFormat f : {NumberFormat::Fp32, NumberFormat::Bf16, NumberFormat::Fp16,
                         NumberFormat::Fp8, NumberFormat::Int8, NumberFormat::Int4}) {
    INFO(to_string(f));
    CHECK(parse_number_format(to_string(f)) == f);
    CHECK_THAT(std::string(number_format_names()), Catch::Contains(std::string(to_string(f))));
  }
}

TEST_CASE("bytes per element, with int4's group scales", "[serving]") {
  CHECK(bytes_per_element(NumberFormat::Fp32) == 4.0);
  CHECK(bytes_per_element(NumberFormat::Bf16) == 2.0);
  CHECK(bytes_per_element(NumberFormat::Fp16) == 2.0);
  CHECK(bytes_per_element(NumberFormat::Fp8) == 1.0);
  CHECK(bytes_per_element(NumberFormat::Int8) == 1.0);
  // Half a byte plus a 16-bit scale per 128 weights: 0.515625.
  CHECK(bytes_per_element(NumberFormat::Int4) == 0.515625);
}
