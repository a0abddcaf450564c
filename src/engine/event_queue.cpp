#include "fleetsim/engine/event_queue.hpp"

#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {
// Below this many cancelled entries the heap is never compacted: skipping them lazily is cheaper.
constexpr std::size_t kCompactMinCancelled = 1024;
}  // namespace

EventHandle EventQueue::push(SimTime time, Phase phase, EventHandler* handler, std::uint64_t tag) {
  FLEETSIM_ASSERT(handler != nullptr);
  FLEETSIM_ASSERT(next_seq_ <= kSeqMask);
  const std::uint32_t slot = acquire_slot();
  Slot& s = slots_[slot];
  s.handler = handler;
  s.tag = tag;
  s.state = SlotState::Pending;

  const Entry entry{time.time_since_epoch().count(),
                    (static_cast<std::uint64_t>(phase) << kPhaseShift) | next_seq_++, slot};
  // Sift up by moving parents into the hole, writing the new entry once at the end.
  std::size_t hole = heap_.size();
  heap_.emplace_back();
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!before(entry, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = entry;
  ++live_;
  return EventHandle{slot, s.generation};
}

bool EventQueue::cancel(EventHandle handle) {
  if (!is_pending(handle)) return false;
  slots_[handle.slot].state = SlotState::Cancelled;
  --live_;
  ++cancelled_;
  // Lazy cancellation leaves the entry in the heap; when dead entries dominate (e.g. timeouts
  // that are nearly always cancelled), rebuild so the heap stays proportional to live events.
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
  while (!heap_.empty()) {
    const Entry front = heap_.front();
    Slot& s = slots_[front.slot];
    if (s.state == SlotState::Cancelled) {
      remove_front();
      --cancelled_;
      release_slot(front.slot);
      continue;
    }
    if (front.time > limit_us) return std::nullopt;
    const Event event{SimTime{SimDuration{front.time}},
                      static_cast<Phase>(front.order >> kPhaseShift), s.handler, s.tag};
    remove_front();
    --live_;
    release_slot(front.slot);
    return event;
  }
  return std::nullopt;
}

std::optional<SimTime> EventQueue::next_time() {
  drop_cancelled_front();
  if (heap_.empty()) return std::nullopt;
  return SimTime{SimDuration{heap_.front().time}};
}

void EventQueue::reserve(std::size_t events) {
  heap_.reserve(events);
  slots_.reserve(events);
}

std::uint32_t EventQueue::acquire_slot() {
  if (free_head_ != EventHandle::kNoSlot) {
    const std::uint32_t slot = free_head_;
    free_head_ = slots_[slot].next_free;
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
  s.next_free = free_head_;
  free_head_ = slot;
}

// The smallest of the children of `parent`, which has at least one. With all four present the
// choice is a tournament of three branch-free comparisons, two of them independent.
std::size_t EventQueue::smallest_child(std::size_t parent) const {
  const std::size_t first = kArity * parent + 1;
  const std::size_t n = heap_.size();
  if (first + kArity <= n) {
    const std::size_t a = first + static_cast<std::size_t>(before(heap_[first + 1], heap_[first]));
    const std::size_t b =
        first + 2 + static_cast<std::size_t>(before(heap_[first + 3], heap_[first + 2]));
    return before(heap_[b], heap_[a]) ? b : a;
  }
  std::size_t best = first;
  for (std::size_t c = first + 1; c < n; ++c) {
    if (before(heap_[c], heap_[best])) best = c;
  }
  return best;
}

// Floyd's bottom-up deletion: the hole at the root walks down to a leaf along the smallest
// children, then the last entry sifts up from there. The last entry is nearly always among the
// latest events, so it rarely climbs: fewer comparisons than sifting it down from the root.
void EventQueue::remove_front() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  std::size_t hole = 0;
  while (kArity * hole + 1 < n) {
    const std::size_t child = smallest_child(hole);
    heap_[hole] = heap_[child];
    hole = child;
  }
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / kArity;
    if (!before(last, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = last;
}

void EventQueue::sift_down(std::size_t hole, Entry value) {
  while (kArity * hole + 1 < heap_.size()) {
    const std::size_t child = smallest_child(hole);
    if (!before(heap_[child], value)) break;
    heap_[hole] = heap_[child];
    hole = child;
  }
  heap_[hole] = value;
}

void EventQueue::drop_cancelled_front() {
  while (!heap_.empty() && slots_[heap_.front().slot].state == SlotState::Cancelled) {
    const std::uint32_t slot = heap_.front().slot;
    remove_front();
    --cancelled_;
    release_slot(slot);
  }
}

void EventQueue::compact() {
  std::size_t kept = 0;
  for (const Entry& e : heap_) {
    if (slots_[e.slot].state == SlotState::Cancelled) {
      release_slot(e.slot);
    } else {
      heap_[kept++] = e;
    }
  }
  heap_.resize(kept);
  cancelled_ = 0;
  // Floyd's heap construction; the keys are a total order, so the pop sequence is unchanged.
  for (std::size_t i = heap_.size() / kArity + 1; i-- > 0;) sift_down(i, heap_[i]);
}

}  // namespace fleetsim
