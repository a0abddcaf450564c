// Why a pod's node requirements keep it off a NodePool, in words: built only for pods that
// failed, never in the solver's inner loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/scheduling/scheduling_context.hpp"

namespace fleetsim {

// The pod's requirement on `key` as the user wrote it: "nodeSelector K=V" when the nodeSelector
// alone set it, else "node affinity K In [a, b]" (or NotIn, Exists, ">=N").
std::string describe_pod_requirement(const PodSpec& spec, const std::string& key,
                                     const Requirement& requirement);

// Why no node of pool `pool` can satisfy `term` (one required term of the pod, nodeSelector
// included), or nullopt when some instance type of the pool can. Karpenter's order
// (nodeclaim.go CanAdd): the pool's requirements and labels first (Compatible), then the labels
// of the instance types left (filterInstanceTypesByRequirements), so a resource shortfall is never
// blamed for what a requirement did. `term_types`: the catalog types compatible with `term`, when
// the caller has them.
std::optional<std::string> requirements_objection(const SchedulingContext& ctx, std::uint32_t pool,
                                                  const PodSpec& spec, const Requirements& term,
                                                  const TypeSet* term_types = nullptr);

// "NodePool", or "node group" for an eksctl node group read as one.
std::string_view pool_noun(const NodePool& pool);

// Why a node carrying `labels` cannot satisfy `term` (the predicate's term_allows), or nullopt:
// a custom label the node lacks, or the first key whose values miss. `who` names the node in
// the message: "the node group" for a group's template node.
std::optional<std::string> node_labels_objection(const PodSpec& spec, const Requirements& term,
                                                 const Requirements& labels, std::string_view who);

}  // namespace fleetsim
