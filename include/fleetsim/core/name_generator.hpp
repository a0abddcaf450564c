// Generated object names, as Kubernetes' generateName makes them: a random suffix from its
// alphabet (no vowels, no look-alike characters), drawn from a seeded stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/rng.hpp"

namespace fleetsim {

class NameGenerator {
 public:
  explicit NameGenerator(RngStream stream) : stream_(std::move(stream)) {}

  // `length` random characters.
  std::string suffix(std::size_t length);
  // "<prefix>-<5 characters>", never a name it made before (NodeClaims, Auto Scaling group
  // instances).
  std::string unique(std::string_view prefix);

 private:
  RngStream stream_;
  std::vector<std::string> used_;  // sorted
};

// A random (version 4) UUID in its canonical form, "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" with y
// one of 8, 9, a, b: what the API server gives an object's metadata.uid
// (apimachinery/pkg/util/uuid.NewUUID, google/uuid's New), drawn from a seeded stream.
std::string random_uuid(RngStream& stream);

}  // namespace fleetsim
