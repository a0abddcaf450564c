#include "fleetsim/serving/number_format.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "fleetsim/core/ascii_case.hpp"

namespace fleetsim {

namespace {

// Every spelling users and engines write (vLLM's --dtype and --quantization, HF's torch_dtype).
constexpr std::array<std::pair<std::string_view, NumberFormat>, 14> kNames{{
    {"fp32", NumberFormat::Fp32},
    {"float32", NumberFormat::Fp32},
    {"bf16", NumberFormat::Bf16},
    {"bfloat16", NumberFormat::Bf16},
    {"fp16", NumberFormat::Fp16},
    {"float16", NumberFormat::Fp16},
    {"half", NumberFormat::Fp16},
    {"fp8", NumberFormat::Fp8},
    {"fp8_e4m3", NumberFormat::Fp8},
    {"int8", NumberFormat::Int8},
    {"w8a8", NumberFormat::Int8},
    {"int4", NumberFormat::Int4},
    {"awq", NumberFormat::Int4},
    {"gptq", NumberFormat::Int4},
}};

}  // namespace

std::string_view to_string(NumberFormat format) {
  switch (format) {
    case NumberFormat::Fp32:
      return "fp32";
    case NumberFormat::Bf16:
      return "bf16";
    case NumberFormat::Fp16:
      return "fp16";
    case NumberFormat::Fp8:
      return "fp8";
    case NumberFormat::Int8:
      return "int8";
    case NumberFormat::Int4:
      return "int4";
  }
  return "?";
}

std::optional<NumberFormat> parse_number_format(std::string_view name) {
  const std::string lower = ascii_lower(name);
  for (const auto& [spelling, format] : kNames)
    if (spelling == lower) return format;
  return std::nullopt;
}

std::string_view number_format_names() {
  return "bf16, bfloat16, fp16, float16, half, fp8, fp8_e4m3, int8, w8a8, int4, awq, gptq, fp32, "
         "float32";
}

double bytes_per_element(NumberFormat format) {
  switch (format) {
    case NumberFormat::Fp32:
      return 4;
    case NumberFormat::Bf16:
    case NumberFormat::Fp16:
      return 2;
    case NumberFormat::Fp8:
    case NumberFormat::Int8:
      return 1;
    case NumberFormat::Int4:
      // Half a byte per weight plus one 16-bit scale per group of 128 (AWQ's and GPTQ's
      // default group size).
      return 0.5 + 2.0 / 128.0;
  }
  return 0;
}

}  // namespace fleetsim
