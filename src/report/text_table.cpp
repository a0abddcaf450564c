#include "fleetsim/report/text_table.hpp"

#include <algorithm>
#include <string_view>

namespace fleetsim {

namespace {

// Terminal columns of UTF-8 text ("±" is one).
std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

std::string text_table(const std::vector<std::vector<std::string>>& rows,
                       std::size_t left_aligned) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (std::size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], display_width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - display_width(row[c]), ' ');
      if (c > 0) line += "  ";
      line += c < left_aligned ? row[c] + pad : pad + row[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace fleetsim
