// Latency percentiles in flat memory: a DDSketch-style log-bucket histogram with bounded
// relative error, for the millions of requests a serving run records.
#pragma once

#include <cstdint>
#include <vector>

namespace fleetsim {

// Every quantile it returns is within `relative_accuracy` of the true value at that rank
// (Masson, Rim & Lee, "DDSketch", VLDB 2019). Values are non-negative (latencies in seconds);
// zero is counted exactly. Memory grows with log(max/min), not with the number of values:
// 1 µs to 10^4 s at 1% takes about 1,150 buckets.
class LatencySketch {
 public:
  explicit LatencySketch(double relative_accuracy = 0.01);

  void add(double value);
  // Empties the sketch, keeping its buckets' memory (for per-interval sketches).
  void clear();
  // Adds another sketch of the same accuracy (per-service sketches into a total).
  void merge(const LatencySketch& other);

  std::uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  double min() const { return count_ ? min_ : 0.0; }
  double max() const { return count_ ? max_ : 0.0; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  // The value at nearest rank ceil(q × count), q in [0, 1]; 0 when empty. The exact min and
  // max are returned at the ends.
  double quantile(double q) const;

 private:
  int bucket_of(double value) const;
  std::uint64_t& slot(int bucket);
  double value_of(int bucket) const;

  double gamma_;
  double log_gamma_;
  std::vector<std::uint64_t> buckets_;  // buckets_[i] counts bucket index offset_ + i
  int offset_ = 0;
  std::uint64_t zeros_ = 0;
  std::uint64_t count_ = 0;
  double sum_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
};

}  // namespace fleetsim
