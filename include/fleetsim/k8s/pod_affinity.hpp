// Which pods a podAffinity / podAntiAffinity term selects: its namespaces and its label selector.
#pragma once

#include <string_view>

#include "fleetsim/k8s/pod_spec.hpp"

namespace fleetsim {

// The label every namespace carries with its own name (Kubernetes sets it since 1.22); the only
// namespace label fleetsim knows, as it models namespaces as names.
inline constexpr std::string_view kNamespaceNameLabel = "kubernetes.io/metadata.name";

// Whether the term, written on a pod of `owner_namespace`, looks at pods of `namespace_name`
// (Karpenter's buildNamespaceList: the listed namespaces and those the namespaceSelector picks,
// or the owner's own namespace when neither is given).
bool term_covers_namespace(const PodAffinityTerm& term, std::string_view owner_namespace,
                           std::string_view namespace_name);

// Whether the term selects a pod with `labels` (nullptr: none) in `namespace_name`. A term
// without a labelSelector selects no pod.
bool term_selects(const PodAffinityTerm& term, std::string_view owner_namespace,
                  std::string_view namespace_name, const Labels* labels);

}  // namespace fleetsim
