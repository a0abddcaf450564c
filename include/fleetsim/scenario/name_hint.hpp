// "Did you mean …?" hints for misspelt keys and enumeration values.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fleetsim {

// Edit distance with case folded, a swap of neighbours counting as one edit (optimal string
// alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `typed` by edit distance (case-insensitive), when close enough to be
// a plausible typo; nullopt otherwise.
std::optional<std::string_view> closest_name(std::string_view typed,
                                             std::span<const std::string_view> candidates);

// "; did you mean \"x\"?" or an empty string, ready to append to a message.
std::string did_you_mean(std::string_view typed, std::span<const std::string_view> candidates);

// The first `shown` names joined by ", ", then " and N more": "a, b, c and 2 more".
std::string first_names(std::span<const std::string> names, std::size_t shown = 5);

}  // namespace fleetsim
