#include "fleetsim/service/closed_loop_traffic.hpp"

#include <algorithm>

#include "fleetsim/core/saturate.hpp"

namespace fleetsim {

ClosedLoopTraffic::ClosedLoopTraffic(Simulation& sim, ServingModel& model,
                                     const ClosedConfig& config, RngStream rng)
    : sim_(sim),
      model_(model),
      users_(config.users),
      think_time_(config.think_time),
      think_shape_(config.think),
      limit_(config.requests),
      tokens_(config.tokens, derive_stream(rng, "tokens")),
      think_rng_(derive_stream(rng, "think")) {
  validate(config);
}

void ClosedLoopTraffic::start() {
  for (std::int64_t u = 0; u < users_; ++u) schedule(sim_.now());
}

void ClosedLoopTraffic::on_request_done(SimTime ended) {
  schedule(std::max(sim_.now(), saturating_add(ended, think())));
}

void ClosedLoopTraffic::schedule(SimTime when) {
  if (limit_ && scheduled_ >= *limit_) return;
  ++scheduled_;
  sim_.schedule_at(when, Phase::Workload, *this);
}

SimDuration ClosedLoopTraffic::think() {
  if (think_shape_ == ThinkShape::Fixed || think_time_ == SimDuration::zero()) return think_time_;
  const double us = think_rng_.exponential(static_cast<double>(think_time_.count()));
  // Capped at a thousand means, so no draw reaches the clock's end.
  return micros(round_to_int64(std::min(us, 1000.0 * static_cast<double>(think_time_.count()))));
}

void ClosedLoopTraffic::on_event(SimTime now, std::uint64_t tag) {
  static_cast<void>(tag);
  ++sent_;
  const Request r = tokens_.make(now);
  model_.arrive(r.input_tokens, r.output_tokens);
}

}  // namespace fleetsim
