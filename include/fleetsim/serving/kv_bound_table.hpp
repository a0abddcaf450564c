// How an engine whose KV cache binds behaves below saturation, measured, for the fluid mode.
//
// vLLM admits waiting prompts first come, first served, and the head waits until its blocks are
// free: where the cache holds only a few of a heavy-tailed mix's requests, a long prompt holds up
// those behind it, the waits are long and rare, preemptions recompute prompts, and the replica
// serves less than the mean lengths say. No closed form of this queue (a stochastic knapsack
// served in order, its items growing while held) is at hand, and the router changes it (it sends
// each request to the replica with the fewest in flight, so a stalled one gets fewer). So the
// table measures it: the request level's engine (EngineReplica) behind its router
// (run_routed_engines), with Poisson arrivals at a few rates per replica, for 1, 2, 4 and 8
// replicas, and lengths drawn from the service's mix; and the saturation as well. The method is a
// simulation metamodel (Barton & Meckesheimer, "Metamodel-based simulation optimization", Handbooks
// in OR & MS 13, 2006); FluidReplica reads it in place of its closed forms where the cache binds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim {

class RequestMix;

// The most one replica serves, overloaded (requests per second at speed 1), measured on the engine
// behind the router at 1.5 times `near`, the closed forms' estimate. Where the cache binds, the
// closed forms count the mean request's blocks, and long prompts make the cache idle in part.
double measured_saturation(const StepCost& cost, const RequestMix& mix, double near);

class KvBoundTable {
 public:
  KvBoundTable() = default;  // the closed forms stand
  // Rates up to `saturation_rate`, the most a replica serves. Empty unless prompts wait for KV
  // room (at 70 % of it on one replica, more than kMaterialWaiting of the requests on it wait
  // inside the engine).
  KvBoundTable(const StepCost& cost, const RequestMix& mix, double saturation_rate);

  bool empty() const { return saturation_ <= 0; }
  // The rate at which the table reads a replica behind a growing queue (full, as the router keeps
  // it): above the saturation.
  double overloaded_rate() const { return empty() ? 0.0 : rates_.back(); }

  // At `rate` requests per second sent to each replica, with `replicas` Ready behind the router
  // (rates and times at speed 1): the time to first token from when the router sends a request,
  // its mean and its quantile u in [0, 1); below saturation, from its arrival (the router's wait
  // and the engine's come together), and the router's wait alone, at their quantiles;
  // of `held` requests on a replica, how many run (the rest wait for KV room), at its quantile u;
  // the preemptions per request.
  double mean_first_token(double rate, double replicas) const;
  double first_token(double rate, double replicas, double u) const {
    return quantile(rate, replicas, u, Part::FirstToken);
  }
  double time_to_first_token(double rate, double replicas, double u) const {
    return quantile(rate, replicas, u, Part::FromArrival);
  }
  double router_wait(double rate, double replicas, double u) const {
    return quantile(rate, replicas, u, Part::RouterWait);
  }
  double running(double rate, double replicas, std::uint32_t held, double u) const;
  double preemptions(double rate, double replicas) const;

  static constexpr double kMaterialWaiting = 0.01;

 private:
  static constexpr std::size_t kQuantiles = 256;
  static constexpr std::size_t kRunningQuantiles = 8;
  static constexpr std::array<double, 4> kReplicas = {1, 2, 4, 8};
  struct Point {
    double mean_first_token = 0;
    double preemptions = 0;
    // Of n held (n ≤ max_num_seqs), those running at (j + ½) ÷ kRunningQuantiles:
    // running_[running + n kRunningQuantiles + j].
    std::size_t running = 0;
    // At (k + ½) ÷ kQuantiles, each Part's: quantiles_[quantiles + part kQuantiles + k].
    std::size_t quantiles = 0;
  };
  // The time to first token from dispatch, and from arrival; the router's wait.
  enum class Part : std::size_t { FirstToken, FromArrival, RouterWait };
  double quantile(double rate, double replicas, double u, Part part) const;
  struct Corner {
    const Point* point;
    double weight;
  };
  // The four points around (rate, replicas), bilinear in the rate and in 1 ÷ replicas.
  std::array<Corner, 4> corners(double rate, double replicas) const;
  template <typename Field>
  double blend(double rate, double replicas, Field field) const;

  double saturation_ = 0;      // 0: empty
  std::vector<double> rates_;  // ascending
  std::vector<Point> points_;  // replica count major: points_[r × rates_.size() + k]
  std::vector<double> quantiles_;
  std::vector<double> running_;
  std::uint32_t slots_ = 0;  // max_num_seqs
};

}  // namespace fleetsim
