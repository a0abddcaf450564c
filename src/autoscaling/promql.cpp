#include "fleetsim/autoscaling/promql.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <system_error>

#include "fleetsim/core/ascii_case.hpp"
#include "fleetsim/core/error.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 5> kAggregates{"sum", "avg", "max", "min", "count"};
constexpr std::array<AggregateOp, 5> kAggregateOps{
    AggregateOp::Sum, AggregateOp::Avg, AggregateOp::Max, AggregateOp::Min, AggregateOp::Count};
// PromQL aggregations fleetsim does not evaluate (promql/parser/lex.go key words).
constexpr std::array<std::string_view, 9> kOtherAggregates{"topk",   "bottomk", "quantile",
                                                           "stddev", "stdvar",  "count_values",
                                                           "group",  "limitk",  "limit_ratio"};
constexpr std::array<std::string_view, 7> kRangeFunctions{
    "rate",          "increase",      "avg_over_time",  "max_over_time",
    "min_over_time", "sum_over_time", "count_over_time"};
constexpr std::array<RangeFunction, 7> kRangeFunctionIds{
    RangeFunction::Rate,         RangeFunction::Increase,    RangeFunction::AvgOverTime,
    RangeFunction::MaxOverTime,  RangeFunction::MinOverTime, RangeFunction::SumOverTime,
    RangeFunction::CountOverTime};
// Binary-operator modifiers and set operators, all outside the subset.
constexpr std::array<std::string_view, 9> kInfixKeywords{
    "and", "or", "unless", "atan2", "bool", "on", "ignoring", "group_left", "group_right"};
// Prometheus extrapolatedRate: extrapolate to a window end only if the gap to it is within
// 110% of the average sample spacing (promql/functions.go).
constexpr double kExtrapolationThresholdFactor = 1.1;
// Bounds on hostile input (DESIGN.md §9), far beyond any autoscaling query: the parser
// recurses, and a pattern's compiled size is bounded (RE2 matches in linear time).
constexpr int kMaxNesting = 64;  // nested expressions and unary signs together
constexpr std::size_t kMaxRegexBytes = 1024;
constexpr std::int64_t kMaxRegexMemory = 1 << 20;  // compiled program size cap

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

template <std::size_t N>
int index_of(const std::array<std::string_view, N>& list, std::string_view word) {
  for (std::size_t i = 0; i < N; ++i) {
    if (list[i] == word) return static_cast<int>(i);
  }
  return -1;
}

std::string_view op_text(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
      return "+";
    case BinaryOp::Sub:
      return "-";
    case BinaryOp::Mul:
      return "*";
    case BinaryOp::Div:
      return "/";
  }
  return "?";
}

}  // namespace

bool LabelMatcher::matches(std::string_view label_value) const {
  switch (op) {
    case MatchOp::Equal:
      return label_value == value;
    case MatchOp::NotEqual:
      return label_value != value;
    case MatchOp::Regex:
      return re2::RE2::FullMatch(label_value, *regex);
    case MatchOp::NotRegex:
      return !re2::RE2::FullMatch(label_value, *regex);
  }
  return false;
}

// Recursive descent over the query text, one character at a time (the subset needs no lexer).
class PromParser {
 public:
  explicit PromParser(std::string_view text) : text_(text) { q_.text_ = std::string(text); }

  PromQuery run() {
    int root = expr();
    skip_ws();
    if (!at_end()) {
      reject_infix();
      syntax(pos_, fmt::format("unexpected `{}`", token_text()));
    }
    if (is_range_selector(root)) {
      unsupported(start_of_[static_cast<std::size_t>(root)], "[range]",
                  " (a range vector) outside rate/increase/*_over_time");
    }
    q_.root_ = root;
    return std::move(q_);
  }

