#include "fleetsim/engine/event_queue.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "fleetsim/core/rng.hpp"
#include "fleetsim/engine/event_tag.hpp"
#include "unit/engine/recorder.hpp"

using namespace fleetsim;
using fleetsim::test::Recorder;

namespace {

std::vector<std::uint64_t> drain(EventQueue& q) {
  std::vector<std::uint64_t> tags;
  while (auto e = q.pop()) tags.push_back(e->tag);
  return tags;
}

}  // namespace

TEST_CASE("events pop in time order", "[engine]") {
  EventQueue q;
  Recorder r;
  q.push(at(seconds(30)), Phase::Workload, &r, 3);
  q.push(at(seconds(10)), Phase::Workload, &r, 1);
  q.push(at(seconds(20)), Phase::Workload, &r, 2);
  CHECK(q.size() == 3);
  CHECK(drain(q) == std::vector<std::uint64_t>{1, 2, 3});
  CHECK(q.empty());
}

TEST_CASE("events at the same time pop in phase order", "[engine]") {
  EventQueue q;
  Recorder r;
  q.push(at(seconds(5)), Phase::Reporting, &r, 7);
  q.push(at(seconds(5)), Phase::Autoscalers, &r, 4);
  q.push(at(seconds(5)), Phase::CloudAndNodes, &r, 0);
  q.push(at(seconds(5)), Phase::MetricsScrape, &r, 3);
  q.push(at(seconds(5)), Phase::Disruption, &r, 6);
  q.push(at(seconds(5)), Phase::PodLifecycle, &r, 1);
  q.push(at(seconds(5)), Phase::Provisioning, &r, 5);
  q.push(at(seconds(5)), Phase::Workload, &r, 2);
  q.push(at(seconds(4)), Phase::Reporting, &r, 99);  // earlier time beats any phase
  CHECK(drain(q) == std::vector<std::uint64_t>{99, 0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("events with the same time and phase pop first-in first-out", "[engine]") {
  EventQueue q;
  Recorder r;
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    q.push(at(seconds(1)), Phase::Workload, &r, i);
    expected.push_back(i);
  }
  CHECK(drain(q) == expected);
}

TEST_CASE("popped events carry their time, phase, handler and tag", "[engine]") {
  EventQueue q;
  Recorder r;
  q.push(at(millis(1500)), Phase::Provisioning, &r, 42);
  auto e = q.pop();
  REQUIRE(e);
  CHECK(e->time == at(millis(1500)));
  CHECK(e->phase == Phase::Provisioning);
  CHECK(e->handler == &r);
  CHECK(e->tag == 42);
  CHECK_FALSE(q.pop());
}

TEST_CASE("a random mix pops sorted by (time, phase, insertion)", "[engine]") {
  EventQueue q;
  Recorder r;
  RngStream rng(1, "queue-test");
  struct Key {
    std::int64_t time;
    int phase;
    std::uint64_t seq;
  };
  std::vector<Key> keys;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    Key k{static_cast<std::int64_t>(rng.below(200)), static_cast<int>(rng.below(kPhaseCount)), i};
    keys.push_back(k);
    q.push(at(micros(k.time)), static_cast<Phase>(k.phase), &r, i);
  }
  std::stable_sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return a.time != b.time ? a.time < b.time : a.phase < b.phase;
  });
  std::vector<std::uint64_t> expected;
  for (const Key& k : keys) expected.push_back(k.seq);
  CHECK(drain(q) == expected);
}

TEST_CASE("a cancelled event never pops", "[engine]") {
  EventQueue q;
  Recorder r;
  q.push(at(seconds(1)), Phase::Workload, &r, 1);
  EventHandle h = q.push(at(seconds(2)), Phase::Workload, &r, 2);
  q.push(at(seconds(3)), Phase::Workload, &r, 3);
  CHECK(q.is_pending(h));
  CHECK(q.cancel(h));
  CHECK_FALSE(q.is_pending(h));
  CHECK(q.size() == 2);
  CHECK_FALSE(q.cancel(h));  // twice is a no-op
  CHECK(drain(q) == std::vector<std::uint64_t>{1, 3});
}

