// fleetsim's version, as `--version` prints it and report.json records it.
#pragma once

#include <string_view>

namespace fleetsim {

inline constexpr std::string_view kFleetsimVersion = "0.1.0";

}  // namespace fleetsim
