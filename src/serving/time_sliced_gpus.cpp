#include "fleetsim/serving/time_sliced_gpus.hpp"

#include <algorithm>

#include "fleetsim/core/error.hpp"
#include "fleetsim/serving/gpu_share.hpp"

namespace fleetsim {

TimeSlicedGpus::Handle TimeSlicedGpus::join(const TimeSliceSeat& seat) {
  FLEETSIM_ASSERT(seat.node_gpus > 0);
  // distributedAlloc: the GPU with the fewest replicas allocated, the lowest index among equals.
  std::uint32_t best = kNone;
  std::size_t fewest = 0;
  for (std::uint32_t g = 0; g < seat.node_gpus; ++g) {
    auto [it, added] =
        group_of_.try_emplace({seat.node, g}, static_cast<std::uint32_t>(groups_.size()));
    if (added) groups_.push_back({.gpu = g});
    const std::size_t allocated = groups_[it->second].members.size();
    if (best == kNone || allocated < fewest) {
      best = it->second;
      fewest = allocated;
    }
  }
  Handle h = free_;
  if (h != kNone) {
    free_ = members_[h].next_free;
  } else {
    h = static_cast<Handle>(members_.size());
    members_.emplace_back();
  }
  Group& group = groups_[best];
  members_[h] = Member{.group = best};
  group.members.push_back(h);
  return h;
}

void TimeSlicedGpus::leave(Handle h) {
  Member& m = members_[h];
  FLEETSIM_ASSERT(m.group != kNone && !m.busy);
  std::vector<Handle>& members = groups_[m.group].members;
  members.erase(std::find(members.begin(), members.end(), h));
  m = Member{.next_free = free_};
  free_ = h;
}

void TimeSlicedGpus::attach(Handle h, TimeSliceClient& client, std::uint32_t key) {
  Member& m = members_[h];
  FLEETSIM_ASSERT(m.group != kNone && m.client == nullptr);
  m.client = &client;
  m.key = key;
  m.speed = 1.0;
}

void TimeSlicedGpus::detach(Handle h) {
  Member& m = members_[h];
  FLEETSIM_ASSERT(!m.busy);
  m.client = nullptr;
  m.share = 0;
}

double TimeSlicedGpus::memory_of_others(Handle h) const {
  double sum = 0;
  for (const Handle other : groups_[members_[h].group].members)
    if (other != h) sum += members_[other].memory;
  return sum;
}

void TimeSlicedGpus::set_busy(Handle h, bool busy, SimTime now) {
  Member& m = members_[h];
  if (m.busy == busy) return;
  m.busy = busy;
  m.share = busy ? 1.0 : 0.0;
  Group& group = groups_[m.group];
  group.busy = busy ? group.busy + 1 : group.busy - 1;
  // Only replicas with work hear it: an idle one's speed matters from when it has work, and
  // it hears it then.
  const double speed = time_sliced_speed(static_cast<int>(group.busy));
  for (const Handle other : group.members) {
    Member& o = members_[other];
    if (!o.busy || speed == o.speed) continue;
    o.speed = speed;
    o.client->on_speed(o.key, speed, now);
  }
}

double TimeSlicedGpus::expected_speed(Handle h) const {
  const Group& group = groups_[members_[h].group];
  // P(B = k) over the others, one at a time.
  scratch_.assign(group.members.size(), 0.0);
  scratch_[0] = 1.0;
  std::size_t others = 0;
  for (const Handle other : group.members) {
    if (other == h) continue;
    const double p = std::clamp(members_[other].share, 0.0, 1.0);
    ++others;
    for (std::size_t k = others; k > 0; --k)
      scratch_[k] = scratch_[k] * (1 - p) + scratch_[k - 1] * p;
    scratch_[0] *= 1 - p;
  }
  double speed = 0;
  for (std::size_t k = 0; k <= others; ++k)
    speed += scratch_[k] * time_sliced_speed(static_cast<int>(k) + 1);
  return speed;
}

}  // namespace fleetsim
