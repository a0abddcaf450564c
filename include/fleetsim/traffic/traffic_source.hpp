// The traffic-source interface: a stream of request arrivals with their token counts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/rng.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/traffic/traffic_config.hpp"

namespace fleetsim {

// One request to a service: when it arrives and how many tokens it reads and writes.
struct Request {
  SimTime arrival;
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;

  friend bool operator==(const Request&, const Request&) = default;
};

// Sources end here even when their pattern does not, which keeps microsecond arithmetic far from
// int64 overflow (2^63 µs is 292,000 years). A century is longer than any simulated horizon.
inline constexpr SimTime kTrafficHorizon = at(hours(24 * 365 * 100));

// A stream of requests in arrival order. Implementations generate one request per call from
// constant state: no allocation and no std::function per request (DESIGN.md §3), and a trace is
// read a line at a time, so memory stays flat in trace length.
//
// Every source draws from the RngStream it was built with and nothing else: the same stream
// gives the same requests.
class TrafficSource {
 public:
  virtual ~TrafficSource() = default;

  // The next request; arrival times never decrease. nullopt once the source has ended (a trace
  // replayed without looping, a zero rate, or kTrafficHorizon) and on every call after that.
  virtual std::optional<Request> next() = 0;

  // Tells the source that its caller will discard every arrival before `t`. A source whose
  // future does not depend on what it skips (a Poisson process, a constant lattice) jumps there;
  // the others ignore the hint and the caller discards. Used by the surge pattern's extra copies.
  virtual void fast_forward(SimTime t) { static_cast<void>(t); }

  // For the fluid mode, which counts arrivals rather than serving them: takes every arrival
  // before `t` that next() has not yielded and returns how many there were, without drawing
  // their token counts; next() then goes on from t. A Poisson process draws the count at once
  // (over an interval it is Poisson with mean ∫λ, and the process after t does not depend on
  // it); a lattice computes it. nullopt from the other sources, whose arrivals the caller must
  // step through with next(). An MMPP is stepped too, although each of its states is a Poisson
  // process: its bursts (the state path), not the Poisson noise, are what sets a run's load, and
  // stepping keeps them those of a request-level run of the same seed.
  virtual std::optional<std::uint64_t> count_until(SimTime t) {
    static_cast<void>(t);
    return std::nullopt;
  }
  // The mean of the count count_until(t) draws (∫λ from where the source stands to t), for a
  // source that draws it; nullopt from the others. Call it first: count_until moves the source.
  virtual std::optional<double> expected_until(SimTime t) const {
    static_cast<void>(t);
    return std::nullopt;
  }

 protected:
  TrafficSource() = default;
  TrafficSource(const TrafficSource&) = default;
  TrafficSource& operator=(const TrafficSource&) = default;
};

class TokenLengthsFile;

// Draws token counts from a stream of their own, so a change of token distribution leaves the
// arrival times of the same seed unchanged. Log-normal draws are rounded to the nearest whole
// token and clamped to [1, kMaxTokens]. Fixed counts draw nothing. With config.file, the counts
// are the file's rows in order, cycled, and nothing is drawn.
class TokenSampler {
 public:
  // `config` must be valid (see validate). Opens config.file, if any: throws TraceError with
  // file:line:col for a missing or malformed one.
  TokenSampler(const TokenConfig& config, RngStream rng);
  ~TokenSampler();
  TokenSampler(TokenSampler&&) noexcept;
  TokenSampler& operator=(TokenSampler&&) noexcept;

  // A request at `arrival` with freshly drawn input then output tokens. Inline, as are the
  // draws: a source makes one per arrival.
  [[gnu::always_inline]] Request make(SimTime arrival) {
    if (file_) return from_file(arrival);
    const std::uint32_t input = draw(config_.input);  // input first: the stream's order
    return {.arrival = arrival, .input_tokens = input, .output_tokens = draw(config_.output)};
  }

 private:
  Request from_file(SimTime arrival);
  [[gnu::always_inline]] std::uint32_t draw(const TokenDistribution& d) {
    if (d.shape == TokenShape::Fixed) return static_cast<std::uint32_t>(d.median);
    const double v = rng_.lognormal(d.median, d.sigma);
    if (!(v < kMaxTokens)) return kMaxTokens;  // also catches +inf
    // v is in [0, kMaxTokens) here (median >= 1, exp >= 0), where rounding half away from zero
    // is truncation and a test of the exact fraction: round_to_int64 without its range checks.
    const auto whole = static_cast<std::uint32_t>(v);
    const std::uint32_t n =
        whole + static_cast<std::uint32_t>(v - static_cast<double>(whole) >= 0.5);
    return n < 1 ? 1 : n;
  }

  TokenConfig config_;
  RngStream rng_;
  std::unique_ptr<TokenLengthsFile> file_;
};

// An independent stream for one part of a source (its tokens, a surge copy), derived from the
// source's stream without advancing it: the parent still yields exactly what it would have.
RngStream derive_stream(const RngStream& parent, std::string_view part);

}  // namespace fleetsim
