// Topology spread over zones and hostnames during one solve (Karpenter's TopologyGroup).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fleetsim/scheduling/scheduling_context.hpp"
#include "fleetsim/scheduling/solve_types.hpp"

namespace fleetsim {

class SpreadGroups {
 public:
  void build(const SchedulingContext& ctx, const SolveInput& in, std::uint64_t zone_universe);

  bool has_soft(std::uint32_t pod) const;
  bool has_zonal(std::uint32_t pod, bool honor_soft) const;
  // Existing node: its zone keeps every zonal skew, and its pod count every hostname skew.
  bool allows_node(std::uint32_t pod, std::uint32_t node, std::string_view zone, bool honor_soft,
                   std::uint64_t pod_zones) const;
  // A NodeClaim of this solve keeps every hostname skew.
  bool allows_claim(std::uint32_t pod, std::uint32_t claim, bool honor_soft) const;
  // Single-zone masks within `zones` that keep every zonal skew, least-populated first.
  void zones_by_preference(std::uint32_t pod, std::uint64_t zones, bool honor_soft,
                           std::uint64_t pod_zones, std::vector<std::uint64_t>& out) const;

  void add_claim();
  void record_node(std::uint32_t pod, std::uint32_t node, std::string_view zone);
  void record_claim(std::uint32_t pod, std::uint32_t claim, std::uint64_t zones);

 private:
  struct Group {
    bool zonal = true;
    std::string_view namespace_name;
    const TopologySpread* constraint = nullptr;  // the first pod's: selector, minDomains, policies
    const PodSpec* filter = nullptr;             // whose node selection and tolerations count
    int max_skew = 1;
    bool hard = true;
    std::vector<int> zone_counts;
    std::vector<int> node_counts;
    std::vector<int> claim_counts;
  };
  bool selects(const Group& g, std::uint32_t pod) const;
  bool applies(const Group& g, bool honor_soft) const { return g.hard || honor_soft; }
  std::uint64_t allowed_zones(std::uint32_t pod, bool honor_soft, std::uint64_t pod_zones) const;

  const SchedulingContext* ctx_ = nullptr;
  const SolveInput* in_ = nullptr;
  std::vector<Group> groups_;
  std::vector<std::vector<std::uint32_t>> constrained_by_;  // per pod: groups in its constraints
  std::vector<std::vector<std::uint32_t>> counted_in_;      // per pod: groups that select it
};

}  // namespace fleetsim
