// kube-scheduler's scores for what a pod prefers of a node: TaintToleration (PreferNoSchedule
// taints) and NodeAffinity (preferred terms), with the framework's default normalization.
#pragma once

#include <cstdint>
#include <span>

#include "fleetsim/k8s/pod_spec.hpp"
#include "fleetsim/k8s/requirements.hpp"
#include "fleetsim/k8s/taints.hpp"

namespace fleetsim {

// tainttoleration: how many of the node's PreferNoSchedule taints the pod does not tolerate.
std::int64_t intolerable_preferences(const PodSpec& pod, std::span<const Taint> taints);

// nodeaffinity: the summed weights of the pod's preferred terms the node's labels satisfy.
std::int64_t preferred_affinity_weight(const PodSpec& pod, const Requirements& labels);

// helper.DefaultNormalizeScore: scales to 0–100 by the highest score (integer), reversed as
// 100 − that when `reverse`; all-zero scores stay 0, or become 100 when reversed.
void default_normalize(std::span<std::int64_t> scores, bool reverse);

}  // namespace fleetsim
