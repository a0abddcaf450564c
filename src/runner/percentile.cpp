#include "fleetsim/runner/percentile.hpp"

#include "fleetsim/core/error.hpp"

namespace fleetsim {

std::int64_t nearest_rank(const std::vector<std::int64_t>& sorted, int percent) {
  FLEETSIM_ASSERT(percent >= 0 && percent <= 100);
  if (sorted.empty()) return 0;
  const auto n = static_cast<std::int64_t>(sorted.size());
  std::int64_t rank = (percent * n + 99) / 100;  // ceil(percent × n / 100)
  if (rank < 1) rank = 1;
  return sorted[static_cast<std::size_t>(rank - 1)];
}

}  // namespace fleetsim
