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

std::string random_uuid(RngStream& stream) {
  constexpr std::string_view kHex = "0123456789abcdef";
  std::uint64_t hi = stream.next_u64();
  std::uint64_t lo = stream.next_u64();
  // RFC 4122 §4.4: version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
  hi = (hi & ~(0xFULL << 12)) | (0x4ULL << 12);
  lo = (lo & ~(0x3ULL << 62)) | (0x2ULL << 62);
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    const std::uint64_t word = i < 16 ? hi : lo;
    const int shift = 60 - 4 * (i % 16);
    out += kHex[(word >> shift) & 0xF];
  }
  return out;
}

}  // namespace fleetsim
