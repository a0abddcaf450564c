// A table for the terminal: columns padded to their widest cell (UTF-8 aware), the first
// `left_aligned` columns to the left and the others to the right, two spaces apart.
#pragma once

#include <string>
#include <vector>

namespace fleetsim {

std::string text_table(const std::vector<std::vector<std::string>>& rows,
                       std::size_t left_aligned = 1);

}  // namespace fleetsim
