// "Did you mean …?" hints for misspelt keys and enumeration values.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fleetsim/core/name_distance.hpp"

namespace fleetsim {

// "; did you mean \"x\"?" or an empty string, ready to append to a message.
std::string did_you_mean(std::string_view typed, std::span<const std::string_view> candidates);

// The first `shown` names joined by ", ", then " and N more": "a, b, c and 2 more".
std::string first_names(std::span<const std::string> names, std::size_t shown = 5);

}  // namespace fleetsim