TEST_CASE("cancelling an event that already ran does nothing", "[engine]") {
  EventQueue q;
  Recorder r;
  EventHandle h = q.push(at(seconds(1)), Phase::Workload, &r, 1);
  REQUIRE(q.pop());
  CHECK_FALSE(q.cancel(h));
  CHECK_FALSE(q.cancel(EventHandle{}));  // a null handle too
  CHECK(q.empty());
}

TEST_CASE("a stale handle does not cancel the event that reuses its slot", "[engine]") {
  EventQueue q;
  Recorder r;
  EventHandle old_handle = q.push(at(seconds(1)), Phase::Workload, &r, 1);
  REQUIRE(q.pop());
  EventHandle new_handle = q.push(at(seconds(2)), Phase::Workload, &r, 2);
  REQUIRE(new_handle.slot == old_handle.slot);  // the slot was recycled
  CHECK_FALSE(q.cancel(old_handle));
  CHECK(q.is_pending(new_handle));
  CHECK(drain(q) == std::vector<std::uint64_t>{2});
}

TEST_CASE("the slot of a cancelled event is reused only after it leaves the heap", "[engine]") {
  EventQueue q;
  Recorder r;
  EventHandle cancelled = q.push(at(seconds(1)), Phase::Workload, &r, 1);
  q.cancel(cancelled);
  EventHandle next = q.push(at(seconds(2)), Phase::Workload, &r, 2);
  CHECK(next.slot != cancelled.slot);
  CHECK(drain(q) == std::vector<std::uint64_t>{2});
}

TEST_CASE("pop_until leaves later events queued", "[engine]") {
  EventQueue q;
  Recorder r;
  q.push(at(seconds(1)), Phase::Workload, &r, 1);
  q.push(at(seconds(2)), Phase::Workload, &r, 2);
  q.push(at(seconds(3)), Phase::Workload, &r, 3);
  CHECK(q.pop_until(at(seconds(2)))->tag == 1);
  CHECK(q.pop_until(at(seconds(2)))->tag == 2);  // exactly at the limit is due
  CHECK_FALSE(q.pop_until(at(seconds(2))));
  CHECK(q.next_time() == at(seconds(3)));
  CHECK(q.size() == 1);
}

TEST_CASE("next_time skips cancelled events at the front", "[engine]") {
  EventQueue q;
  Recorder r;
  EventHandle first = q.push(at(seconds(1)), Phase::Workload, &r, 1);
  q.push(at(seconds(5)), Phase::Workload, &r, 5);
  q.cancel(first);
  CHECK(q.next_time() == at(seconds(5)));
  q.pop();
  CHECK_FALSE(q.next_time());
}

TEST_CASE("mass cancellation keeps the order of the survivors", "[engine]") {
  // Enough cancellations to trigger the heap rebuild.
  EventQueue q;
  Recorder r;
  std::vector<EventHandle> handles;
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 6000; ++i) {
    handles.push_back(
        q.push(at(micros(static_cast<std::int64_t>((i * 7919) % 3000))), Phase::Workload, &r, i));
  }
  for (std::uint64_t i = 0; i < 6000; ++i) {
    if (i % 5 != 0) CHECK(q.cancel(handles[i]));
  }
  CHECK(q.size() == 1200);
  for (std::uint64_t i = 0; i < 6000; i += 5) CHECK(q.is_pending(handles[i]));
  std::vector<std::pair<std::int64_t, std::uint64_t>> keys;
  for (std::uint64_t i = 0; i < 6000; i += 5) {
    keys.emplace_back(static_cast<std::int64_t>((i * 7919) % 3000), i);
  }
  std::sort(keys.begin(), keys.end());
  for (const auto& k : keys) expected.push_back(k.second);
  CHECK(drain(q) == expected);
}

