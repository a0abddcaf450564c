#include "fleetsim/engine/event_queue.hpp"

#include <bit>

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {
// Below this many cancelled events the queue is never compacted: skipping them lazily is cheaper.
constexpr std::size_t kCompactMinCancelled = 1024;
}  // namespace

// ---- The queue -------------------------------------------------------------------------------

EventHandle EventQueue::push(SimTime time, Phase phase, EventHandler* handler, std::uint64_t tag) {
  FLEETSIM_ASSERT(handler != nullptr);
  FLEETSIM_ASSERT(next_seq_ <= kSeqMask);
  const std::uint32_t slot = acquire_slot();
  Slot& s = slots_[slot];
  s.handler = handler;
  s.tag = tag;
  s.time = time.time_since_epoch().count();
  s.order = (static_cast<std::uint64_t>(phase) << kPhaseShift) | next_seq_++;
  s.state = SlotState::Pending;
  place({s.time, s.order, slot});
  ++live_;
  return EventHandle{slot, s.generation};
}

bool EventQueue::cancel(EventHandle handle) {
  if (!is_pending(handle)) return false;
  slots_[handle.slot].state = SlotState::Cancelled;
  --live_;
  ++cancelled_;
  // Lazy cancellation leaves the event queued; when dead events dominate (e.g. timeouts that
  // are nearly always cancelled), sweep them out so the queue stays proportional to live events.
  if (cancelled_ >= kCompactMinCancelled && cancelled_ > live_) compact();
  return true;
}

bool EventQueue::is_pending(EventHandle handle) const {
  if (handle.slot >= slots_.size()) return false;
  const Slot& s = slots_[handle.slot];
  return s.generation == handle.generation && s.state == SlotState::Pending;
}

std::optional<Event> EventQueue::pop_until(SimTime limit) {
  const std::int64_t limit_us = limit.time_since_epoch().count();
  const Entry* entry = live_front();
  if (const Entry* lane = first_lane();
      lane != nullptr && (entry == nullptr || before(*lane, *entry))) {
    if (lane->time > limit_us) return std::nullopt;
    const Lane& l = lanes_[lane->slot];
    const Event event{SimTime{SimDuration{lane->time}},
                      static_cast<Phase>(lane->order >> kPhaseShift), l.handler, l.tag};
    // Its leaf is emptied lazily: the lane's handler nearly always pushes its next event now,
    // which then plays the matches once instead of twice.
    taken_lane_ = lane->slot;
    --live_;
    return event;
  }
  if (entry == nullptr || entry->time > limit_us) return std::nullopt;
  return take_front();
}

// Out of line, as are the cancelled events' removal and the cursor's moves: the arrivals' path
// through pop_until then calls nothing and saves no registers.
[[gnu::noinline]] Event EventQueue::take_front() {
  const Entry& entry = due_.top();
  const std::uint32_t slot = entry.slot;
  const Slot& s = slots_[slot];
  const Event event{SimTime{SimDuration{entry.time}},
                    static_cast<Phase>(entry.order >> kPhaseShift), s.handler, s.tag};
  due_.pop();
  --live_;
  release_slot(slot);
  return event;
}

std::optional<SimTime> EventQueue::next_time() {
  drop_cancelled_front();
  const Entry* entry = front();
  if (const Entry* lane = first_lane();
      lane != nullptr && (entry == nullptr || before(*lane, *entry))) {
    return SimTime{SimDuration{lane->time}};
  }
  if (entry == nullptr) return std::nullopt;
  return SimTime{SimDuration{entry->time}};
}

void EventQueue::reserve(std::size_t events) {
  due_.reserve(events);
  slots_.reserve(events);
}

// ---- Lanes -------------------------------------------------------------------------------------

std::uint32_t EventQueue::add_lane() {
  if (lane_count_ == lane_leaves_) {
    // Twice the leaves, the new ones empty lanes; the tournament is played again from the leaves.
    const std::vector<Entry> leaves(lane_tree_.begin() + lane_leaves_, lane_tree_.end());
    lane_leaves_ = lane_leaves_ == 0 ? 1 : 2 * lane_leaves_;
    lanes_.resize(lane_leaves_);
    lane_tree_.assign(2 * static_cast<std::size_t>(lane_leaves_), kNoLaneEvent);
    for (std::uint32_t i = 0; i < lane_leaves_; ++i) {
      Entry& leaf = lane_tree_[lane_leaves_ + i];
      if (i < leaves.size()) leaf = leaves[i];
      leaf.slot = i;
    }
    for (std::uint32_t k = lane_leaves_; k-- > 1;) {
      const Entry& a = lane_tree_[2 * k];
      const Entry& b = lane_tree_[2 * k + 1];
      lane_tree_[k] = before(b, a) ? b : a;
    }
  }
  return lane_count_++;
}

