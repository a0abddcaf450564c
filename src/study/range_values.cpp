#include "fleetsim/study/range_values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace fleetsim {

namespace {
constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
}  // namespace

double range_count(double from, double to, double step) {
  return std::floor((to - from) / step + 1e-9) + 1;
}

std::vector<std::string> range_texts(double from, double step, std::size_t count) {
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double x = from + static_cast<double>(i) * step;
    // The fewest significant digits within a billionth of a step of x (or a few units in its
    // last place): neighbours are a whole step apart, so they never snap to the same number.
    double snapped = x;
    for (int digits = 1; digits <= 17; ++digits) {
      const std::string text = fmt::format("{:.{}g}", x, digits);
      double back = 0;
      std::from_chars(text.data(), text.data() + text.size(), back);
      if (std::abs(back - x) <= std::max(step * 1e-9, 4 * kEpsilon * std::abs(x))) {
        snapped = back;
        break;
      }
    }
    out.push_back(fmt::format("{}", snapped));  // the shortest text that reads back as it
  }
  return out;
}

}  // namespace fleetsim