TEST_CASE("the wheel, its far heap and the due heap pop as one sorted queue", "[engine]") {
  // Against a std::set of (time, phase, insertion) keys: delays from microseconds to hours (due,
  // wheel, far and jumps across an empty wheel), same-instant pushes, pushes behind a cursor that
  // peeking beyond a limit has moved on, and enough cancellations to compact.
  EventQueue q;
  Recorder r;
  RngStream rng(21, "event-queue-differential");
  using Key = std::tuple<std::int64_t, int, std::uint64_t>;  // time, phase, tag (= insertion)
  std::set<Key> reference;
  std::vector<std::pair<EventHandle, Key>> live;
  std::int64_t now = 0;
  std::uint64_t next_tag = 0;
  const auto push = [&](std::int64_t time) {
    const auto phase = static_cast<Phase>(rng.below(kPhaseCount));
    const Key key{time, static_cast<int>(phase), next_tag};
    live.emplace_back(q.push(at(micros(time)), phase, &r, next_tag++), key);
    reference.insert(key);
  };
  for (int step = 0; step < 200'000; ++step) {
    // Every fourth stretch of 10,000 steps mostly cancels, so that cancelled events come to
    // outnumber live ones and the queue compacts.
    const bool cancelling = step / 10'000 % 4 == 3;
    const double u = cancelling ? 0.45 + 0.1 * rng.uniform() : rng.uniform();
    if (u < 0.45) {
      const double scale = std::pow(10.0, static_cast<double>(rng.below(11)));  // 1 µs to 10^10
      push(now + static_cast<std::int64_t>(rng.uniform() * scale));
    } else if (u < 0.55 && !live.empty()) {
      const std::size_t i = rng.below(live.size());
      if (q.cancel(live[i].first)) reference.erase(live[i].second);
      live[i] = live.back();
      live.pop_back();
    } else if (u < 0.60) {
      // Peek past a limit (which may move the cursor ahead), then push just after now.
      const std::int64_t limit = now + static_cast<std::int64_t>(rng.below(1'000'000));
      const auto e = q.pop_until(at(micros(limit)));
      if (e) {
        REQUIRE_FALSE(reference.empty());
        CHECK(e->tag == std::get<2>(*reference.begin()));
        reference.erase(reference.begin());
        now = e->time.time_since_epoch().count();
      } else {
        CHECK((reference.empty() || std::get<0>(*reference.begin()) > limit));
      }
      push(now + static_cast<std::int64_t>(rng.below(100)));
    } else {
      const auto e = q.pop();
      if (!e) {
        CHECK(reference.empty());
        continue;
      }
      REQUIRE_FALSE(reference.empty());
      const Key& expected = *reference.begin();
      CHECK(e->time == at(micros(std::get<0>(expected))));
      CHECK(static_cast<int>(e->phase) == std::get<1>(expected));
      CHECK(e->tag == std::get<2>(expected));
      reference.erase(reference.begin());
      now = e->time.time_since_epoch().count();
    }
    REQUIRE(q.size() == reference.size());
  }
  std::vector<std::uint64_t> rest;
  for (const Key& k : reference) rest.push_back(std::get<2>(k));
  CHECK(drain(q) == rest);
}

TEST_CASE("an event tag carries its kind and a full 32-bit subject", "[engine]") {
  enum class Kind : std::uint8_t { A = 1, B = 200 };
  using Tag = EventTag<Kind>;
  const Tag t = Tag::unpack(Tag{Kind::B, UINT32_MAX}.pack());
  CHECK(t.kind == Kind::B);
  CHECK(t.subject == UINT32_MAX);
  CHECK(Tag::unpack(Tag{Kind::A, 7}.pack()).subject == 7);
  CHECK(Tag{Kind::A, 7}.pack() != Tag{Kind::B, 7}.pack());
  const Tag g = Tag::unpack(Tag{Kind::A, 3, (1U << 24) + 5}.pack());
  CHECK(g.generation == 5);  // generations wrap at 2^24
  CHECK(Tag::same_generation(g.generation, (1U << 24) + 5));
  CHECK_FALSE(Tag::same_generation(g.generation, 6));
}

