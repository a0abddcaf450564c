// The number formats a serving engine stores weights and the KV cache in, and their sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fleetsim {

// int4 covers the 4-bit weight-only schemes users name (AWQ, GPTQ): 0.5 byte per weight plus
// their group scales, which are counted in bytes_per_element.
enum class NumberFormat : std::uint8_t { Fp32, Bf16, Fp16, Fp8, Int8, Int4 };

std::string_view to_string(NumberFormat format);
// "bf16", "fp16", "float16", "fp8", "int8", "int4", "awq", "gptq", … (case-insensitive);
// nullopt for anything else.
std::optional<NumberFormat> parse_number_format(std::string_view name);
// The names parse_number_format accepts, for messages and did-you-mean.
std::string_view number_format_names();

// Bytes per stored element. 4-bit formats carry one 16-bit scale per group of 128 weights.
double bytes_per_element(NumberFormat format);

}  // namespace fleetsim
