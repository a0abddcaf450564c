#include "fleetsim/k8s/nodepool.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>

namespace fleetsim {

std::string_view to_string(DisruptionReason reason) {
  switch (reason) {
    case DisruptionReason::Empty:
      return "Empty";
    case DisruptionReason::Underutilized:
      return "Underutilized";
    case DisruptionReason::Drifted:
      return "Drifted";
  }
  return "?";
}

std::optional<DisruptionReason> parse_disruption_reason(std::string_view text) {
  for (DisruptionReason r :
       {DisruptionReason::Empty, DisruptionReason::Underutilized, DisruptionReason::Drifted})
    if (to_string(r) == text) return r;
  return std::nullopt;
}

namespace {

// FNV-1a, 64 bits: stable across runs and platforms.
class Fnv {
 public:
  void add(std::string_view s) {
    for (char c : s) mix(static_cast<unsigned char>(c));
    mix(0xff);  // field separator
  }
  void add(std::int64_t v) {
    for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(v >> (8 * i)));
  }
  std::uint64_t value() const { return h_; }

 private:
  void mix(unsigned char c) {
    h_ ^= c;
    h_ *= 0x100000001b3ULL;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

// Taints as a set (hashstructure's SlicesAsSets).
void add_taints(Fnv& h, std::vector<Taint> taints) {
  std::sort(taints.begin(), taints.end(), [](const Taint& a, const Taint& b) {
    return std::tie(a.key, a.value, a.effect) < std::tie(b.key, b.value, b.effect);
  });
  h.add(static_cast<std::int64_t>(taints.size()));
  for (const Taint& t : taints) {
    h.add(t.key);
    h.add(t.value);
    h.add(to_string(t.effect));
  }
}

std::int64_t duration_or(const std::optional<SimDuration>& d, std::int64_t none) {
  return d ? d->count() : none;
}

}  // namespace

std::uint64_t template_hash(const NodePool& pool) {
  Fnv h;
  h.add(static_cast<std::int64_t>(pool.labels.size()));
  for (const auto& [key, value] : pool.labels) {
    h.add(key);
    h.add(value);
  }
  h.add(static_cast<std::int64_t>(pool.annotations.size()));
  for (const auto& [key, value] : pool.annotations) {
    h.add(key);
    h.add(value);
  }
  add_taints(h, pool.taints);
  add_taints(h, pool.startup_taints);
  h.add(pool.node_class);
  h.add(duration_or(pool.expire_after, -1));
  h.add(duration_or(pool.termination_grace_period, -1));
  return h.value();
}

}  // namespace fleetsim