void EventQueue::push_lane(std::uint32_t lane, SimTime time, Phase phase, EventHandler* handler,
                           std::uint64_t tag) {
  FLEETSIM_ASSERT(handler != nullptr && lane < lane_count_);
  // A taken lane's stale key is only ever on its own leaf's path, which replay_lane plays again.
  const bool retaken = lane == taken_lane_;
  if (retaken) taken_lane_ = kNoLane;
  FLEETSIM_ASSERT(retaken || lane_tree_[lane_leaves_ + lane].order == kNoLaneEvent.order);
  FLEETSIM_ASSERT(next_seq_ <= kSeqMask);
  lanes_[lane] = {handler, tag};
  replay_lane(lane, {time.time_since_epoch().count(),
                     (static_cast<std::uint64_t>(phase) << kPhaseShift) | next_seq_++, lane});
  ++live_;
}

const EventQueue::Entry* EventQueue::first_lane() {
  if (lane_leaves_ == 0) return nullptr;
  if (taken_lane_ != kNoLane) empty_taken_lane();
  const Entry& first = lane_tree_[1];
  return first.order == kNoLaneEvent.order ? nullptr : &first;
}

// Rare (a source that has ended, or a pop before the lane's handler pushed again), and out of
// line, so that first_lane, with no call left in it, is inline in pop_until.
[[gnu::noinline]] void EventQueue::empty_taken_lane() {
  replay_lane(taken_lane_, kNoLaneEvent);
  taken_lane_ = kNoLane;
}

// Inline into push_lane, once per arrival.
[[gnu::always_inline]] inline void EventQueue::replay_lane(std::uint32_t lane, const Entry& key) {
  std::size_t k = lane_leaves_ + lane;
  lane_tree_[k] = {key.time, key.order, lane};
  for (k /= 2; k > 0; k /= 2) {
    const Entry& a = lane_tree_[2 * k];
    const Entry& b = lane_tree_[2 * k + 1];
    lane_tree_[k] = before(b, a) ? b : a;
  }
}

// ---- Where an event is kept ------------------------------------------------------------------

void EventQueue::place(const Entry& entry) {
  const std::uint64_t bucket = bucket_of(entry.time);
  if (bucket <= cursor_) {
    due_.push(entry);  // also an event earlier than the cursor, which peeking may have passed
  } else if (bucket - cursor_ < kBuckets) {
    link_to_wheel(bucket, entry.slot);
  } else {
    far_.push(entry);
  }
}

void EventQueue::link_to_wheel(std::uint64_t bucket, std::uint32_t slot) {
  const std::size_t index = bucket % kBuckets;
  slots_[slot].next = wheel_[index];
  wheel_[index] = slot;
  occupied_[index / 64] |= std::uint64_t{1} << (index % 64);
  ++on_wheel_;
}

const EventQueue::Entry* EventQueue::front() {
  while (due_.empty()) {
    if (on_wheel_ == 0 && far_.empty()) return nullptr;
    advance_cursor();
  }
  return &due_.top();
}

// Moves the cursor to the next bucket holding an event: the next occupied wheel bucket, or, on
// an empty wheel, the earliest far event's. Its events become due, and far events that the
// window now reaches move onto the wheel (or become due).
void EventQueue::advance_cursor() {
  if (on_wheel_ == 0) {
    cursor_ = bucket_of(far_.top().time);
  } else {
    const std::size_t from = (cursor_ + 1) % kBuckets;
    cursor_ += 1 + (next_occupied(from) + kBuckets - from) % kBuckets;
    const std::size_t index = cursor_ % kBuckets;
    for (std::uint32_t slot = wheel_[index]; slot != EventHandle::kNoSlot;) {
      const Slot& s = slots_[slot];
      due_.push({s.time, s.order, slot});
      slot = s.next;
      --on_wheel_;
    }
    wheel_[index] = EventHandle::kNoSlot;
    occupied_[index / 64] &= ~(std::uint64_t{1} << (index % 64));
  }
  while (!far_.empty() && bucket_of(far_.top().time) - cursor_ < kBuckets) {
    const Entry entry = far_.top();
    far_.pop();
    place(entry);
  }
}

// The first occupied wheel bucket at or after `from`, wrapping around; the wheel is not empty.
std::size_t EventQueue::next_occupied(std::size_t from) const {
  std::size_t word = from / 64;
  std::uint64_t bits = occupied_[word] & (~std::uint64_t{0} << (from % 64));
  for (std::size_t i = 0; i <= kWords; ++i) {
    if (bits != 0) return word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    word = (word + 1) % kWords;
    bits = occupied_[word];
  }
  FLEETSIM_ASSERT(false && "the wheel holds an event");
  return 0;
}

