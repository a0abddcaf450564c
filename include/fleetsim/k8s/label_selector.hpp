// A Kubernetes label selector: matchLabels and matchExpressions, ANDed.
#pragma once

#include <string>
#include <vector>

#include "fleetsim/k8s/requirements.hpp"

namespace fleetsim {

// One matchExpressions entry: In, NotIn, Exists or DoesNotExist.
struct SelectorExpression {
  std::string key;
  Operator op = Operator::In;
  std::vector<std::string> values;
  friend bool operator==(const SelectorExpression&, const SelectorExpression&) = default;
};

struct LabelSelector {
  Labels match_labels;
  std::vector<SelectorExpression> match_expressions;

  // An empty selector ({}) selects everything.
  bool matches(const Labels& labels) const;
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

}  // namespace fleetsim
