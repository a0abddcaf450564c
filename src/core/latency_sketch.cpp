#include "fleetsim/core/latency_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace fleetsim {

// The inverse of approx_log2, by bisection on the cubic (quantile queries only).
double LatencySketch::approx_exp2(double l) {
  const double e = std::floor(l);
  const double target = l - e;
  double lo = 0;
  double hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cubic(mid) < target ? lo : hi) = mid;
  }
  return std::ldexp(1.0 + 0.5 * (lo + hi), static_cast<int>(e));
}

LatencySketch::LatencySketch(double relative_accuracy)
    : gamma_((1.0 + relative_accuracy) / (1.0 - relative_accuracy)),
      // d(log2 v)/dL = 1 / ((1 + s) ln2 p'(s)) is largest at s = 0, where it is 1 / (C ln 2) ≈
      // 1.0099: a bucket 1/multiplier wide in L is at most log2(gamma) wide in log2 v. About 1%
      // more buckets than the exact logarithm, for no log() per value.
      multiplier_(1.0 / (kC * std::numbers::ln2 * std::log2(gamma_))) {
  FLEETSIM_ASSERT(relative_accuracy > 0.0 && relative_accuracy < 1.0);
}

// 2·lo·hi/(lo + hi) is within (gamma-1)/(gamma+1), the relative accuracy, of all of (lo, hi].
double LatencySketch::value_of(int bucket) const {
  const double lo = approx_exp2((bucket - 1) / multiplier_);
  const double hi = approx_exp2(bucket / multiplier_);
  return 2.0 * lo * hi / (lo + hi);
}

// The counter of bucket b, growing the dense range to reach it.
std::uint64_t& LatencySketch::slot(int b) {
  if (buckets_.empty()) {
    offset_ = b;
    buckets_.assign(1, 0);
  } else if (b < offset_) {
    buckets_.insert(buckets_.begin(), static_cast<std::size_t>(offset_ - b), 0);
    offset_ = b;
  } else if (b >= offset_ + static_cast<int>(buckets_.size())) {
    buckets_.resize(static_cast<std::size_t>(b - offset_ + 1), 0);
  }
  return buckets_[static_cast<std::size_t>(b - offset_)];
}

void LatencySketch::clear() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  zeros_ = 0;
  count_ = 0;
  sum_ = 0.0;
  min_ = std::numeric_limits<double>::infinity();
  max_ = 0.0;
}

void LatencySketch::merge(const LatencySketch& other) {
  FLEETSIM_ASSERT(gamma_ == other.gamma_);
  if (other.count_ == 0) return;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
  zeros_ += other.zeros_;
  for (std::size_t i = 0; i < other.buckets_.size(); ++i) {
    if (other.buckets_[i] == 0) continue;
    slot(other.offset_ + static_cast<int>(i)) += other.buckets_[i];
  }
}

double LatencySketch::quantile(double q) const {
  if (count_ == 0) return 0.0;
  q = std::clamp(q, 0.0, 1.0);
  const auto rank = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  std::uint64_t seen = zeros_;
  if (rank <= seen) return 0.0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    // Clamped to the exact extremes, which can only make the estimate closer.
    if (rank <= seen) return std::clamp(value_of(offset_ + static_cast<int>(i)), min_, max_);
  }
  return max_;
}

}  // namespace fleetsim
