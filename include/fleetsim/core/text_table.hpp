// A table for the terminal, as `fleetsim models`, `catalog` and `serving-table` print it: a header
// row, columns two spaces apart, each as wide as its widest cell; names left-aligned, numbers
// right.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim {

template <std::size_t N>
struct TextTable {
  std::array<std::string_view, N> header;
  std::array<bool, N> left{};  // the columns aligned left
  std::vector<std::array<std::string, N>> rows;

  std::string text() const {
    std::array<std::size_t, N> width{};
    for (std::size_t i = 0; i < N; ++i) width[i] = header[i].size();
    for (const auto& row : rows)
      for (std::size_t i = 0; i < N; ++i) width[i] = std::max(width[i], row[i].size());
    std::string out;
    auto print = [&](const auto& row) {
      std::string line;
      for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) line += "  ";
        line += left[i] ? fmt::format("{:<{}}", row[i], width[i])
                        : fmt::format("{:>{}}", row[i], width[i]);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + '\n';
    };
    print(header);
    for (const auto& row : rows) print(row);
    return out;
  }
};

}  // namespace fleetsim
