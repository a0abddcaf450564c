// One disruption pass's consolidation candidates, built once for both consolidation methods.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/disruption/candidate_cache.hpp"

namespace fleetsim {

// Multi- and single-node consolidation weigh the same candidates in a pass: a method that finds
// a command ends the pass, so nothing changes between them. The controller starts every pass,
// which drops what an earlier one kept (a command started at an instant reruns at that instant).
class CandidatePass {
 public:
  void start() { ++pass_; }
  // The candidates kept in this pass, or null. A pass runs at one instant.
  const std::vector<Candidate>* kept(SimTime now) const {
    if (kept_pass_ != pass_) return nullptr;
    FLEETSIM_ASSERT(kept_at_ == now);
    return &candidates_;
  }
  const std::vector<Candidate>& keep(SimTime now, std::vector<Candidate> candidates) {
    candidates_ = std::move(candidates);
    kept_pass_ = pass_;
    kept_at_ = now;
    return candidates_;
  }
  // keep() in place: the pass's candidates are built into the returned vector, whose elements'
  // storage the last pass leaves for reuse.
  std::vector<Candidate>& keep_in_place(SimTime now) {
    kept_pass_ = pass_;
    kept_at_ = now;
    return candidates_;
  }
  // What both methods build the candidates from across passes.
  CandidateCache& cache() { return cache_; }

 private:
  std::uint64_t pass_ = 0;
  std::uint64_t kept_pass_ = UINT64_MAX;  // none kept
  SimTime kept_at_{};
  std::vector<Candidate> candidates_;
  CandidateCache cache_;
};

}  // namespace fleetsim