 private:
  [[noreturn]] void unsupported(std::size_t at, std::string_view construct,
                                std::string_view detail = {}) const {
    int col = static_cast<int>(at) + 1;
    throw PromQlError(col, fmt::format("unsupported PromQL: `{}`{} at column {}; {}", construct,
                                       detail, col, kPromQlSupported));
  }
  [[noreturn]] void syntax(std::size_t at, std::string_view message) const {
    int col = static_cast<int>(at) + 1;
    throw PromQlError(col, fmt::format("PromQL syntax error at column {}: {}", col, message));
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  // Whitespace and `#` comments, which run to the end of the line (Prometheus's lexer:
  // lexStatements -> lexLineComment).
  void skip_ws() {
    while (!at_end()) {
      if (peek() == '#') {
        while (!at_end() && peek() != '\n') ++pos_;
      } else if (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') {
        ++pos_;
      } else {
        return;
      }
    }
  }
  bool consume(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, std::string_view what) {
    if (!consume(c)) {
      syntax(pos_, fmt::format("expected `{}` {}, got {}", c, what,
                               at_end() ? "the end" : fmt::format("`{}`", token_text())));
    }
  }
  // A short excerpt of what is at pos_, for messages.
  std::string token_text() const {
    std::size_t end = pos_;
    if (end < text_.size() && is_name_char(text_[end])) {
      while (end < text_.size() && is_name_char(text_[end])) ++end;
    } else {
      end = std::min(text_.size(), pos_ + 1);
    }
    return std::string(text_.substr(pos_, end - pos_));
  }
  std::string_view peek_identifier() const {
    if (at_end() || !is_name_start(peek())) return {};
    std::size_t end = pos_;
    while (end < text_.size() && is_name_char(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  }
  std::string_view identifier() {
    std::string_view id = peek_identifier();
    pos_ += id.size();
    return id;
  }

  int add(PromNode n, std::size_t start) {
    q_.nodes_.push_back(std::move(n));
    start_of_.push_back(start);
    return static_cast<int>(q_.nodes_.size() - 1);
  }
  PromNode& node(int i) { return q_.nodes_[static_cast<std::size_t>(i)]; }
  bool is_range_selector(int i) {
    return node(i).kind == PromNodeKind::Selector && node(i).range > SimDuration{0};
  }

  // Comparisons, %, ^ and set operators are outside the subset: name them where they stand.
  void reject_infix() {
    skip_ws();
    for (std::string_view op : {"==", "!=", ">=", "<=", ">", "<", "%", "^"}) {
      if (text_.substr(pos_).starts_with(op)) unsupported(pos_, op);
    }
    std::string_view id = peek_identifier();
    if (!id.empty() && index_of(kInfixKeywords, id) >= 0) unsupported(pos_, id);
    if (id == "offset") unsupported(pos_, id);
    if (peek() == '@') unsupported(pos_, "@");
  }

  // Counts recursion depth for the life of one expr()/unary() call.
  struct Nesting {
    explicit Nesting(PromParser& p) : parser(p) {
      if (++parser.depth_ > kMaxNesting) {
        parser.syntax(parser.pos_, "the query is nested too deeply");
      }
    }
    ~Nesting() { --parser.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    PromParser& parser;
  };

  int expr() {
    Nesting nesting(*this);
    int lhs = term();
    for (;;) {
      skip_ws();
      std::size_t at = pos_;
      if (peek() != '+' && peek() != '-') break;
      BinaryOp op = peek() == '+' ? BinaryOp::Add : BinaryOp::Sub;
      ++pos_;
      reject_modifier();
      lhs = binary(op, lhs, term(), at);
    }
    reject_infix();
    return lhs;
  }

  int term() {
    int lhs = unary();
    for (;;) {
      skip_ws();
      std::size_t at = pos_;
      if (peek() != '*' && peek() != '/') break;
      BinaryOp op = peek() == '*' ? BinaryOp::Mul : BinaryOp::Div;
      ++pos_;
      reject_modifier();
      lhs = binary(op, lhs, unary(), at);
    }
    reject_infix();
    return lhs;
  }

  void reject_modifier() {
    skip_ws();
    std::string_view id = peek_identifier();
    if (!id.empty() && index_of(kInfixKeywords, id) >= 0) unsupported(pos_, id);
  }

  int unary() {
    Nesting nesting(*this);
    skip_ws();
    std::size_t at = pos_;
    if (peek() == '-' || peek() == '+') {
      bool negative = peek() == '-';
      ++pos_;
      int operand = unary();
      if (!negative) return operand;
      if (node(operand).kind == PromNodeKind::Number) {
        node(operand).number = -node(operand).number;
        return operand;
      }
      // Prometheus evaluates -v as -1 * v: the metric name goes too.
      int minus_one = add(PromNode{.kind = PromNodeKind::Number, .number = -1, .scalar = true}, at);
      return binary(BinaryOp::Mul, minus_one, operand, at);
    }
    return primary();
  }

  int binary(BinaryOp op, int lhs, int rhs, std::size_t at) {
    for (int side : {lhs, rhs}) {
      if (is_range_selector(side)) {
        unsupported(start_of_[static_cast<std::size_t>(side)], "[range]",
                    " (a range vector) outside rate/increase/*_over_time");
      }
    }
    return add(PromNode{.kind = PromNodeKind::Binary,
                        .op = op,
                        .lhs = lhs,
                        .rhs = rhs,
                        .scalar = node(lhs).scalar && node(rhs).scalar},
               at);
  }

  int primary() {
    skip_ws();
    std::size_t start = pos_;
    if (at_end()) syntax(pos_, "expected an expression, got the end");
    char c = peek();
    int result = -1;
    if (c == '(') {
      ++pos_;
      result = expr();
      expect(')', "to close the parenthesis");
    } else if (is_digit(c) || c == '.') {
      result = number(start);
    } else if (c == '{') {
      result = selector({}, start);
    } else if (c == '"' || c == '\'' || c == '`') {
      unsupported(start, "string literal");
    } else if (is_name_start(c)) {
      std::string_view id = identifier();
      if (iequals(id, "inf") || iequals(id, "nan")) {
        double v = iequals(id, "inf") ? std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::quiet_NaN();
        result = add(PromNode{.kind = PromNodeKind::Number, .number = v, .scalar = true}, start);
      } else if (int a = index_of(kAggregates, id); a >= 0) {
        result = aggregation(kAggregateOps[static_cast<std::size_t>(a)], id, start);
      } else if (index_of(kOtherAggregates, id) >= 0) {
        unsupported(start, id);
      } else {
        skip_ws();
        if (peek() == '(') {
          result = function(id, start);
        } else {
          result = selector(id, start);
        }
      }
    } else {
      syntax(pos_, fmt::format("unexpected `{}`", token_text()));
    }
    // Modifiers and subqueries after an operand.
    skip_ws();
    std::string_view id = peek_identifier();
    if (id == "offset") unsupported(pos_, "offset");
    if (peek() == '@') unsupported(pos_, "@");
    if (peek() == '[') {
      if (is_range_selector(result)) syntax(pos_, "a second range `[...]`");
      unsupported(pos_, "[range:step]", " (a subquery)");
    }
    return result;
  }

  int number(std::size_t start) {
    std::size_t end = pos_;
    while (end < text_.size() && (is_digit(text_[end]) || text_[end] == '.')) ++end;
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      std::size_t exp = end + 1;
      if (exp < text_.size() && (text_[exp] == '+' || text_[exp] == '-')) ++exp;
      if (exp < text_.size() && is_digit(text_[exp])) {
        end = exp;
        while (end < text_.size() && is_digit(text_[end])) ++end;
      }
    }
    double v = 0;
    auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + end, v);
    if (ec != std::errc{} || ptr != text_.data() + end) {
      syntax(start, fmt::format("bad number `{}`", text_.substr(pos_, end - pos_)));
    }
    pos_ = end;
    if (!at_end() && is_name_char(peek())) {
      syntax(pos_, fmt::format("unexpected `{}` after a number", token_text()));
    }
    return add(PromNode{.kind = PromNodeKind::Number, .number = v, .scalar = true}, start);
  }

  std::string string_literal() {
    skip_ws();
    std::size_t start = pos_;
    char quote = peek();
    if (quote != '"' && quote != '\'' && quote != '`') {
      syntax(pos_, fmt::format("expected a quoted string, got {}",
                               at_end() ? "the end" : fmt::format("`{}`", token_text())));
    }
    ++pos_;
    std::string out;
    for (;;) {
      if (at_end()) syntax(start, "unterminated string");
      char c = text_[pos_++];
      if (c == quote) break;
      if (c == '\\' && quote != '`') {
        if (at_end()) syntax(start, "unterminated string");
        char e = text_[pos_++];
        // Go's strconv.Unquote escapes (PromQL strings follow Go); \x, \u and octal are rare
        // in label values and rejected rather than half-supported.
        switch (e) {
          case '\\':
            out += '\\';
            break;
          case '"':
            out += '"';
            break;
          case '\'':
            out += '\'';
            break;
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'a':
            out += '\a';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'v':
            out += '\v';
            break;
          default:
            syntax(pos_ - 2, fmt::format("unknown escape `\\{}` in a string (write `\\\\{}` for a "
                                         "regex escape)",
                                         e, e));
        }
        continue;
      }
      out += c;
    }
    return out;
  }

  int selector(std::string_view metric, std::size_t start) {
    PromNode n{.kind = PromNodeKind::Selector};
    if (!metric.empty()) {
      n.matchers.push_back({.name = std::string(kMetricNameLabel),
                            .op = MatchOp::Equal,
                            .value = std::string(metric)});
    }
    skip_ws();
    if (peek() == '{') {
      ++pos_;
      for (;;) {
        skip_ws();
        if (peek() == '}') break;
        std::size_t label_at = pos_;
        std::string_view label = identifier();
        if (label.empty() || label.find(':') != std::string_view::npos) {
          syntax(label_at, fmt::format("expected a label name, got {}",
                                       at_end() ? "the end" : fmt::format("`{}`", token_text())));
        }
        skip_ws();
        LabelMatcher m{.name = std::string(label)};
        std::string_view rest = text_.substr(pos_);
        if (rest.starts_with("=~")) {
          m.op = MatchOp::Regex;
        } else if (rest.starts_with("!~")) {
          m.op = MatchOp::NotRegex;
        } else if (rest.starts_with("!=")) {
          m.op = MatchOp::NotEqual;
        } else if (rest.starts_with("=")) {
          m.op = MatchOp::Equal;
        } else {
          syntax(pos_, "expected =, !=, =~ or !~ after a label name");
        }
        pos_ += m.op == MatchOp::Equal ? 1 : 2;
        skip_ws();
        std::size_t value_at = pos_;
        m.value = string_literal();
        if (m.op == MatchOp::Regex || m.op == MatchOp::NotRegex) {
          if (m.value.size() > kMaxRegexBytes) {
            syntax(value_at, fmt::format("a regex longer than {} bytes", kMaxRegexBytes));
          }
          // RE2, as Prometheus uses: linear-time matching, whatever the pattern. FullMatch
          // anchors at both ends, as Prometheus anchors its matchers.
          re2::RE2::Options options;
          options.set_log_errors(false);
          options.set_max_mem(kMaxRegexMemory);
          auto regex = std::make_shared<const re2::RE2>(m.value, options);
          if (!regex->ok())
            syntax(value_at, fmt::format("bad regex \"{}\": {}", m.value, regex->error()));
          m.regex = std::move(regex);
        }
        n.matchers.push_back(std::move(m));
        skip_ws();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (peek() != '}') {
          syntax(pos_, fmt::format("expected `,` or `}}` in a selector, got {}",
                                   at_end() ? "the end" : fmt::format("`{}`", token_text())));
        }
      }
      ++pos_;
    }
    // Prometheus: "vector selector must contain at least one non-empty matcher".
    bool anchored = std::any_of(n.matchers.begin(), n.matchers.end(),
                                [](const LabelMatcher& m) { return !m.matches(""); });
    if (!anchored) {
      syntax(start, "a selector needs a metric name or a matcher that does not match \"\"");
    }
    skip_ws();
    if (peek() == '[') {
      std::size_t range_at = pos_;
      ++pos_;
      std::size_t close = text_.find(']', pos_);
      if (close == std::string_view::npos) syntax(range_at, "unterminated `[`");
      std::string_view inside = text_.substr(pos_, close - pos_);
      if (inside.find(':') != std::string_view::npos) {
        unsupported(range_at, "[range:step]", " (a subquery)");
      }
      n.range = duration(inside, pos_);
      pos_ = close + 1;
      q_.longest_range_ = std::max(q_.longest_range_, n.range);
    }
    return add(std::move(n), start);
  }

  // Prometheus durations (model.ParseDuration): units y w d h m s ms, largest first, e.g. 1m30s.
  SimDuration duration(std::string_view text, std::size_t at) {
    struct Unit {
      std::string_view name;
      SimDuration length;
    };
    // Prometheus counts a year as 365 days.
    constexpr std::array<Unit, 7> kUnits{{{"y", hours(24 * 365)},
                                          {"w", hours(24 * 7)},
                                          {"d", hours(24)},
                                          {"h", hours(1)},
                                          {"m", minutes(1)},
                                          {"s", seconds(1)},
                                          {"ms", millis(1)}}};
    std::size_t trimmed_begin = text.find_first_not_of(' ');
    std::size_t trimmed_end = text.find_last_not_of(' ');
    std::string_view s = trimmed_begin == std::string_view::npos
                             ? std::string_view{}
                             : text.substr(trimmed_begin, trimmed_end - trimmed_begin + 1);
    SimDuration total{0};
    std::size_t next_unit = 0;
    std::size_t i = 0;
    auto bad = [&]() {
      syntax(at, fmt::format("bad range duration `{}`; write it as Prometheus does, e.g. 30s, 1m, "
                             "1h30m",
                             text));
    };
    if (s.empty()) bad();
    while (i < s.size()) {
      std::int64_t n = 0;
      auto [ptr, ec] = std::from_chars(s.data() + i, s.data() + s.size(), n);
      if (ec != std::errc{} || ptr == s.data() + i || n < 0) bad();
      i = static_cast<std::size_t>(ptr - s.data());
      // "ms" before "m": take the longest unit name that fits.
      std::size_t match = kUnits.size();
      for (std::size_t k = next_unit; k < kUnits.size(); ++k) {
        if (s.substr(i).starts_with(kUnits[k].name) &&
            (match == kUnits.size() || kUnits[k].name.size() > kUnits[match].name.size())) {
          match = k;
        }
      }
      if (match == kUnits.size()) bad();
      constexpr std::int64_t kLimit = std::numeric_limits<std::int64_t>::max() / 4;
      if (n > kLimit / kUnits[match].length.count()) bad();
      total += kUnits[match].length * n;
      if (total.count() > kLimit) bad();
      i += kUnits[match].name.size();
      next_unit = match + 1;
    }
    if (total <= SimDuration{0}) syntax(at, "a range must be longer than 0");
    return total;
  }

  int function(std::string_view name, std::size_t start) {
    int f = index_of(kRangeFunctions, name);
    if (f < 0) unsupported(start, name);
    expect('(', "after the function name");
    skip_ws();
    std::size_t arg_at = pos_;
    int arg = expr();
    skip_ws();
    if (peek() == ',') syntax(pos_, fmt::format("{}() takes one argument", name));
    expect(')', "to close the call");
    if (!is_range_selector(arg)) {
      syntax(arg_at, fmt::format("{}() needs a range selector such as metric[1m]", name));
    }
    PromNode n = std::move(node(arg));
    n.kind = PromNodeKind::RangeFunction;
    n.function = kRangeFunctionIds[static_cast<std::size_t>(f)];
    return add(std::move(n), start);
  }

  void grouping_clause(PromNode& n) {
    n.without = identifier() == "without";
    expect('(', "after by/without");
    for (;;) {
      skip_ws();
      if (peek() == ')') break;
      std::size_t label_at = pos_;
      std::string_view label = identifier();
      if (label.empty() || label.find(':') != std::string_view::npos) {
        syntax(label_at, "expected a label name in by/without");
      }
      n.grouping.emplace_back(label);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != ')') syntax(pos_, "expected `,` or `)` in by/without");
    }
    ++pos_;
  }

  int aggregation(AggregateOp op, std::string_view name, std::size_t start) {
    PromNode n{.kind = PromNodeKind::Aggregate, .aggregate = op};
    bool grouped = false;
    skip_ws();
    std::string_view id = peek_identifier();
    if (id == "by" || id == "without") {
      grouping_clause(n);
      grouped = true;
    }
    expect('(', fmt::format("after {}", name));
    skip_ws();
    std::size_t arg_at = pos_;
    int arg = expr();
    skip_ws();
    if (peek() == ',') syntax(pos_, fmt::format("{}() takes one argument", name));
    expect(')', "to close the aggregation");
    if (is_range_selector(arg)) {
      unsupported(arg_at, "[range]", " (a range vector) outside rate/increase/*_over_time");
    }
    if (node(arg).scalar) syntax(arg_at, fmt::format("{}() needs an instant vector", name));
    skip_ws();
    id = peek_identifier();
    if (id == "by" || id == "without") {
      if (grouped) syntax(pos_, "a second by/without");
      grouping_clause(n);
    }
    n.lhs = arg;
    return add(std::move(n), start);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  PromQuery q_;
  std::vector<std::size_t> start_of_;  // each node's offset in the text, for messages
};

PromQuery PromQuery::parse(std::string_view text) { return PromParser(text).run(); }

std::optional<double> extrapolated_rate(std::span<const StoredSample> samples, SimTime t,
                                        SimDuration range, bool is_rate) {
  // promql/functions.go extrapolatedRate (Prometheus 2.x, float counters), in seconds.
  if (samples.size() < 2) return std::nullopt;
  double range_start = to_seconds(t - range);
  double range_end = to_seconds(t);
  double first_t = to_seconds(samples.front().at);
  double last_t = to_seconds(samples.back().at);
  double result = samples.back().value - samples.front().value;
  // A counter that went down was reset: what it had counted before the reset still counts.
  double previous = samples.front().value;
  for (const StoredSample& s : samples.subspan(1)) {
    if (s.value < previous) result += previous;
    previous = s.value;
  }
  double to_start = first_t - range_start;
  double to_end = range_end - last_t;
  double sampled = last_t - first_t;
  double average_gap = sampled / static_cast<double>(samples.size() - 1);
  if (result > 0 && samples.front().value >= 0) {
    // Counters start at 0: do not extrapolate back past where this one would have been 0.
    double to_zero = sampled * (samples.front().value / result);
    to_start = std::min(to_start, to_zero);
  }
  // Extrapolate to a window end only when a sample there is plausibly just out of view;
  // otherwise assume the series started or ended half a spacing beyond the samples.
  double threshold = average_gap * kExtrapolationThresholdFactor;
  double interval = sampled;
  interval += to_start < threshold ? to_start : average_gap / 2;
  interval += to_end < threshold ? to_end : average_gap / 2;
  result *= interval / sampled;
  if (is_rate) result /= to_seconds(range);
  return result;
}

namespace {

// Vector-to-vector arithmetic without on/ignoring: elements pair up when their label sets,
// less the metric name, are equal; unpaired ones drop out; the result keeps the left side's
// labels. A label set twice on one side is Prometheus' "many-to-many matching not allowed".
std::vector<PromElement> match_one_to_one(BinaryOp op, std::vector<PromElement> lhs,
                                          std::vector<PromElement> rhs);

struct Value {
  bool scalar = false;
  double number = 0;
  std::vector<PromElement> elements;
};

bool series_matches(const MetricsStore& store, SeriesId id,
                    const std::vector<LabelMatcher>& matchers) {
  return std::all_of(matchers.begin(), matchers.end(), [&](const LabelMatcher& m) {
    return m.matches(store.label_value(id, m.name));
  });
}

// The series a selector's matchers pick, using the metric-name index when there is one.
template <typename F>
void for_each_match(const MetricsStore& store, const std::vector<LabelMatcher>& matchers, F f) {
  for (const LabelMatcher& m : matchers) {
    if (m.name == kMetricNameLabel && m.op == MatchOp::Equal) {
      for (SeriesId id : store.series_named(m.value)) {
        if (series_matches(store, id, matchers)) f(id);
      }
      return;
    }
  }
  for (SeriesId id : store.all_series()) {
    if (series_matches(store, id, matchers)) f(id);
  }
}

LabelSet with_name(const MetricsStore& store, SeriesId id) {
  LabelSet labels = store.labels(id);
  Label name{.name = std::string(kMetricNameLabel), .value = store.metric(id)};
  labels.insert(std::upper_bound(labels.begin(), labels.end(), name), std::move(name));
  return labels;
}

void drop_name(LabelSet& labels) {
  std::erase_if(labels, [](const Label& l) { return l.name == kMetricNameLabel; });
}

double over_time(RangeFunction f, const std::vector<StoredSample>& samples) {
  double sum = 0;
  double max = samples.front().value;
  double min = samples.front().value;
  for (const StoredSample& s : samples) {
    sum += s.value;
    // As Prometheus: a NaN gives way to any number.
    if (s.value > max || std::isnan(max)) max = s.value;
    if (s.value < min || std::isnan(min)) min = s.value;
  }
  auto n = static_cast<double>(samples.size());
  switch (f) {
    case RangeFunction::AvgOverTime:
      return sum / n;
    case RangeFunction::MaxOverTime:
      return max;
    case RangeFunction::MinOverTime:
      return min;
    case RangeFunction::SumOverTime:
      return sum;
    case RangeFunction::CountOverTime:
      return n;
    case RangeFunction::Rate:
    case RangeFunction::Increase:
      break;
  }
  throw InternalError("over_time called for rate/increase");
}

double apply(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::Add:
      return a + b;
    case BinaryOp::Sub:
      return a - b;
    case BinaryOp::Mul:
      return a * b;
    case BinaryOp::Div:
      return a / b;  // IEEE: x/0 is ±Inf or NaN, as in Go
  }
  return 0;
}

struct Group {
  double sum = 0;
  double max = std::numeric_limits<double>::quiet_NaN();
  double min = std::numeric_limits<double>::quiet_NaN();
  std::size_t count = 0;
};

LabelSet group_key(const LabelSet& labels, const PromNode& n) {
  LabelSet key;
  for (const Label& l : labels) {
    bool listed = std::find(n.grouping.begin(), n.grouping.end(), l.name) != n.grouping.end();
    bool keep = n.without ? !listed && l.name != kMetricNameLabel : listed;
    if (keep) key.push_back(l);
  }
  return key;
}

Value eval(const std::vector<PromNode>& nodes, int index, const MetricsStore& store, SimTime t) {
  const PromNode& n = nodes[static_cast<std::size_t>(index)];
  Value out;
  switch (n.kind) {
    case PromNodeKind::Number:
      out.scalar = true;
      out.number = n.number;
      break;
    case PromNodeKind::Selector:
      for_each_match(store, n.matchers, [&](SeriesId id) {
        if (auto v = store.instant(id, t)) out.elements.push_back({with_name(store, id), *v});
      });
      break;
    case PromNodeKind::RangeFunction: {
      std::vector<StoredSample> samples;
      for_each_match(store, n.matchers, [&](SeriesId id) {
        samples.clear();
        // Range vectors leave staleness markers out (Prometheus does the same).
        for (const StoredSample& s : store.range(id, t, n.range)) {
          if (!is_stale_marker(s.value)) samples.push_back(s);
        }
        std::optional<double> v;
        if (n.function == RangeFunction::Rate || n.function == RangeFunction::Increase) {
          v = extrapolated_rate(samples, t, n.range, n.function == RangeFunction::Rate);
        } else if (!samples.empty()) {
          v = over_time(n.function, samples);
        }
        if (v) out.elements.push_back({store.labels(id), *v});  // functions drop the name
      });
      break;
    }
    case PromNodeKind::Aggregate: {
      Value in = eval(nodes, n.lhs, store, t);
      std::map<LabelSet, Group> groups;
      for (const PromElement& e : in.elements) {
        Group& g = groups[group_key(e.labels, n)];
        g.sum += e.value;
        if (g.count == 0 || e.value > g.max || std::isnan(g.max)) g.max = e.value;
        if (g.count == 0 || e.value < g.min || std::isnan(g.min)) g.min = e.value;
        ++g.count;
      }
      for (auto& [labels, g] : groups) {
        double v = 0;
        switch (n.aggregate) {
          case AggregateOp::Sum:
            v = g.sum;
            break;
          case AggregateOp::Avg:
            v = g.sum / static_cast<double>(g.count);
            break;
          case AggregateOp::Max:
            v = g.max;
            break;
          case AggregateOp::Min:
            v = g.min;
            break;
          case AggregateOp::Count:
            v = static_cast<double>(g.count);
            break;
        }
        out.elements.push_back({labels, v});
      }
      break;
    }
    case PromNodeKind::Binary: {
      Value a = eval(nodes, n.lhs, store, t);
      Value b = eval(nodes, n.rhs, store, t);
      if (a.scalar && b.scalar) {
        out.scalar = true;
        out.number = apply(n.op, a.number, b.number);
        break;
      }
      if (!a.scalar && !b.scalar) {
        out.elements = match_one_to_one(n.op, std::move(a.elements), std::move(b.elements));
        break;
      }
      // A vector and a scalar: arithmetic drops the metric name.
      bool vector_left = !a.scalar;
      Value& v = vector_left ? a : b;
      double s = vector_left ? b.number : a.number;
      for (PromElement& e : v.elements) {
        drop_name(e.labels);
        e.value = vector_left ? apply(n.op, e.value, s) : apply(n.op, s, e.value);
      }
      out.elements = std::move(v.elements);
      break;
    }
  }
  return out;
}

std::vector<PromElement> match_one_to_one(BinaryOp op, std::vector<PromElement> lhs,
                                          std::vector<PromElement> rhs) {
  auto by_labels = [op](std::vector<PromElement>& side, std::string_view which) {
    for (PromElement& e : side) drop_name(e.labels);
    std::sort(side.begin(), side.end(),
              [](const PromElement& a, const PromElement& b) { return a.labels < b.labels; });
    for (std::size_t i = 1; i < side.size(); ++i) {
      if (side[i].labels == side[i - 1].labels) {
        throw PromQlEvalError(
            fmt::format("many-to-many matching not allowed: two series with the same "
                        "labels on the {} side of `{}`",
                        which, op_text(op)));
      }
    }
  };
  by_labels(lhs, "left");
  by_labels(rhs, "right");
  std::vector<PromElement> out;
  std::size_t j = 0;
  for (PromElement& e : lhs) {
    while (j < rhs.size() && rhs[j].labels < e.labels) ++j;
    if (j == rhs.size() || rhs[j].labels != e.labels) continue;
    e.value = apply(op, e.value, rhs[j].value);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

std::vector<PromElement> PromQuery::evaluate_vector(const MetricsStore& store, SimTime t) const {
  Value v = eval(nodes_, root_, store, t);
  if (v.scalar) return {PromElement{.labels = {}, .value = v.number}};
  std::sort(v.elements.begin(), v.elements.end(),
            [](const PromElement& a, const PromElement& b) { return a.labels < b.labels; });
  return std::move(v.elements);
}

std::optional<double> PromQuery::evaluate(const MetricsStore& store, SimTime t) const {
  std::vector<PromElement> result = evaluate_vector(store, t);
  if (result.empty()) return std::nullopt;
  return result.front().value;
}

std::optional<std::vector<std::string>> PromQuery::metric_names() const {
  std::vector<std::string> names;
  // The nodes the root reaches, not every node parsed (a range function keeps its selector's
  // matchers itself).
  std::vector<int> open{root_};
  while (!open.empty()) {
    const PromNode& n = nodes_[static_cast<std::size_t>(open.back())];
    open.pop_back();
    if (n.kind == PromNodeKind::Selector || n.kind == PromNodeKind::RangeFunction) {
      const auto name =
          std::find_if(n.matchers.begin(), n.matchers.end(), [](const LabelMatcher& m) {
            return m.name == kMetricNameLabel && m.op == MatchOp::Equal;
          });
      if (name == n.matchers.end()) return std::nullopt;
      names.push_back(name->value);
    }
    for (const int child : {n.lhs, n.rhs})
      if (child >= 0) open.push_back(child);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fleetsim
