// Latency percentiles in flat memory: a DDSketch-style log-bucket histogram with bounded
// relative error, for the millions of requests a serving run records.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

// Every quantile it returns is within `relative_accuracy` of the true value at that rank
// (Masson, Rim & Lee, "DDSketch", VLDB 2019). Values are non-negative (latencies in seconds);
// zero is counted exactly. Memory grows with log(max/min), not with the number of values:
// 1 µs to 10^4 s at 1% takes about 1,160 buckets.
// The accuracy every sketch of a run has; reports state it once for all their quantiles.
inline constexpr double kSketchRelativeAccuracy = 0.01;

class LatencySketch {
 public:
  explicit LatencySketch(double relative_accuracy = kSketchRelativeAccuracy);

  // Inline, always: every served request adds to several sketches, and GCC leaves some of them
  // out of a caller as large as the statistics' record, where a count of 1 known at compile time
  // folds away the count's test, conversion and product.
  [[gnu::always_inline]] void add(double value) { add(value, 1); }
  // The same value into two sketches of one accuracy (a run's and an interval's), its bucket
  // computed once.
  [[gnu::always_inline]] static void add(double value, LatencySketch& a, LatencySketch& b) {
    add(value, 1, a, b);
  }
  // `count` requests of the same value (the fluid serving mode's representative requests).
  [[gnu::always_inline]] void add(double value, std::uint64_t count) {
    FLEETSIM_ASSERT(valid(value));
    if (count == 0) return;
    note(value, count);
    if (value < kSmallestPositive) {
      zeros_ += count;
    } else {
      count_in(bucket_of(value), count);
    }
  }
  [[gnu::always_inline]] static void add(double value, std::uint64_t count, LatencySketch& a,
                                         LatencySketch& b) {
    FLEETSIM_ASSERT(valid(value) && a.multiplier_ == b.multiplier_);
    if (count == 0) return;
    a.note(value, count);
    b.note(value, count);
    if (value < kSmallestPositive) {
      a.zeros_ += count;
      b.zeros_ += count;
    } else {
      const int bucket = a.bucket_of(value);
      a.count_in(bucket, count);
      b.count_in(bucket, count);
    }
  }
  // Empties the sketch, keeping its buckets' memory (for per-interval sketches).
  void clear();
  // Adds another sketch of the same accuracy (per-service sketches into a total).
  void merge(const LatencySketch& other);

  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  double min() const { return count_ ? min_ : 0.0; }
  double max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  // The value at nearest rank ceil(q × count), q in [0, 1]; 0 when empty. The exact min and
  // max are returned at the ends.
  double quantile(double q) const;

 private:
  // Values below this are counted as zero: a nanosecond is far below any simulated latency.
  static constexpr double kSmallestPositive = 1e-9;

  // log2 approximated from the float's bits, as DDSketch's CubicallyInterpolatedIndexMapping
  // does: for v = 2^e (1 + s), s in [0, 1), L(v) = e + p(s) with the cubic
  // p(s) = (A s + B) s² + C s, p(0) = 0 and p(1) = 1, so L is continuous, increasing and exact at
  // powers of two.
  static constexpr double kA = 6.0 / 35.0;
  static constexpr double kB = -3.0 / 5.0;
  static constexpr double kC = 10.0 / 7.0;
  static constexpr double cubic(double s) { return ((kA * s + kB) * s + kC) * s; }
  static double approx_log2(double value) {
    constexpr std::uint64_t kMantissaBits = (std::uint64_t{1} << 52) - 1;
    constexpr std::uint64_t kExponentOfOne = std::uint64_t{1023} << 52;
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const double s = std::bit_cast<double>((bits & kMantissaBits) | kExponentOfOne) - 1.0;
    const auto e = static_cast<int>(bits >> 52) - 1023;  // value > 0: the sign bit is clear
    return e + cubic(s);
  }
  static double approx_exp2(double l);

  // Non-negative and finite: two comparisons, which NaN fails, where std::isfinite adds a mask.
  static bool valid(double value) {
    return value >= 0.0 && value <= std::numeric_limits<double>::max();
  }
  // The exact summaries of every value, zero or not. It and count_in are always inline for the
  // same reason as add.
  [[gnu::always_inline]] void note(double value, std::uint64_t count) {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    count_ += count;
    sum_ += value * static_cast<double>(count);
  }
  // `bucket` is bucket_of(value) for a value of at least kSmallestPositive.
  [[gnu::always_inline]] void count_in(int bucket, std::uint64_t count) {
    const auto i = static_cast<std::size_t>(bucket - offset_);  // wraps above size() below offset_
    if (i < buckets_.size()) {
      buckets_[i] += count;
    } else {
      slot(bucket) += count;
    }
  }

  // Bucket i holds the values with L(v) × multiplier in (i-1, i]. The ceiling is taken by hand:
  // truncation already rounds a negative index up, and std::ceil is a libm call without SSE4.1.
  int bucket_of(double value) const {
    const double x = approx_log2(value) * multiplier_;
    const auto i = static_cast<int>(x);
    return i + static_cast<int>(x > i);
  }
  std::uint64_t& slot(int bucket);
  double value_of(int bucket) const;

  double gamma_;
  double multiplier_;                   // buckets per unit of the approximate log2
  std::vector<std::uint64_t> buckets_;  // buckets_[i] counts bucket index offset_ + i
  int offset_ = 0;
  std::uint64_t zeros_ = 0;
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = 0.0;  // values are non-negative
};

}  // namespace fleetsim
