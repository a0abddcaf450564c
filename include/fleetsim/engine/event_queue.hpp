// The pending-event set, ordered by (time, phase, insertion order): a timing wheel for the next
// few seconds in front of two small heaps.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
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

  // Lanes: series of events of which at most one waits at a time (a traffic source's next
  // arrival). A lane's event takes its place in the same order as push() would give it, but it
  // is kept beside the queue in a small tournament over the lanes, so that it costs no slot, no
  // wheel bucket and no heap entry. Lane events cannot be cancelled.
  std::uint32_t add_lane();
  // The lane's previous event has run.
  void push_lane(std::uint32_t lane, SimTime time, Phase phase, EventHandler* handler,
                 std::uint64_t tag);

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
  // 24 bytes. `order` packs the phase above the insertion counter, making (time, order) one
  // total order: the pop sequence never depends on where an entry was kept.
  struct Entry {
    std::int64_t time;
    std::uint64_t order;
    std::uint32_t slot;
  };
  static_assert(sizeof(Entry) == 24);

  // One 128-bit comparison (a cmp and an sbb): branch-free, where the two-field form compiled to
  // a branch that mispredicted about half the time. The sign bit is flipped so that signed times
  // order as unsigned ones.
  static bool before(const Entry& a, const Entry& b) {
    __extension__ using Key = unsigned __int128;
    const auto key = [](const Entry& e) {
      return (static_cast<Key>(static_cast<std::uint64_t>(e.time) ^ kSignBit) << 64) | e.order;
    };
    return key(a) < key(b);
  }

  // A 4-ary min-heap of entries: half the levels of a binary heap, so a pop's walk to a leaf is
  // half as long a chain of dependent loads, and four children share one or two cache lines.
  class EntryHeap {
   public:
    bool empty() const { return entries_.empty(); }
    const Entry& top() const { return entries_.front(); }
    void push(const Entry& entry);
    void pop();
    void reserve(std::size_t n) { entries_.reserve(n); }
    // Keeps the entries `keep` accepts (in any order), then restores the heap.
    template <typename Keep>
    void filter(Keep keep);

   private:
    static constexpr std::size_t kArity = 4;
    std::size_t smallest_child(std::size_t parent) const;
    void sift_down(std::size_t hole, Entry value);
    std::vector<Entry> entries_;
  };

  // A lane's event, beside its key in the tournament (Entry::slot names the lane there).
  struct Lane {
    EventHandler* handler = nullptr;
    std::uint64_t tag = 0;
  };
  // An empty lane's key comes after every event's: no event's order has every bit set.
  static constexpr Entry kNoLaneEvent{std::numeric_limits<std::int64_t>::max(), ~std::uint64_t{0},
                                      0};
  // The earliest lane event, or null. The tournament keeps at lane_tree_[1..lane_leaves_) the
  // winners of its matches, and the lanes' keys as its leaves from lane_leaves_ (a power of two;
  // spare leaves are empty lanes).
  const Entry* first_lane();
  void empty_taken_lane();  // plays the taken lane's matches again without it
  void replay_lane(std::uint32_t lane, const Entry& key);  // the matches up to the root again

  enum class SlotState : std::uint8_t { Free, Pending, Cancelled };

  // Per-event payload, key and cancellation state; recycled through a free list once popped.
  struct Slot {
    EventHandler* handler = nullptr;
    std::uint64_t tag = 0;
    std::int64_t time = 0;
    std::uint64_t order = 0;
    std::uint32_t generation = 0;
    std::uint32_t next = EventHandle::kNoSlot;  // the free list, or the wheel bucket's list
    SlotState state = SlotState::Free;
  };

  static constexpr int kPhaseShift = 56;
  static constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << kPhaseShift) - 1;
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

  // Events are kept in three places by their time's bucket (2^12 µs ≈ 4 ms wide): those in the
  // cursor's bucket or before it in `due_`, an exact heap; those in the next kBuckets - 1
  // buckets on the wheel, one unsorted list per bucket; later ones in `far_`. Every wheel entry
  // is later than every due entry, so the front of `due_` is the earliest event; when `due_`
  // runs dry the cursor moves to the next occupied bucket and its list becomes due. A push and
  // a pop cost O(1) but for the heap of one bucket, which holds about one event on the serving
  // path (a few hundred requests in flight spread over seconds), where a heap of them all took
  // a walk of its whole depth per pop. The window (33.6 s) takes in the 15 s controller periods.
  static constexpr int kBucketShift = 12;
  static constexpr std::size_t kBuckets = 8192;  // a window of 33.6 s
  static constexpr std::size_t kWords = kBuckets / 64;

  static std::uint64_t bucket_of(std::int64_t time) {
    return (static_cast<std::uint64_t>(time) ^ kSignBit) >> kBucketShift;
  }
  void place(const Entry& entry);
  void link_to_wheel(std::uint64_t bucket, std::uint32_t slot);
  // The earliest entry, cancelled or not, after moving the cursor as far as needed; null when
  // nothing is queued.
  const Entry* front();
  // front() without the cancelled events before the first live one, which it releases. Inline
  // for the usual case, a live event already due; settle_front() does the rest.
  const Entry* live_front() {
    if (!due_.empty() && slots_[due_.top().slot].state != SlotState::Cancelled) return &due_.top();
    return settle_front();
  }
  const Entry* settle_front();
  // Removes the live front entry (front()'s) and returns its event.
  Event take_front();
  void advance_cursor();
  std::size_t next_occupied(std::size_t from) const;
  std::uint32_t acquire_slot();
  void release_slot(std::uint32_t slot);
  void drop_cancelled_front();
  void compact();

  EntryHeap due_;
  std::vector<std::uint32_t> wheel_ = std::vector<std::uint32_t>(kBuckets, EventHandle::kNoSlot);
  std::array<std::uint64_t, kWords> occupied_{};  // a bit per wheel bucket with a list
  std::size_t on_wheel_ = 0;
  EntryHeap far_;
  std::uint64_t cursor_ = 0;  // the bucket `due_` has reached

  std::vector<Lane> lanes_;
  std::vector<Entry> lane_tree_;
  std::uint32_t lane_leaves_ = 0;
  std::uint32_t lane_count_ = 0;
  static constexpr std::uint32_t kNoLane = 0xffff'ffff;
  std::uint32_t taken_lane_ = kNoLane;  // popped, its leaf not yet emptied

  std::vector<Slot> slots_;
  std::uint32_t free_head_ = EventHandle::kNoSlot;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
  std::size_t cancelled_ = 0;  // cancelled events still queued
};

}  // namespace fleetsim
