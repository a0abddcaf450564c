#include "fleetsim/serving/ready_replicas.hpp"

#include <algorithm>
#include <bit>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

constexpr std::size_t kBits = 64;

std::uint64_t below(std::size_t bit) { return (std::uint64_t{1} << bit) - 1; }

// Bits at positions >= k move up by one; position k becomes clear. The top bit must be clear.
void open_gap(std::uint64_t* words, std::size_t n, std::size_t k) {
  const std::size_t w = k / kBits;
  for (std::size_t i = n - 1; i > w; --i) words[i] = (words[i] << 1) | (words[i - 1] >> 63);
  const std::uint64_t low = words[w] & below(k % kBits);
  words[w] = low | ((words[w] & ~below(k % kBits)) << 1);
}

// Bit k goes; bits above it move down by one.
void close_gap(std::uint64_t* words, std::size_t n, std::size_t k) {
  const std::size_t w = k / kBits;
  const std::uint64_t low = words[w] & below(k % kBits);
  words[w] = low | ((words[w] >> 1) & ~below(k % kBits));
  for (std::size_t i = w; i + 1 < n; ++i) {
    words[i] |= words[i + 1] << 63;
    words[i + 1] >>= 1;
  }
}

}  // namespace

ReadyReplicas::ReadyReplicas(std::uint32_t max_in_flight)
    : levels_(max_in_flight + 1),
      bits_(static_cast<std::size_t>(levels_) * words_, 0),
      count_(levels_, 0),
      nonempty_((levels_ + kBits - 1) / kBits, 0) {}

void ReadyReplicas::set(std::uint32_t in_flight, std::size_t rank) {
  level(in_flight)[rank / kBits] |= std::uint64_t{1} << (rank % kBits);
  if (count_[in_flight]++ == 0)
    nonempty_[in_flight / kBits] |= std::uint64_t{1} << (in_flight % kBits);
}

void ReadyReplicas::clear(std::uint32_t in_flight, std::size_t rank) {
  level(in_flight)[rank / kBits] &= ~(std::uint64_t{1} << (rank % kBits));
  if (--count_[in_flight] == 0) {
    nonempty_[in_flight / kBits] &= ~(std::uint64_t{1} << (in_flight % kBits));
  }
}

// One more word per level, so that a rank can be added without losing the top bit.
void ReadyReplicas::grow() {
  std::vector<std::uint64_t> bigger(static_cast<std::size_t>(levels_) * (words_ + 1), 0);
  for (std::uint32_t l = 0; l < levels_; ++l)
    std::copy_n(&bits_[l * words_], words_, &bigger[l * (words_ + 1)]);
  bits_ = std::move(bigger);
  ++words_;
}

void ReadyReplicas::insert(std::uint32_t replica, ReplicaId id, std::uint32_t in_flight) {
  FLEETSIM_ASSERT(in_flight < levels_);
  if (by_rank_.size() + 1 >= words_ * kBits) grow();
  const auto rank =
      static_cast<std::size_t>(std::lower_bound(ids_.begin(), ids_.end(), id) - ids_.begin());
  ids_.insert(ids_.begin() + static_cast<std::ptrdiff_t>(rank), id);
  by_rank_.insert(by_rank_.begin() + static_cast<std::ptrdiff_t>(rank), replica);
  if (replica >= rank_of_.size()) rank_of_.resize(replica + 1);
  for (std::size_t r = rank; r < by_rank_.size(); ++r)
    rank_of_[by_rank_[r]] = static_cast<std::uint32_t>(r);
  for (std::uint32_t l = 0; l < levels_; ++l) {
    if (count_[l] > 0) open_gap(level(l), words_, rank);
  }
  set(in_flight, rank);
}

void ReadyReplicas::remove(std::uint32_t replica, std::uint32_t in_flight) {
  const std::size_t rank = rank_of_[replica];
  FLEETSIM_ASSERT(rank < by_rank_.size() && by_rank_[rank] == replica);
  clear(in_flight, rank);
  for (std::uint32_t l = 0; l < levels_; ++l) {
    if (count_[l] > 0) close_gap(level(l), words_, rank);
  }
  ids_.erase(ids_.begin() + static_cast<std::ptrdiff_t>(rank));
  by_rank_.erase(by_rank_.begin() + static_cast<std::ptrdiff_t>(rank));
  for (std::size_t r = rank; r < by_rank_.size(); ++r)
    rank_of_[by_rank_[r]] = static_cast<std::uint32_t>(r);
}

void ReadyReplicas::move(std::uint32_t replica, std::uint32_t from, std::uint32_t to) {
  FLEETSIM_ASSERT(to < levels_);
  const std::size_t rank = rank_of_[replica];
  clear(from, rank);
  set(to, rank);
}

ReadyReplicas::Choice ReadyReplicas::best() const {
  FLEETSIM_ASSERT(!empty());
  std::size_t l = 0;
  while (nonempty_[l] == 0) ++l;
  const auto in_flight = static_cast<std::uint32_t>(
      l * kBits + static_cast<std::size_t>(std::countr_zero(nonempty_[l])));
  const std::uint64_t* words = &bits_[in_flight * words_];
  std::size_t w = 0;
  while (words[w] == 0) ++w;
  const std::size_t rank = w * kBits + static_cast<std::size_t>(std::countr_zero(words[w]));
  return {.replica = by_rank_[rank], .in_flight = in_flight};
}

}  // namespace fleetsim