namespace {

// Runs one random process of lanes (each re-armed when its event pops, as a traffic source is)
// and plain events, with the lanes' events pushed as lanes or, in `plain`, with push(): the
// events popped, with the queue's size after each.
std::vector<std::tuple<std::int64_t, Phase, std::uint64_t, std::size_t>> run_lanes(bool plain) {
  EventQueue q;
  Recorder r;
  RngStream rng(7, "lanes");
  constexpr std::uint64_t kLaneTag = 1'000'000;  // tags from here name a lane
  std::vector<std::uint32_t> lanes;
  const auto arm = [&](std::uint32_t lane, std::int64_t now) {
    const SimTime t = at(micros(now + static_cast<std::int64_t>(rng.below(50))));
    const auto phase = static_cast<Phase>(rng.below(kPhaseCount));
    if (plain) {
      q.push(t, phase, &r, kLaneTag + lane);
    } else {
      q.push_lane(lanes[lane], t, phase, &r, kLaneTag + lane);
    }
  };
  const auto add_lane = [&](std::int64_t now) {
    lanes.push_back(plain ? 0 : q.add_lane());
    arm(static_cast<std::uint32_t>(lanes.size() - 1), now);
  };
  add_lane(0);
  std::vector<std::tuple<std::int64_t, Phase, std::uint64_t, std::size_t>> popped;
  for (std::uint64_t i = 0; i < 20'000; ++i) {
    const auto e = q.pop();
    REQUIRE(e);
    const std::int64_t now = e->time.time_since_epoch().count();
    popped.emplace_back(now, e->phase, e->tag, q.size());
    // A lane added before the one just taken is re-armed: the leaves move under it.
    if (lanes.size() < 9 && rng.below(1000) == 0) add_lane(now);
    if (e->tag >= kLaneTag) arm(static_cast<std::uint32_t>(e->tag - kLaneTag), now);
    if (rng.below(3) == 0) {
      q.push(at(micros(now + static_cast<std::int64_t>(rng.below(50)))),
             static_cast<Phase>(rng.below(kPhaseCount)), &r, i);
    }
  }
  CHECK(lanes.size() >= 5);
  return popped;
}

}  // namespace

TEST_CASE("lane events pop exactly where push would have put them", "[engine]") {
  CHECK(run_lanes(false) == run_lanes(true));
}

TEST_CASE("a lane event counts as queued and in next_time until it pops", "[engine]") {
  EventQueue q;
  Recorder r;
  const std::uint32_t a = q.add_lane();
  const std::uint32_t b = q.add_lane();
  q.push(at(seconds(3)), Phase::Workload, &r, 3);
  q.push_lane(b, at(seconds(2)), Phase::Workload, &r, 2);
  q.push_lane(a, at(seconds(3)), Phase::Workload, &r, 4);  // after the plain event of its time
  CHECK(q.size() == 3);
  CHECK(q.next_time() == at(seconds(2)));
  CHECK(q.pop_until(at(seconds(1))) == std::nullopt);
  auto e = q.pop();
  REQUIRE(e);
  CHECK(e->tag == 2);
  CHECK(e->phase == Phase::Workload);
  CHECK(e->handler == &r);
  CHECK(q.size() == 2);
  CHECK(q.next_time() == at(seconds(3)));                  // the taken lane no longer counts
  q.push_lane(b, at(seconds(2)), Phase::Workload, &r, 5);  // re-armed
  CHECK(drain(q) == std::vector<std::uint64_t>{5, 3, 4});
  CHECK(q.empty());
}
