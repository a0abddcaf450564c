// What a scenario says about a service's traffic: each pattern's options and the token counts of
// its requests. Plain data and its checks, read by the scenario and by the traffic sources.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <variant>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"

namespace fleetsim {

// The clock ticks in microseconds: above a million requests per second most arrivals would share
// a tick, and no single service sees such a rate. A larger rate is a unit mistake.
inline constexpr double kMaxTrafficRps = 1e6;

// ---- Token counts for the synthetic patterns ----------------------------------------------------

enum class TokenShape : std::uint8_t { Fixed, LogNormal };

// How many tokens a synthetic request carries.
struct TokenDistribution {
  TokenShape shape = TokenShape::Fixed;
  double median = 0;  // Fixed: the count itself (a whole number); LogNormal: the median
  double sigma = 0;   // LogNormal: the standard deviation of ln(tokens)

  static constexpr TokenDistribution fixed(double count) {
    return {.shape = TokenShape::Fixed, .median = count};
  }
  static constexpr TokenDistribution lognormal(double median, double sigma) {
    return {.shape = TokenShape::LogNormal, .median = median, .sigma = sigma};
  }
};

// Medians of the Azure LLM inference trace 2023, conversation service (ContextTokens 1020,
// GeneratedTokens 129; ../shared/data/SOURCES.md §3): a chat request, by default.
inline constexpr double kDefaultInputTokens = 1020;
inline constexpr double kDefaultOutputTokens = 129;
// 2^20: above the longest context window offered by any model (about a million tokens), so a
// larger count is a unit mistake. Log-normal draws are clamped here.
inline constexpr std::uint32_t kMaxTokens = 1u << 20;

struct TokenConfig {
  TokenDistribution input = TokenDistribution::fixed(kDefaultInputTokens);
  TokenDistribution output = TokenDistribution::fixed(kDefaultOutputTokens);
  // Non-empty: each request's counts are the next row of this CSV (token_lengths.hpp), read in
  // order and from the top again at its end; `input` and `output` are then unused.
  std::filesystem::path file;
};

// Throws ConfigError at `where` (fields "tokens.input.median" and so on) if a distribution is
// malformed: negative, non-finite or above kMaxTokens; a fixed count that is not whole; a
// log-normal with a median below 1 or a negative sigma. Does not read `file`.
void validate(const TokenConfig& config, const SourceLocation& where);

// ---- Constant (traffic_constant.hpp) ------------------------------------------------------------

struct ConstantConfig {
  double rps = 0;               // requests per second; 0: no requests
  SimDuration first_arrival{};  // when the first request arrives
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: a negative, non-finite or absurd rate (above
// kMaxTrafficRps), a negative first arrival, or bad tokens.
void validate(const ConstantConfig& config);

// ---- Poisson (traffic_poisson.hpp) --------------------------------------------------------------

struct PoissonConfig {
  double rps = 0;  // mean requests per second; 0: no requests
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: a negative, non-finite or absurd rate (above
// kMaxTrafficRps), or bad tokens.
void validate(const PoissonConfig& config);

// ---- Diurnal (traffic_diurnal.hpp) --------------------------------------------------------------

// Chosen, not measured: interactive traffic peaks in the early afternoon of its users' day. Set
// peak_hour from your own traffic.
inline constexpr double kDefaultPeakHour = 14.0;

struct DiurnalConfig {
  double mean_rps = 0;        // the rate averaged over a day; 0: no requests
  double peak_to_trough = 1;  // the peak rate over the trough rate; ≥ 1 (1: plain Poisson)
  double peak_hour = kDefaultPeakHour;  // the UTC hour of the peak, in [0, 24)
  double start_hour = 0;  // the UTC hour of day at t = 0 (the scenario's start), in [0, 24)
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: a negative, non-finite or absurd mean rate, a
// peak_to_trough below 1 or not finite, a peak_hour outside [0, 24), or bad tokens.
void validate(const DiurnalConfig& config);

// ---- MMPP (traffic_mmpp.hpp) --------------------------------------------------------------------

// A mean sojourn under a millisecond is finer than any metrics window can see, and most likely
// microseconds written for milliseconds.
inline constexpr SimDuration kMinMmppSojourn = millis(1);

// Stationary: draw the first state with its long-run probability, so the process is stationary
// from t = 0.
enum class MmppStart : std::uint8_t { Stationary, Quiet, Burst };

struct MmppConfig {
  double quiet_rps = 0;      // Poisson rate while quiet (0 allowed: on/off traffic)
  double burst_rps = 0;      // Poisson rate while bursting
  SimDuration mean_quiet{};  // mean time in the quiet state (exponentially distributed), > 0
  SimDuration mean_burst{};  // mean time in the burst state, > 0
  MmppStart start = MmppStart::Stationary;
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: negative, non-finite or absurd rates; sojourns under
// kMinMmppSojourn; rates so low against the sojourns that the source would switch state more
// than a million times per request (it would crawl); bad tokens.
void validate(const MmppConfig& config);

// ---- Replay (traffic_replay.hpp) ----------------------------------------------------------------

// Scale factors outside [1/1000, 1000] mean the wrong trace (or a unit mistake); the lower
// bound on rate_scale also keeps thinning from reading a thousand rows per request.
inline constexpr double kMinReplayScale = 1e-3;
inline constexpr double kMaxReplayScale = 1e3;

struct ReplayConfig {
  std::filesystem::path trace;
  // Multiplies the trace's time: 2 plays it at half speed, 0.5 at double speed.
  double time_scale = 1;
  // Multiplies the number of requests while keeping the trace's timeline (its peaks stay where
  // they are): each row is replayed floor(r) times, plus once more with probability r − floor(r).
  // Copies of a row arrive together with the same tokens. 0.5 keeps about half the rows.
  double rate_scale = 1;
  // Start at this trace time: earlier rows are skipped, and this moment maps to `start`.
  SimDuration trace_offset{};
  // The simulated time at which the replay begins (the trace's offset moment arrives here).
  SimDuration start{};
  // At the end, start again from trace_offset, time continuing, for ever (up to kTrafficHorizon).
  bool loop = false;
  // Trace time from one loop's start to the next. Default: from trace_offset to the last row,
  // plus the mean gap between the replayed rows, so the seam keeps the trace's mean rate.
  std::optional<SimDuration> loop_period;
  // The run's length: rows arriving after it are counted in the summary, for a warning.
  std::optional<SimDuration> run_end;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where for bad options (scales outside their range, negative
// offsets, a non-positive loop_period). Does not read the trace.
void validate(const ReplayConfig& config);

// ---- Surge (traffic_surge.hpp) ------------------------------------------------------------------

// A surge above a hundred times the base rate is a unit mistake; the bound also caps the copies
// the surge runs (one per unit of factor).
inline constexpr double kMaxSurgeFactor = 100;

// The patterns a surge can be laid over.
using BaseTrafficConfig =
    std::variant<ConstantConfig, PoissonConfig, DiurnalConfig, MmppConfig, ReplayConfig>;

// The multiplier f(t) is 1 until `start`, rises linearly to `factor` over `ramp_up`, holds for
// `duration`, falls linearly back to 1 over `ramp_down`, and is 1 from then on. A factor below 1
// is a dip.
struct SurgeConfig {
  BaseTrafficConfig base;
  double factor = 1;
  SimDuration start{};
  SimDuration ramp_up{};
  SimDuration duration{};  // at the full factor, between the ramps
  SimDuration ramp_down{};
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: a factor that is negative, not finite or above
// kMaxSurgeFactor; a negative start, ramp or duration; and whatever the base's validate throws.
void validate(const SurgeConfig& config);

// ---- Batch (traffic_batch.hpp) ------------------------------------------------------------------

// Each request of a batch waits in the serving model's queue; ten million of them is far beyond
// any offline benchmark (vLLM's runs a thousand or so), so more is a unit mistake.
inline constexpr std::int64_t kMaxBatchRequests = 10'000'000;

// `requests` requests all arriving at `at`: offline throughput, as vLLM's benchmark_throughput
// and trtllm-bench measure it.
struct BatchConfig {
  std::int64_t requests = 0;  // > 0
  SimDuration at{};           // from the scenario's start
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: requests outside [1, kMaxBatchRequests], a negative or
// absurd `at`, or bad tokens.
void validate(const BatchConfig& config);

// ---- Closed loop (run by the service module's ClosedLoopTraffic) --------------------------------

// Each user holds an event or a request in the system; a million of them is beyond any load
// generator's concurrency, so more is a unit mistake.
inline constexpr std::int64_t kMaxClosedUsers = 1'000'000;

// How long a user thinks between the end of one request and the sending of its next.
enum class ThinkShape : std::uint8_t { Fixed, Exponential };

// `users` clients, each with one request at a time (vLLM's benchmark --max-concurrency,
// genai-perf's --concurrency). Every user sends its first request at the scenario's start and
// each next one a think time after its previous one ended, served or dropped. Not a
// TrafficSource: its arrivals depend on the service's completions.
struct ClosedConfig {
  std::int64_t users = 0;    // > 0
  SimDuration think_time{};  // ≥ 0; the mean when exponential; 0 as the benchmarks run
  ThinkShape think = ThinkShape::Fixed;
  std::optional<std::int64_t> requests;  // requests sent in all, then no more; nullopt: no end
  TokenConfig tokens;
  SourceLocation where;  // the scenario entry this came from, for messages
};

// Throws ConfigError at config.where: users outside [1, kMaxClosedUsers], a negative or absurd
// think_time, requests below 1, or bad tokens.
void validate(const ClosedConfig& config);

// ---- Every pattern ------------------------------------------------------------------------------

// A service's `traffic`: one of the patterns.
using TrafficConfig = std::variant<ConstantConfig, PoissonConfig, DiurnalConfig, SurgeConfig,
                                   MmppConfig, ReplayConfig, BatchConfig, ClosedConfig>;

// The token settings of a pattern (a surge's: its base's), or null for a replay, whose trace
// holds its tokens.
const TokenConfig* tokens_of(const TrafficConfig& config);

}  // namespace fleetsim
