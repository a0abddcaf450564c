// The PromQL subset KEDA prometheus triggers may use, parsed once and evaluated over MetricsStore.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/autoscaling/metrics_store.hpp"
#include "fleetsim/core/time.hpp"

namespace re2 {
class RE2;
}

namespace fleetsim {

// What fleetsim evaluates, for error messages.
inline constexpr std::string_view kPromQlSupported =
    "fleetsim evaluates avg|sum|max|min|count over selectors, rate/increase, *_over_time, and "
    "+ - * / between them";

// A query fleetsim cannot parse or does not support. column is 1-based, in bytes of the query.
class PromQlError : public std::runtime_error {
 public:
  PromQlError(int column, const std::string& message)
      : std::runtime_error(message), column_(column) {}
  int column() const { return column_; }

 private:
  int column_;
};

// A query that parsed but cannot be evaluated on the data at hand (Prometheus returns an error
// for it, and a KEDA scaler reports a failed read).
class PromQlEvalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class MatchOp { Equal, NotEqual, Regex, NotRegex };

struct LabelMatcher {
  std::string name;
  MatchOp op = MatchOp::Equal;
  std::string value;
  std::shared_ptr<const re2::RE2> regex;  // Regex and NotRegex: the pattern, fully anchored

  bool matches(std::string_view label_value) const;
};

enum class PromNodeKind { Number, Selector, RangeFunction, Aggregate, Binary };
enum class RangeFunction {
  Rate,
  Increase,
  AvgOverTime,
  MaxOverTime,
  MinOverTime,
  SumOverTime,
  CountOverTime
};
enum class AggregateOp { Sum, Avg, Max, Min, Count };
enum class BinaryOp { Add, Sub, Mul, Div };

// One node of the syntax tree; children are indices into PromQuery::nodes().
struct PromNode {
  PromNodeKind kind = PromNodeKind::Number;
  double number = 0;                   // Number
  std::vector<LabelMatcher> matchers;  // Selector and RangeFunction (the name as __name__)
  SimDuration range{};                 // RangeFunction: the [w] window
  RangeFunction function = RangeFunction::Rate;
  AggregateOp aggregate = AggregateOp::Sum;
  bool without = false;               // Aggregate: `without (...)` rather than `by (...)`
  std::vector<std::string> grouping;  // Aggregate: the by/without labels
  BinaryOp op = BinaryOp::Add;
  int lhs = -1;  // Aggregate: the operand; Binary: both operands
  int rhs = -1;
  bool scalar = false;  // the node yields a scalar, not an instant vector
};

// One element of an instant vector result.
struct PromElement {
  LabelSet labels;  // with "__name__" while the metric name is kept
  double value = 0;
};

class PromQuery {
 public:
  // Parses `text`; throws PromQlError naming the construct and column on anything outside the
  // subset ("unsupported PromQL: `histogram_quantile` at column 1; fleetsim evaluates …").
  static PromQuery parse(std::string_view text);

  // The query's value at t as KEDA reads it: the first element of the result vector (elements
  // are ordered by label set, so "first" is deterministic), a scalar result as it is, nullopt
  // for an empty vector. The value may be NaN or ±Inf (a division by zero): callers decide.
  std::optional<double> evaluate(const MetricsStore& store, SimTime t) const;
  // The whole result, ordered by label set; a scalar result is one element with no labels.
  std::vector<PromElement> evaluate_vector(const MetricsStore& store, SimTime t) const;

  // The longest [w] window in the query (0 if none), for MetricsStore::require_range.
  SimDuration longest_range() const { return longest_range_; }
  // The metrics its selectors read, for MetricsStore::keep_only; nullopt when a selector names
  // none (`{__name__=~"…"}`, `{pod="a"}`), which may read any.
  std::optional<std::vector<std::string>> metric_names() const;
  const std::string& text() const { return text_; }
  const std::vector<PromNode>& nodes() const { return nodes_; }
  int root() const { return root_; }

 private:
  friend class PromParser;
  std::string text_;
  std::vector<PromNode> nodes_;
  int root_ = -1;
  SimDuration longest_range_{};
};

// Prometheus' rate()/increase() over the samples of one series in [t − range, t], with counter
// resets and extrapolation to the window's ends (promql/functions.go extrapolatedRate); nullopt
// with fewer than two samples. Exposed for tests.
std::optional<double> extrapolated_rate(std::span<const StoredSample> samples, SimTime t,
                                        SimDuration range, bool is_rate);

}  // namespace fleetsim
