#include "fleetsim/serving/fluid_queue.hpp"

#include <algorithm>

namespace fleetsim {

namespace {

// A chunk emptied to within this is gone (the counts are fractions of requests).
constexpr double kEmpty = 1e-9;

// The instant `share` of the way from a to b.
SimTime along(SimTime a, SimTime b, double share) {
  return a + from_seconds(to_seconds(b - a) * share);
}

}  // namespace

void FluidQueue::arrive(SimTime from, SimTime to, double count) {
  if (count > 0) chunks_.push_back({.first = from, .last = to, .count = count});
}

double FluidQueue::size() const {
  double sum = 0;
  for (const Chunk& c : chunks_) sum += c.count;
  return sum;
}

// The newest go first: a chunk gives up the end of its span.
void FluidQueue::trim_to(double most, std::vector<Part>& out) {
  out.clear();
  double excess = size() - most;
  while (excess > 0 && !chunks_.empty()) {
    Chunk& c = chunks_.back();
    const double gone = std::min(excess, c.count);
    const SimTime cut = along(c.last, c.first, gone / c.count);
    out.push_back({.count = gone, .arrival = along(cut, c.last, 0.5)});
    c.last = cut;
    c.count -= gone;
    excess -= gone;
    if (c.count <= kEmpty) chunks_.pop_back();
  }
}

// The oldest go first: a chunk gives up the start of its span.
void FluidQueue::time_out(SimTime cut, std::vector<Part>& out) {
  out.clear();
  while (!chunks_.empty() && chunks_.front().first < cut) {
    Chunk& c = chunks_.front();
    if (c.last <= cut) {
      out.push_back({.count = c.count, .arrival = along(c.first, c.last, 0.5)});
      chunks_.pop_front();
      continue;
    }
    const double gone = c.count * (to_seconds(cut - c.first) / to_seconds(c.last - c.first));
    out.push_back({.count = gone, .arrival = along(c.first, cut, 0.5)});
    c.first = cut;
    c.count -= gone;
    break;
  }
}

double FluidQueue::admit(SimTime from, SimTime to, double free, double rate) {
  admitted_.clear();
  free_ = free;
  rate_ = rate;
  double room = free + rate * to_seconds(to - from), x = 0;
  while (room > 0 && !chunks_.empty()) {
    Chunk& c = chunks_.front();
    const double take = std::min(room, c.count);
    const SimTime split = along(c.first, c.last, take / c.count);
    admitted_.push_back({.x0 = x,
                         .x1 = x + take,
                         .a0 = to_seconds(c.first - from),
                         .a1 = to_seconds(split - from)});
    x += take;
    room -= take;
    c.first = split;
    c.count -= take;
    if (c.count > kEmpty) break;
    chunks_.pop_front();
  }
  admitted_count_ = x;
  return x;
}

double FluidQueue::wait(double u) const {
  const double x = u * admitted_count_;
  const auto part =
      std::find_if(admitted_.begin(), admitted_.end(), [&](const Admitted& a) { return x < a.x1; });
  if (part == admitted_.end()) return 0;
  const double arrival = part->x1 > part->x0 ? part->a0 + (part->a1 - part->a0) * (x - part->x0) /
                                                              (part->x1 - part->x0)
                                             : part->a0;
  const double admitted = rate_ > 0 ? std::max(0.0, x - free_) / rate_ : 0.0;
  return std::max(0.0, admitted - arrival);
}

}  // namespace fleetsim
