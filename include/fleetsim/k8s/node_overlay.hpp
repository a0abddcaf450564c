// Karpenter's NodeOverlay (karpenter.sh/v1alpha1): a price or extended-resource capacity that
// Karpenter assumes for the instance types its requirements select, before launch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

// spec.price or spec.priceAdjustment: a price that replaces the offering's, or a signed change,
// absolute or in percent (Karpenter's cloudprovider.AdjustedPrice).
struct OverlayPrice {
  enum class Kind : std::uint8_t { None, Set, Add, Percent };
  Kind kind = Kind::None;
  double value = 0.0;
  std::string text;  // as written, for messages

  bool is_none() const { return kind == Kind::None; }
  friend bool operator==(const OverlayPrice&, const OverlayPrice&) = default;
};

// `price` with `change` applied: the value given, or the price moved by the amount or the
// percentage, never below 0 (AdjustedPrice).
double adjusted_price(double price, const OverlayPrice& change);

// The CRD's patterns: price `^\d+(\.\d+)?$`; priceAdjustment a signed amount, a `+` percentage,
// or a `-` percentage of at most 100. nullopt when the text does not match.
std::optional<OverlayPrice> parse_overlay_price(std::string_view text);
std::optional<OverlayPrice> parse_price_adjustment(std::string_view text);

struct NodeOverlay {
  std::string name;
  Requirements requirements;
  // spec.capacity, by resource slot in name order; has_capacity: the field is given (even empty).
  std::vector<std::pair<ResourceIndex, std::int64_t>> capacity;
  bool has_capacity = false;
  OverlayPrice price;
  std::int32_t weight = 0;  // unset: 0
  SourceLocation where;
};

}  // namespace fleetsim
