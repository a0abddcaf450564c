// Whether a pod may run on a node: the one predicate that Karpenter's solver, kube-scheduler's
// binding step and validation share (resources, taints, nodeSelector and node affinity).
#pragma once

#include <cstdint>
#include <span>

#include "fleetsim/core/resources.hpp"
#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

// How PreferNoSchedule taints count. kube-scheduler only scores them (Ignore); Karpenter honours
// them until it relaxes a pod that fits nowhere else, and always when it sizes DaemonSet overhead.
enum class PreferNoSchedule : std::uint8_t { Honour, Ignore };

// The first taint that keeps the pod off, or nullptr.
const Taint* blocking_taint(const PodSpec& pod, std::span<const Taint> taints,
                            PreferNoSchedule prefer);

// One required node-selection term (the nodeSelector and one nodeSelectorTerm) against a node's
// labels, or against a NodePool's requirements for a node not launched yet.
inline bool term_allows(const Requirements& term, const Requirements& labels) {
  return term.empty() || !labels.incompatibility(term);
}

// The pod's required terms are ORed; each already holds the nodeSelector.
bool node_selection_allows(const PodSpec& pod, const Requirements& labels);

// A node as the predicate sees it.
struct NodeFacts {
  const Requirements& labels;
  std::span<const Taint> taints;
  Resources available;
};

bool pod_fits(const PodSpec& pod, const NodeFacts& node, PreferNoSchedule prefer);

}  // namespace fleetsim
