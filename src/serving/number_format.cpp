#include "fleetsim/serving/number_format.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace fleetsim {

namespace {

struct Name {
  std::string_view name;
  NumberFormat format;
};
constexpr std::array<Name, 16> kNames{{{"fp32", NumberFormat::Fp32},
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
                                       {"w4a16", NumberFormat::Int4},
                                       {"nf4", NumberFormat::Int4}}};

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

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
  for (const Name& n : kNames)
    if (iequals(n.name, name)) return n.format;
  return std::nullopt;
}

std::string_view number_format_names() {
  return "fp32, bf16, fp16, fp8, int8, int4 (awq, gptq, w4a16, nf4)";
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
      return 0.5 + 2.0 / 128;
  }
  return 2;
}

}  // namespace fleetsim
