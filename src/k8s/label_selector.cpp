#include "fleetsim/k8s/label_selector.hpp"

#include <algorithm>

namespace fleetsim {

bool LabelSelector::matches(const Labels& labels) const {
  for (const auto& [key, value] : match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const SelectorExpression& e : match_expressions) {
    auto it = labels.find(e.key);
    const bool present = it != labels.end();
    const bool listed =
        present && std::find(e.values.begin(), e.values.end(), it->second) != e.values.end();
    switch (e.op) {
      case Operator::In:
        if (!listed) return false;
        break;
      case Operator::NotIn:
        if (listed) return false;
        break;
      case Operator::Exists:
        if (!present) return false;
        break;
      case Operator::DoesNotExist:
        if (present) return false;
        break;
      default:
        return false;  // the decoder admits only the four above
    }
  }
  return true;
}

}  // namespace fleetsim
