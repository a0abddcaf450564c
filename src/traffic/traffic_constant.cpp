#include "fleetsim/traffic/traffic_constant.hpp"

#include <algorithm>
#include <cmath>

#include "traffic_checks.hpp"

namespace fleetsim {

void validate(const ConstantConfig& config) {
  traffic_checks::rate(config.rps, "rps", config.where);
  traffic_checks::time_offset(config.first_arrival, "first_arrival", config.where);
  validate(config.tokens, config.where);
}

ConstantSource::ConstantSource(const ConstantConfig& config, RngStream rng)
    : rps_(config.rps),
      first_(at(config.first_arrival)),
      tokens_(config.tokens, derive_stream(rng, "tokens")) {
  validate(config);
  ended_ = rps_ == 0;
}

SimTime ConstantSource::arrival_of(std::uint64_t i) const {
  // 80-bit long double keeps i·spacing exact to well under a microsecond up to the horizon.
  const long double offset_us = static_cast<long double>(i) * 1e6L / rps_;
  if (offset_us > static_cast<long double>(traffic_checks::kHorizonUs)) return SimTime::max();
  return first_ + micros(std::llround(offset_us));
}

std::optional<Request> ConstantSource::next() {
  if (ended_) return std::nullopt;
  const SimTime t = arrival_of(index_);
  if (t > kTrafficHorizon) {
    ended_ = true;
    return std::nullopt;
  }
  ++index_;
  return tokens_.make(t);
}

void ConstantSource::fast_forward(SimTime t) {
  if (ended_ || t <= first_) return;
  // A guess from the rate, then corrected by at most a step or two either way for rounding.
  const double guess = std::floor(to_seconds(t - first_) * rps_);
  auto i = static_cast<std::uint64_t>(std::max(0.0, guess));
  if (i < index_) i = index_;
  while (arrival_of(i) < t) ++i;
  while (i > index_ && arrival_of(i - 1) >= t) --i;
  index_ = i;
}

std::optional<std::uint64_t> ConstantSource::count_until(SimTime t) {
  const std::uint64_t before = index_;
  fast_forward(t);
  return index_ - before;
}

}  // namespace fleetsim
