// Karpenter's minValues: a NodeClaim's instance types must offer enough distinct values.
#pragma once

#include <cstdint>
#include <span>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

// Whether `types` (catalog indices) still offer `minValues` distinct allowed values for every key
// of `r` that sets it (SatisfiesMinValues).
bool min_values_hold(const Requirements& r, std::span<const std::uint32_t> types,
                     const Catalog& catalog);

}  // namespace fleetsim
