// A handler's event tag, typed: what to do (a small enum), to what (a 32-bit index of a node,
// pod, slot or scripted event) and, where a handler reuses indices, the generation of the index
// the event was scheduled for, so no handler packs bits by hand.
#pragma once

#include <cstdint>

namespace fleetsim {

template <class Kind>
struct EventTag {
  // Generations wrap at 2^24: a stale event would need its index reused 16 M times while it is
  // still pending to be mistaken for a live one.
  static constexpr std::uint32_t kGenerationMask = (1U << 24) - 1;

  Kind kind{};
  std::uint32_t subject = 0;
  std::uint32_t generation = 0;  // kept modulo 2^24

  constexpr std::uint64_t pack() const {
    return (static_cast<std::uint64_t>(kind) << 56) |
           (static_cast<std::uint64_t>(generation & kGenerationMask) << 32) | subject;
  }
  static constexpr EventTag unpack(std::uint64_t tag) {
    return EventTag{static_cast<Kind>(tag >> 56), static_cast<std::uint32_t>(tag),
                    static_cast<std::uint32_t>(tag >> 32) & kGenerationMask};
  }
  // Whether the event was scheduled for this generation of its subject.
  static constexpr bool same_generation(std::uint32_t a, std::uint32_t b) {
    return ((a ^ b) & kGenerationMask) == 0;
  }
};

}  // namespace fleetsim
