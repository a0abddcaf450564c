#include "fleetsim/core/name_generator.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
constexpr std::size_t kUniqueSuffixLength = 5;

}  // namespace

std::string NameGenerator::suffix(std::size_t length) {
  std::string s;
  s.reserve(length);
  for (std::size_t i = 0; i < length; ++i) s += kAlphabet[stream_.below(kAlphabet.size())];
  return s;
}

std::string NameGenerator::unique(std::string_view prefix) {
  while (true) {
    std::string name = std::string(prefix) + '-' + suffix(kUniqueSuffixLength);
    auto it = std::lower_bound(used_.begin(), used_.end(), name);
    if (it != used_.end() && *it == name) continue;
    used_.insert(it, name);
    return name;
  }
}

}  // namespace fleetsim
