// Pod affinity and anti-affinity over zones and hostnames during one solve (Karpenter's
// TopologyGroups of type PodAffinity and PodAntiAffinity, and its inverse anti-affinity groups).
#pragma once

#include <cstdint>
#include <vector>

#include "fleetsim/scheduling/scheduling_context.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

// How many of a pod's preferred terms Karpenter has relaxed away, heaviest first (preferences.go
// removePreferredPodAffinityTerm, removePreferredPodAntiAffinityTerm).
struct AffinityRelaxation {
  std::uint32_t affinity_dropped = 0;
  std::uint32_t anti_dropped = 0;
};

class PodAffinityGroups {
 public:
  // A claim index for a NodeClaim not created yet: a new hostname domain with no pods.
  static constexpr std::uint32_t kNewClaim = UINT32_MAX;

  // Builds the groups of the pods' terms and counts the bound pods; keeps its buffers.
  void build(const SchedulingContext& ctx, const SolveInput& in);

  // The pod owns a term or is kept away by another pod's required anti-affinity.
  bool constrains(std::uint32_t pod) const;
  std::uint32_t preferred_affinity_count(std::uint32_t pod) const;
  std::uint32_t preferred_anti_count(std::uint32_t pod) const;

  // An existing node: its zone and its host satisfy every active term and no other pod's
  // required anti-affinity keeps the pod away. `pod_zones`: the zones the pod's required node
  // selection allows (Karpenter's pod domains: its strict requirements, no preferred term).
  bool allows_node(std::uint32_t pod, std::uint32_t node, std::uint64_t pod_zones,
                   const AffinityRelaxation& r) const;
  // The zones within `zones` a NodeClaim of this solve (or kNewClaim) may keep for the pod; 0
  // when none, or when its host breaks a hostname term.
  std::uint64_t claim_zones(std::uint32_t pod, std::uint32_t claim, std::uint64_t zones,
                            std::uint64_t pod_zones, const AffinityRelaxation& r) const;

  // A hostname group whose count on a NodeClaim keeps the pod off it (its active anti-affinity,
  // or another pod's required anti-affinity): the one with the fewest claims free of it, or
  // kNoGroup. Only claims free of it can take the pod, so the solver may try just those.
  static constexpr std::uint32_t kNoGroup = UINT32_MAX;
  std::uint32_t hostname_exclusion(std::uint32_t pod, const AffinityRelaxation& r) const;
  std::size_t free_claim_count(std::uint32_t group) const { return groups_[group].free_count; }
  // The claims where the group counts no pod, in creation order.
  const std::vector<std::uint32_t>& free_claims(std::uint32_t group);
  // Whether the group counts a pod on an existing node (which then refuses the pod).
  bool counts_on_node(std::uint32_t group, std::uint32_t node) const {
    return groups_[group].node_counts[node] > 0;
  }

  // Zones a claim must keep some of to take the pod (a necessary condition of claim_zones,
  // the same for every claim): a quick filter for the claim scan. `zones`: those the pod's
  // node requirements allow, preferred term included.
  std::uint64_t zone_filter(std::uint32_t pod, std::uint64_t zones, std::uint64_t pod_zones,
                            const AffinityRelaxation& r) const;

  void add_claim();
  void record_node(std::uint32_t pod, std::uint32_t node);
  // `zones`: the zones the claim may still launch in. Affinity counts the pod only once the
  // claim is pinned to one zone; anti-affinity blocks them all, since the pod could land in any.
  // (Karpenter records the values of the claim's zone requirement; a fleetsim claim always
  // knows its zones, which is what upstream's "Schrödinger" and "other schedules first" tests
  // expect.)
  void record_claim(std::uint32_t pod, std::uint32_t claim, std::uint64_t zones);

 private:
  enum class Kind : std::uint8_t { Affinity, AntiAffinity, Inverse };
  struct Group {
    Kind kind = Kind::Affinity;
    bool zonal = true;
    const PodAffinityTerm* term = nullptr;  // the first term of its kind, for its selector
    std::string_view owner_namespace;
    std::vector<int> zone_counts;
    std::vector<int> node_counts;
    std::vector<int> claim_counts;
    std::uint64_t occupied_zones = 0;  // zones with a count
    int recorded = 0;                  // records anywhere (Karpenter: not every domain empty)
    // Hostname groups: claims with no count (some may have gained one since), and how many.
    std::vector<std::uint32_t> free;
    std::size_t free_count = 0;
  };
  // A group a pod owns a term of; rank: the term's place among its kind's preferred terms, or
  // kRequired.
  static constexpr std::uint32_t kRequired = UINT32_MAX;
  struct Owned {
    std::uint32_t group = 0;
    std::uint32_t rank = kRequired;
  };
  struct Range {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    bool empty() const { return begin == end; }
  };

  std::uint32_t group_for(Kind kind, const PodAffinityTerm& term, std::string_view owner_ns);
  static bool modelled(const PodAffinityTerm& term);
  bool selects(const Group& g, std::string_view namespace_name, const Labels* labels) const;
  bool active(const Group& g, const Owned& o, const AffinityRelaxation& r) const;
  bool counted_in(std::uint32_t pod, std::uint32_t group) const;
  void record(Group& g, std::uint64_t zones, std::uint32_t node, std::uint32_t claim);
  void owned_terms(std::uint32_t pod);
  void selecting_groups(std::uint32_t pod);

  const SchedulingContext* ctx_ = nullptr;
  const SolveInput* in_ = nullptr;
  std::vector<Group> groups_;
  std::vector<int> node_zone_;  // per node: zone index, or -1
  // Per pod, ranges into the flat lists below (pods with the same spec and labels share them).
  std::vector<Owned> owned_;
  std::vector<std::uint32_t> counted_;  // groups (not inverse) that select the pod
  std::vector<std::uint32_t> blocked_;  // inverse groups that select the pod
  std::vector<std::uint32_t> inverse_;  // inverse groups of the pod's required anti-affinity
  std::vector<Range> owned_range_, counted_range_, blocked_range_, inverse_range_;
  std::vector<std::uint32_t> preferred_affinity_, preferred_anti_;  // per pod
};

}  // namespace fleetsim
