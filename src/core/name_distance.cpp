#include "fleetsim/core/name_distance.hpp"

#include <algorithm>
#include <vector>

#include "fleetsim/core/ascii_case.hpp"

namespace fleetsim {

namespace {

// Longer names tolerate more typos; a third of the length, at least 1 and at most 3 edits.
std::size_t max_distance(std::string_view typed) {
  return std::clamp<std::size_t>(typed.size() / 3, 1, 3);
}

}  // namespace

// The optimal-string-alignment variant of Damerau-Levenshtein ("hihg" is one typo from "high").
// Inputs are short names, so O(n·m) is fine.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t subst = prev[j - 1] + (ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      if (i > 1 && j > 1 && ascii_lower(a[i - 1]) == ascii_lower(b[j - 2]) &&
          ascii_lower(a[i - 2]) == ascii_lower(b[j - 1])) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string_view> closest_name(std::string_view typed,
                                             std::span<const std::string_view> candidates) {
  if (typed.size() > 256) return std::nullopt;  // no hint is worth quadratic work on junk
  std::optional<std::string_view> best;
  std::size_t best_distance = max_distance(typed) + 1;
  for (std::string_view c : candidates) {
    std::size_t d = edit_distance(typed, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace fleetsim
