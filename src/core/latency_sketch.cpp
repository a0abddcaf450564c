#include "fleetsim/core/latency_sketch.hpp"

#include <algorithm>
#include <cmath>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

// Values below this are counted as zero: a nanosecond is far below any simulated latency.
constexpr double kSmallestPositive = 1e-9;

}  // namespace

LatencySketch::LatencySketch(double relative_accuracy)
    : gamma_((1.0 + relative_accuracy) / (1.0 - relative_accuracy)), log_gamma_(std::log(gamma_)) {
  FLEETSIM_ASSERT(relative_accuracy > 0.0 && relative_accuracy < 1.0);
}

// Bucket i holds (gamma^(i-1), gamma^i]; its representative 2·gamma^i/(gamma+1) is within the
// relative accuracy of every value in it.
int LatencySketch::bucket_of(double value) const {
  return static_cast<int>(std::ceil(std::log(value) / log_gamma_));
}

double LatencySketch::value_of(int bucket) const {
  return 2.0 * std::pow(gamma_, bucket) / (gamma_ + 1.0);
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
  min_ = 0.0;
  max_ = 0.0;
}

void LatencySketch::add(double value) {
  FLEETSIM_ASSERT(value >= 0.0 && std::isfinite(value));
  min_ = count_ ? std::min(min_, value) : value;
  max_ = count_ ? std::max(max_, value) : value;
  ++count_;
  sum_ += value;
  if (value < kSmallestPositive) {
    ++zeros_;
    return;
  }
  ++slot(bucket_of(value));
}

void LatencySketch::merge(const LatencySketch& other) {
  FLEETSIM_ASSERT(gamma_ == other.gamma_);
  if (other.count_ == 0) return;
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = count_ ? std::max(max_, other.max_) : other.max_;
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