std::uint32_t EventQueue::acquire_slot() {
  if (free_head_ != EventHandle::kNoSlot) {
    const std::uint32_t slot = free_head_;
    free_head_ = slots_[slot].next;
    return slot;
  }
  FLEETSIM_ASSERT(slots_.size() < EventHandle::kNoSlot);
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

void EventQueue::release_slot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  // A new generation makes every handle to the old event stale. It wraps after 2^32 reuses of
  // one slot; a handle kept that long could then match again, which no controller does.
  ++s.generation;
  s.state = SlotState::Free;
  s.handler = nullptr;
  s.next = free_head_;
  free_head_ = slot;
}

[[gnu::noinline]] const EventQueue::Entry* EventQueue::settle_front() {
  drop_cancelled_front();
  return front();
}

void EventQueue::drop_cancelled_front() {
  while (const Entry* entry = front()) {
    const std::uint32_t slot = entry->slot;
    if (slots_[slot].state != SlotState::Cancelled) return;
    due_.pop();
    --cancelled_;
    release_slot(slot);
  }
}

// Releases every cancelled event: the heaps are filtered and rebuilt, each wheel list relinked
// without them. The keys are a total order, so the pop sequence is unchanged.
void EventQueue::compact() {
  const auto keep = [this](const Entry& e) {
    if (slots_[e.slot].state != SlotState::Cancelled) return true;
    release_slot(e.slot);
    return false;
  };
  due_.filter(keep);
  far_.filter(keep);
  for (std::size_t index = 0; index < kBuckets; ++index) {
    std::uint32_t slot = wheel_[index];
    if (slot == EventHandle::kNoSlot) continue;
    wheel_[index] = EventHandle::kNoSlot;
    occupied_[index / 64] &= ~(std::uint64_t{1} << (index % 64));
    while (slot != EventHandle::kNoSlot) {
      const std::uint32_t next = slots_[slot].next;
      --on_wheel_;
      if (slots_[slot].state == SlotState::Cancelled) {
        release_slot(slot);
      } else {
        link_to_wheel(bucket_of(slots_[slot].time), slot);
      }
      slot = next;
    }
  }
  cancelled_ = 0;
}

// ---- The 4-ary heap --------------------------------------------------------------------------

void EventQueue::EntryHeap::push(const Entry& entry) {
  // Sift up by moving parents into the hole, writing the new entry once at the end.
  std::size_t hole = entries_.size();
  entries_.emplace_back();
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!before(entry, entries_[parent])) break;
    entries_[hole] = entries_[parent];
    hole = parent;
  }
  entries_[hole] = entry;
}

// Floyd's bottom-up deletion: the hole at the root walks down to a leaf along the smallest
// children, then the last entry sifts up from there. The last entry is nearly always among the
// latest events, so it rarely climbs: fewer comparisons than sifting it down from the root.
void EventQueue::EntryHeap::pop() {
  const Entry last = entries_.back();
  entries_.pop_back();
  const std::size_t n = entries_.size();
  if (n == 0) return;
  std::size_t hole = 0;
  while (kArity * hole + 1 < n) {
    const std::size_t child = smallest_child(hole);
    entries_[hole] = entries_[child];
    hole = child;
  }
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!before(last, entries_[parent])) break;
    entries_[hole] = entries_[parent];
    hole = parent;
  }
  entries_[hole] = last;
}

template <typename Keep>
void EventQueue::EntryHeap::filter(Keep keep) {
  std::size_t kept = 0;
  for (const Entry& e : entries_) {
    if (keep(e)) entries_[kept++] = e;
  }
  entries_.resize(kept);
  // Floyd's heap construction.
  for (std::size_t i = entries_.size() / kArity + 1; i-- > 0;) {
    if (i < entries_.size()) sift_down(i, entries_[i]);
  }
}

// The smallest of the children of `parent`, which has at least one. With all four present the
// choice is a tournament of three branch-free comparisons, two of them independent.
std::size_t EventQueue::EntryHeap::smallest_child(std::size_t parent) const {
  const std::size_t first = kArity * parent + 1;
  const std::size_t n = entries_.size();
  if (first + kArity <= n) {
    const std::size_t a =
        first + static_cast<std::size_t>(before(entries_[first + 1], entries_[first]));
    const std::size_t b =
        first + 2 + static_cast<std::size_t>(before(entries_[first + 3], entries_[first + 2]));
    return before(entries_[b], entries_[a]) ? b : a;
  }
  std::size_t best = first;
  for (std::size_t c = first + 1; c < n; ++c) {
    if (before(entries_[c], entries_[best])) best = c;
  }
  return best;
}

void EventQueue::EntryHeap::sift_down(std::size_t hole, Entry value) {
  while (kArity * hole + 1 < entries_.size()) {
    const std::size_t child = smallest_child(hole);
    if (!before(entries_[child], value)) break;
    entries_[hole] = entries_[child];
    hole = child;
  }
  entries_[hole] = value;
}

}  // namespace fleetsim
