#include "fleetsim/traffic/traffic_batch.hpp"

#include <fmt/format.h>

#include "traffic_checks.hpp"

namespace fleetsim {

void validate(const BatchConfig& config) {
  if (config.requests < 1 || config.requests > kMaxBatchRequests) {
    traffic_checks::fail(
        config.where, "requests",
        fmt::format("must be between 1 and {}, got {}", kMaxBatchRequests, config.requests));
  }
  traffic_checks::time_offset(config.at, "at", config.where);
  validate(config.tokens, config.where);
}

BatchSource::BatchSource(const BatchConfig& config, RngStream rng)
    : at_(at(config.at)),
      left_(config.requests),
      tokens_(config.tokens, derive_stream(rng, "tokens")) {
  validate(config);
}

std::optional<Request> BatchSource::next() {
  if (left_ == 0) return std::nullopt;
  --left_;
  return tokens_.make(at_);
}

}  // namespace fleetsim
