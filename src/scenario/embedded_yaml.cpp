#include "fleetsim/scenario/embedded_yaml.hpp"

#include <fstream>
#include <string>

namespace fleetsim {

TextOrigin text_origin(const YamlValue& value) {
  TextOrigin out{.scalar = value.where()};
  std::ifstream in(out.scalar.file, std::ios::binary);
  std::string line;
  for (int n = 1; n <= out.scalar.line && std::getline(in, line); ++n) {
  }
  const auto col = static_cast<std::size_t>(out.scalar.col);
  if (!in || col == 0 || col > line.size() || line[col - 1] != '|') return out;
  // The block's indentation is its first non-blank line's (no explicit indicator assumed).
  while (std::getline(in, line)) {
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '\r') continue;
    out.indent = static_cast<int>(first);
    break;
  }
  return out;
}

}  // namespace fleetsim
