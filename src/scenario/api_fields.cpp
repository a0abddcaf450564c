#include "fleetsim/scenario/api_fields.hpp"

#include <algorithm>

namespace fleetsim {

bool ApiType::has(std::string_view field) const {
  return open || std::binary_search(fields.begin(), fields.end(), field);
}

const ApiType api::TriggerMetadata{.name = "KEDA trigger's metadata", .fields = {}, .open = true};

}  // namespace fleetsim
