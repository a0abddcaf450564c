// Kubernetes resource quantities ("500m", "16Gi", "1.5", "2e3") in exact integer arithmetic.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace fleetsim {

// A quantity held in thousandths of its unit, so CPU millicores and byte counts are both exact.
struct Quantity {
  std::int64_t milli = 0;

  // The value in whole units, rounded up as Kubernetes' Quantity.Value() does.
  constexpr std::int64_t value_ceil() const {
    return milli >= 0 ? (milli + 999) / 1000 : milli / 1000;
  }
  friend constexpr bool operator==(Quantity, Quantity) = default;
};

// The largest quantity parse_quantity accepts, in whole units (about 2.3P): a quarter of int64
// milli-units, so that sums of a few stay in range.
inline constexpr std::int64_t kMaxQuantityUnits =
    std::numeric_limits<std::int64_t>::max() / 4 / 1000;

// Bytes in a mebibyte and in a gibibyte.
inline constexpr std::int64_t kMib = std::int64_t{1} << 20;
inline constexpr std::int64_t kGib = std::int64_t{1} << 30;

// Why parse_quantity refused a text: its form, or its size (the form is right).
enum class QuantityProblem : std::uint8_t { Malformed, TooLarge };

// nullopt on malformed text, a negative value, or a value beyond kMaxQuantityUnits.
std::optional<Quantity> parse_quantity(std::string_view text);
// As above, saying why when it returns nullopt.
std::optional<Quantity> parse_quantity(std::string_view text, QuantityProblem& problem);

// Formats bytes the way a user reads them ("16Gi", "1536Mi", "100").
std::string format_bytes(std::int64_t bytes);
// Formats millicores ("500m", "4").
std::string format_millicores(std::int64_t millicores);

}  // namespace fleetsim
