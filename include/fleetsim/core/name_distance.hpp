// How far a typed name is from the names it may have meant, for "did you mean" hints in any
// module (scenario keys, trace columns).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace fleetsim {

// Edit distance with case folded, a swap of neighbours counting as one edit (optimal string
// alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `typed` by edit distance (case-insensitive), when close enough to be
// a plausible typo; nullopt otherwise.
std::optional<std::string_view> closest_name(std::string_view typed,
                                             std::span<const std::string_view> candidates);

}  // namespace fleetsim
