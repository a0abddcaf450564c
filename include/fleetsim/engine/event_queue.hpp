// The pending-event set: a 4-ary min-heap keyed by (time, phase, insertion order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "fleetsim/core/time.hpp"
#include "fleetsim/engine/phase.hpp"

namespace fleetsim {

// Receives events. One handler object serves many events; the tag says which one (an index, an
// id, a kind — the handler's choice), so scheduling allocates nothing per event.
class EventHandler {
 public:
  virtual void on_event(SimTime now, std::uint64_t tag) = 0;

 protected:
  // Handlers are owned by their controllers, never deleted through this interface.
  ~EventHandler() = default;
};

// Names one scheduled event so it can be cancelled. A handle to an event that has already run or
// been cancelled is harmless: cancelling it does nothing, even after its slot is reused.
struct EventHandle {
  static constexpr std::uint32_t kNoSlot = 0xffff'ffff;
  std::uint32_t slot = kNoSlot;
  std::uint32_t generation = 0;

  constexpr bool is_null() const { return slot == kNoSlot; }
  friend constexpr bool operator==(EventHandle, EventHandle) = default;
};

// An event taken off the queue, ready to dispatch.
struct Event {
  SimTime time;
  Phase phase;
  EventHandler* handler;
  std::uint64_t tag;
};

class EventQueue {
 public:
  EventQueue() = default;

  // Adds an event. Equal (time, phase) keys pop in push order.
  EventHandle push(SimTime time, Phase phase, EventHandler* handler, std::uint64_t tag);

  // Marks a pending event cancelled; it is skipped when it reaches the front. Returns whether
  // anything was cancelled (false for a run, cancelled or null handle).
  bool cancel(EventHandle handle);

  // Whether the handle names an event still waiting to run.
  bool is_pending(EventHandle handle) const;

  // Removes and returns the earliest live event if it is due at or before `limit`.
  std::optional<Event> pop_until(SimTime limit);
  std::optional<Event> pop() { return pop_until(SimTime::max()); }

  // The time of the earliest live event (dropping cancelled ones from the front).
  std::optional<SimTime> next_time();

  // Live events: pushed, not yet popped, not cancelled.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  void reserve(std::size_t events);

 private:
  // 24 bytes, so a 10k-event heap stays in L2. `order` packs the phase above the insertion
  // counter, making (time, order) one total order: the pop sequence never depends on heap shape.
  struct Entry {
    std::int64_t time;
    std::uint64_t order;
    std::uint32_t slot;
  };
  static_assert(sizeof(Entry) == 24);

  enum class SlotState : std::uint8_t { Free, Pending, Cancelled };

  // Per-event payload and cancellation state; recycled through a free list once popped.
  struct Slot {
    EventHandler* handler = nullptr;
    std::uint64_t tag = 0;
    std::uint32_t generation = 0;
    std::uint32_t next_free = EventHandle::kNoSlot;
    SlotState state = SlotState::Free;
  };

  static constexpr int kPhaseShift = 56;
  static constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kPhaseShift) - 1;

  // One 128-bit comparison (a cmp and an sbb): branch-free, where the two-field form compiled to
  // a branch per heap level that mispredicted about half the time on the serving path. The sign
  // bit is flipped so that signed times order as unsigned ones.
  static bool before(const Entry& a, const Entry& b) {
    __extension__ using Key = unsigned __int128;
    constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
    const auto key = [](const Entry& e) {
      return (static_cast<Key>(static_cast<std::uint64_t>(e.time) ^ kSign) << 64) | e.order;
    };
    return key(a) < key(b);
  }

  // Four children per entry: half the levels of a binary heap, so a pop's walk to a leaf is
  // half as long a chain of dependent loads, and the four children share one or two cache lines.
  static constexpr std::size_t kArity = 4;

  std::size_t smallest_child(std::size_t parent) const;
  std::uint32_t acquire_slot();
  void release_slot(std::uint32_t slot);
  void remove_front();
  void sift_down(std::size_t hole, Entry value);
  void drop_cancelled_front();
  void compact();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::uint32_t free_head_ = EventHandle::kNoSlot;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
  std::size_t cancelled_ = 0;  // cancelled entries still in heap_
};

}  // namespace fleetsim
