// The values of a study parameter's range: from, from + step, … up to `to`.
#pragma once

#include <string>
#include <vector>

namespace fleetsim {

// Each value as the shortest text that reads back as itself, after snapping away the binary
// noise of adding steps (0.1 + 0.2 is "0.3"): close values stay distinct (1000000 and 1000001),
// and integers have no exponent or point ("2"), so an integer field reads them. The caller
// bounds the count.
std::vector<std::string> range_texts(double from, double step, std::size_t count);

// How many values the range has (from, from + step, … up to `to`).
double range_count(double from, double to, double step);

}  // namespace fleetsim
