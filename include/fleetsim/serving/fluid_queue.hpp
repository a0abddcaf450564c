// The router's queue in the fluid mode (FluidServing): a fluid of requests, first come first
// served. A piece's arrivals form one chunk, spread evenly over the piece; the replicas take from
// the head, their free slots at once and beyond them at their saturation rate, so that the
// request at queue position x is admitted at max(its arrival, from + (x − free) ÷ rate): the
// fluid FIFO queue of the queueing literature (Whitt, "Stochastic-Process Limits", Springer 2002,
// ch. 5). A request's wait is then its own, not the piece's mean: those that arrive behind a
// backlog wait for it, those that find free capacity do not.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

class FluidQueue {
 public:
  // Requests that left the queue together: their count and mean arrival.
  struct Part {
    double count = 0;
    SimTime arrival{};
  };

  // `count` requests arrived evenly over [from, to).
  void arrive(SimTime from, SimTime to, double count);
  double size() const;
  bool empty() const { return chunks_.empty(); }

  // Removes the newest beyond `most` (max_queue) and what arrived before `cut` (a queue_timeout
  // ago), into `out` (cleared first).
  void trim_to(double most, std::vector<Part>& out);
  void time_out(SimTime cut, std::vector<Part>& out);

  // Admits from the head up to `free` at once and `rate` a second over [from, to), first come
  // first served; returns how many. wait() then gives their waits.
  double admit(SimTime from, SimTime to, double free, double rate);
  // The wait of the last admission's request at quantile u of their queue positions, in seconds.
  double wait(double u) const;

  // Each chunk still waiting: its count and mean arrival, oldest first.
  template <typename F>
  void for_each(F f) const {
    for (const Chunk& c : chunks_)
      f(Part{.count = c.count, .arrival = c.first + (c.last - c.first) / 2});
  }

 private:
  struct Chunk {  // `count` requests that arrived evenly over [first, last)
    SimTime first, last;
    double count = 0;
  };
  // What the last admission took of one chunk: queue positions [x0, x1) from the head, which
  // arrived evenly over [a0, a1] seconds from the admission's start.
  struct Admitted {
    double x0 = 0, x1 = 0, a0 = 0, a1 = 0;
  };

  std::deque<Chunk> chunks_;  // arrival order
  std::vector<Admitted> admitted_;
  double admitted_count_ = 0, free_ = 0, rate_ = 0;
};

}  // namespace fleetsim
