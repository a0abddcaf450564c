#include "fleetsim/k8s/pod_affinity.hpp"

#include <algorithm>

namespace fleetsim {

bool term_covers_namespace(const PodAffinityTerm& term, std::string_view owner_namespace,
                           std::string_view namespace_name) {
  if (term.namespace_selector) {
    const Labels namespace_labels{{std::string(kNamespaceNameLabel), std::string(namespace_name)}};
    if (term.namespace_selector->matches(namespace_labels)) return true;
  } else if (term.namespaces.empty()) {
    return namespace_name == owner_namespace;
  }
  return std::find(term.namespaces.begin(), term.namespaces.end(), namespace_name) !=
         term.namespaces.end();
}

bool term_selects(const PodAffinityTerm& term, std::string_view owner_namespace,
                  std::string_view namespace_name, const Labels* labels) {
  if (!term.selector || !term_covers_namespace(term, owner_namespace, namespace_name)) return false;
  static const Labels kNoLabels;
  return term.selector->matches(labels != nullptr ? *labels : kNoLabels);
}

}  // namespace fleetsim
