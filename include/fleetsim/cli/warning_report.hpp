// How a command shows the warnings of a scenario's load (--warnings).
#pragma once

#include <optional>
#include <ostream>
#include <string_view>
#include <vector>

#include "fleetsim/scenario/scenario_config.hpp"

namespace fleetsim {

enum class WarningDetail {
  Auto,     // every warning when there are at most kWarningsShownInFull, else Summary
  All,      // every warning with its file:line:col
  Summary,  // behaviour warnings in full; unmodelled fields as one line naming them
  None,
};

inline constexpr std::size_t kWarningsShownInFull = 5;

// "all" | "summary" | "none"; nullopt for anything else.
std::optional<WarningDetail> parse_warning_detail(std::string_view text);

void print_warnings(const std::vector<Warning>& warnings, WarningDetail detail, std::ostream& out);

}  // namespace fleetsim
