#include "fleetsim/scheduling/min_values.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

namespace fleetsim {

bool min_values_hold(const Requirements& r, std::span<const std::uint32_t> types,
                     const Catalog& catalog) {
  for (const auto& [key, req] : r.entries()) {
    if (!req.min_values()) continue;
    std::vector<std::string_view> seen;
    for (std::uint32_t t : types) {
      const Requirement* label = catalog.types()[t].requirements.get(key);
      std::optional<std::string_view> value = label ? label->single_value() : std::nullopt;
      if (value && req.allows(*value) && std::find(seen.begin(), seen.end(), *value) == seen.end())
        seen.push_back(*value);
    }
    if (static_cast<int>(seen.size()) < *req.min_values()) return false;
  }
  return true;
}

}  // namespace fleetsim
