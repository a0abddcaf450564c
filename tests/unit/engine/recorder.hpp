// Test helper: an EventHandler that records what it saw.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fleetsim/engine/event_queue.hpp"

namespace fleetsim::test {

struct Seen {
  SimTime time;
  std::uint64_t tag;
  friend bool operator==(const Seen&, const Seen&) = default;
};

class Recorder : public EventHandler {
 public:
  void on_event(SimTime now, std::uint64_t tag) override {
    seen.push_back({now, tag});
    if (then) then(now, tag);
  }
  std::vector<std::uint64_t> tags() const {
    std::vector<std::uint64_t> out;
    for (const Seen& s : seen) out.push_back(s.tag);
    return out;
  }

  std::vector<Seen> seen;
  std::function<void(SimTime, std::uint64_t)> then;  // optional reaction, for re-entrant tests
};

}  // namespace fleetsim::test
