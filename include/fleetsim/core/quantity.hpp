// Kubernetes resource quantities ("500m", "16Gi", "1.5", "2e3") in exact integer arithmetic.
#pragma once

#include <cstdint>
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

// nullopt on malformed text, a negative value, or a value beyond int64 milli-units.
std::optional<Quantity> parse_quantity(std::string_view text);

// Formats bytes the way a user reads them ("16Gi", "1536Mi", "100").
std::string format_bytes(std::int64_t bytes);
// Formats millicores ("500m", "4").
std::string format_millicores(std::int64_t millicores);

}  // namespace fleetsim
