#include "fleetsim/traffic/traffic_source.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "fleetsim/traffic/token_lengths.hpp"
#include "traffic_checks.hpp"

namespace fleetsim {

namespace {

void validate_one(const TokenDistribution& d, std::string_view name, const SourceLocation& where) {
  const std::string median = fmt::format("tokens.{}.median", name);
  const std::string sigma = fmt::format("tokens.{}.sigma", name);
  traffic_checks::finite(d.median, median, where);
  if (d.median < 0) {
    traffic_checks::fail(where, median, fmt::format("must not be negative, got {}", d.median));
  }
  if (d.median > kMaxTokens) {
    traffic_checks::fail(where, median,
                         fmt::format("must be at most {} tokens, got {}", kMaxTokens, d.median));
  }
  switch (d.shape) {
    case TokenShape::Fixed:
      if (d.median != std::floor(d.median)) {
        traffic_checks::fail(where, median,
                             fmt::format("a fixed count must be a whole number, got {}", d.median));
      }
      break;
    case TokenShape::LogNormal:
      if (d.median < 1) {
        traffic_checks::fail(
            where, median,
            fmt::format("a log-normal median must be at least 1 token, got {}", d.median));
      }
      traffic_checks::finite(d.sigma, sigma, where);
      if (d.sigma < 0) {
        traffic_checks::fail(where, sigma, fmt::format("must not be negative, got {}", d.sigma));
      }
      break;
  }
}

}  // namespace

void validate(const TokenConfig& config, const SourceLocation& where) {
  validate_one(config.input, "input", where);
  validate_one(config.output, "output", where);
}

TokenSampler::TokenSampler(const TokenConfig& config, RngStream rng) : config_(config), rng_(rng) {
  if (!config.file.empty()) file_ = std::make_unique<TokenLengthsFile>(config.file);
}

TokenSampler::~TokenSampler() = default;
TokenSampler::TokenSampler(TokenSampler&&) noexcept = default;
TokenSampler& TokenSampler::operator=(TokenSampler&&) noexcept = default;

Request TokenSampler::from_file(SimTime arrival) {
  const TokenLengths row = file_->next();
  return {.arrival = arrival, .input_tokens = row.input_tokens, .output_tokens = row.output_tokens};
}

RngStream derive_stream(const RngStream& parent, std::string_view part) {
  RngStream copy = parent;
  return RngStream(copy.next_u64(), part);
}

}  // namespace fleetsim
