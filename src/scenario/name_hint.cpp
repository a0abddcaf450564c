#include "fleetsim/scenario/name_hint.hpp"

#include <fmt/format.h>

namespace fleetsim {

std::string did_you_mean(std::string_view typed, std::span<const std::string_view> candidates) {
  if (auto best = closest_name(typed, candidates))
    return fmt::format("; did you mean \"{}\"?", *best);
  return {};
}

std::string first_names(std::span<const std::string> names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

}  // namespace fleetsim
