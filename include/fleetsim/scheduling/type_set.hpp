// A fixed-capacity bitset over catalog instance types, for fast compatibility masks.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

namespace fleetsim {

class TypeSet {
 public:
  TypeSet() = default;
  explicit TypeSet(std::size_t size, bool all = false)
      : words_((size + 63) / 64, all ? ~0ULL : 0ULL), size_(size) {
    if (all && size % 64 != 0) words_.back() = (1ULL << (size % 64)) - 1;
  }
  bool test(std::size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1ULL; }
  void set(std::size_t i) { words_[i >> 6] |= 1ULL << (i & 63); }
  void reset(std::size_t i) { words_[i >> 6] &= ~(1ULL << (i & 63)); }
  TypeSet& operator&=(const TypeSet& o) {
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= o.words_[w];
    return *this;
  }
  std::size_t count() const {
    std::size_t n = 0;
    for (auto w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
  }
  bool none() const {
    for (auto w : words_)
      if (w) return false;
    return true;
  }
  std::size_t size() const { return size_; }
  // Calls f(index) for each member, in increasing index order.
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      for (std::uint64_t bits = words_[w]; bits; bits &= bits - 1)
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    }
  }

 private:
  std::vector<std::uint64_t> words_;
  std::size_t size_ = 0;
};

}  // namespace fleetsim
