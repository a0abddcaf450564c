// The Karpenter release a scenario models (`karpenter.version`, v1.0 to v1.14). Where upstream's
// behaviour changed between these releases and fleetsim models it, the release selects it; each
// predicate names the release and the upstream change.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/core/time.hpp"

namespace fleetsim {

inline constexpr int kOldestKarpenterMinor = 0;
inline constexpr int kLatestKarpenterMinor = 14;

struct KarpenterVersion {
  int minor = kLatestKarpenterMinor;  // v1.<minor>

  // v1.4 (#2035): single-node consolidation takes candidates round-robin over NodePools.
  bool interleaves_pools() const { return minor >= 4; }
  // v1.5 (#2180): emptiness runs before drift, and drift takes empty nodes one per command;
  // (#2206) emptiness validation keeps the candidates still valid instead of dropping the command.
  bool emptiness_first() const { return minor >= 5; }
  // v1.6 (#2305): the queue checks a replace's replacements every second; before, it backed off
  // from 1 s doubling to 10 s.
  bool fixed_queue_poll() const { return minor >= 6; }
  // v1.10 (#2709): a drain lasts at least 5 s before the instance is terminated.
  SimDuration min_drain_time() const { return minor >= 10 ? seconds(5) : SimDuration{0}; }
  // v1.12 (#2874): karpenter.sh/do-not-disrupt may be a duration; before, only "true" counts.
  bool do_not_disrupt_durations() const { return minor >= 12; }
  // v1.14 (#2962): candidates by savings ratio (price ÷ (1 + Σ eviction costs of reschedulable
  // pods)), highest first, and a node is empty when those costs sum to nothing; before, by
  // ascending disruption cost (Σ eviction costs of all its pods × the share of its expireAfter
  // left), and empty meant no reschedulable pod. Also the Balanced policy, and (#3006)
  // consolidateAfter keeping pods off destination nodes in consolidation's simulation.
  bool savings_ratio_order() const { return minor >= 14; }
  bool has_balanced() const { return minor >= 14; }
  bool consolidate_after_on_destinations() const { return minor >= 14; }

  std::string to_string() const;  // "v1.14"
};

// "1.14", "v1.14" or "v1.14.1" (the patch release changes nothing modelled); nullopt when not a
// v1 release from v1.0 to v1.14.
std::optional<KarpenterVersion> parse_karpenter_version(std::string_view text);

}  // namespace fleetsim
