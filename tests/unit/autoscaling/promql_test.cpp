#include "fleetsim/autoscaling/promql.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace fleetsim;

namespace {

SimTime t(std::int64_t s) { return at(seconds(s)); }

std::optional<double> eval(const MetricsStore& store, std::string_view query, SimTime when) {
  return PromQuery::parse(query).evaluate(store, when);
}

std::string parse_error(std::string_view query) {
  try {
    PromQuery::parse(query);
  } catch (const PromQlError& e) {
    return e.what();
  }
  return "no error";
}

std::string fmt_column(int column) { return " at column " + std::to_string(column) + ";"; }

int error_column(std::string_view query) {
  try {
    PromQuery::parse(query);
  } catch (const PromQlError& e) {
    return e.column();
  }
  return 0;
}

// Four GPU pods: model-a-1 50, model-a-2 70, model-b-1 90, and xmodel-a-3 10 (no deployment),
// sampled at t = 0.
MetricsStore gpu_store() {
  MetricsStore store;
  auto pod = [&](std::string name, std::string deployment, double value) {
    SeriesId s = store.series("DCGM_FI_DEV_GPU_UTIL",
                              {{"pod", std::move(name)}, {"deployment", std::move(deployment)}});
    store.record(s, t(0), value);
  };
  pod("model-a-1", "model-a", 50);
  pod("model-a-2", "model-a", 70);
  pod("model-b-1", "model-b", 90);
  pod("xmodel-a-3", "", 10);
  store.record(store.series("vllm:num_requests_waiting", {{"pod", "model-b-1"}}), t(0), 3);
  return store;
}

}  // namespace

TEST_CASE("selectors match labels exactly and regexes fully anchored", "[autoscaling]") {
  MetricsStore store = gpu_store();
  CHECK(eval(store, R"(avg(DCGM_FI_DEV_GPU_UTIL{pod=~"model-a-.*"}))", t(0)) == 60.0);
  CHECK_FALSE(eval(store, R"(avg(DCGM_FI_DEV_GPU_UTIL{pod=~"model-a"}))", t(0)));  // anchored
  CHECK(eval(store, R"(count(DCGM_FI_DEV_GPU_UTIL{pod!~"model-a-.*"}))", t(0)) == 2.0);
  CHECK(eval(store, R"(count(DCGM_FI_DEV_GPU_UTIL{pod!="model-b-1"}))", t(0)) == 3.0);
  CHECK(eval(store, R"(DCGM_FI_DEV_GPU_UTIL{pod="model-b-1"})", t(0)) == 90.0);
  CHECK(eval(store, R"({__name__="DCGM_FI_DEV_GPU_UTIL",pod='model-a-2'})", t(0)) == 70.0);
  // An absent label reads as "": deployment="" picks the pod without one.
  CHECK(eval(store, R"(sum(DCGM_FI_DEV_GPU_UTIL{deployment=""}))", t(0)) == 10.0);
  // Without a metric name the matchers range over every metric.
  CHECK(eval(store, R"(count({pod=~"model-b-.*"}))", t(0)) == 2.0);
  // The result is ordered by label set; KEDA takes the first element.
  auto v = PromQuery::parse("DCGM_FI_DEV_GPU_UTIL").evaluate_vector(store, t(0));
  REQUIRE(v.size() == 4);
  CHECK(v[0].labels == LabelSet{{"__name__", "DCGM_FI_DEV_GPU_UTIL"},
                                {"deployment", "model-a"},
                                {"pod", "model-a-1"}});
  CHECK(v[3].value == 10.0);
  CHECK(eval(store, "DCGM_FI_DEV_GPU_UTIL", t(0)) == 50.0);
  CHECK_FALSE(eval(store, "missing_metric", t(0)));
}

TEST_CASE("a sample older than the 5-minute lookback is stale", "[autoscaling]") {
  MetricsStore store = gpu_store();
  CHECK(eval(store, "sum(DCGM_FI_DEV_GPU_UTIL)", t(300)) == 220.0);
  CHECK_FALSE(eval(store, "sum(DCGM_FI_DEV_GPU_UTIL)", t(301)));  // empty: no value for KEDA
}

TEST_CASE("aggregations, with and without grouping", "[autoscaling]") {
  MetricsStore store = gpu_store();
  CHECK(eval(store, "sum(DCGM_FI_DEV_GPU_UTIL)", t(0)) == 220.0);
  CHECK(eval(store, "avg(DCGM_FI_DEV_GPU_UTIL)", t(0)) == 55.0);
  CHECK(eval(store, "max(DCGM_FI_DEV_GPU_UTIL)", t(0)) == 90.0);
  CHECK(eval(store, "min(DCGM_FI_DEV_GPU_UTIL)", t(0)) == 10.0);
  CHECK(eval(store, "count(DCGM_FI_DEV_GPU_UTIL)", t(0)) == 4.0);
  CHECK(eval(store, R"(sum(vllm:num_requests_waiting{pod="model-b-1"}))", t(0)) == 3.0);
  for (std::string_view q :
       {"sum by (deployment) (DCGM_FI_DEV_GPU_UTIL)", "sum(DCGM_FI_DEV_GPU_UTIL) by (deployment)",
        "sum without (pod) (DCGM_FI_DEV_GPU_UTIL)"}) {
    auto v = PromQuery::parse(q).evaluate_vector(store, t(0));
    REQUIRE(v.size() == 3);
    CHECK(v[0].labels.empty());  // the pod without a deployment label
    CHECK(v[0].value == 10.0);
    CHECK(v[1].labels == LabelSet{{"deployment", "model-a"}});
    CHECK(v[1].value == 120.0);
    CHECK(v[2].value == 90.0);
  }
  CHECK(eval(store, "max by (deployment) (DCGM_FI_DEV_GPU_UTIL{deployment!=\"\"})", t(0)) == 70.0);
}

TEST_CASE("rate and increase follow Prometheus: resets and extrapolation", "[autoscaling]") {
  MetricsStore store;
  SeriesId c = store.series("vllm:request_success_total", {{"namespace", "serving"}, {"pod", "a"}});
  // A reset between 25 s and 40 s: 100, 130, then 10, 40.
  store.record(c, t(10), 100);
  store.record(c, t(25), 130);
  store.record(c, t(40), 10);
  store.record(c, t(55), 40);
  // Over [0, 60]: raw increase 40 − 100 + 130 (the reset) = 70 across 45 s of samples; both
  // gaps (10 s, 5 s) are under 1.1 × the 15 s spacing, so it extrapolates to the full 60 s:
  // 70 × 60 / 45 = 280/3; the rate divides by the 60 s window.
  CHECK(eval(store, "increase(vllm:request_success_total[1m])", t(60)) ==
        Approx(280.0 / 3).epsilon(1e-12));
  CHECK(eval(store, "rate(vllm:request_success_total[1m])", t(60)) ==
        Approx(14.0 / 9).epsilon(1e-12));

  // Two pods summed, as KEDA users write it.
  SeriesId d = store.series("vllm:request_success_total", {{"namespace", "serving"}, {"pod", "b"}});
  // 1, 4, 7 at 20, 35, 50 s: the counter would reach 0 only 5 s before the first sample, less
  // than the 20 s gap to the window start, so it extrapolates back 5 s and forward 10 s:
  // 6 × 45 / 30 = 9.
  store.record(d, t(20), 1);
  store.record(d, t(35), 4);
  store.record(d, t(50), 7);
  CHECK(eval(store, R"(increase(vllm:request_success_total{pod="b"}[1m]))", t(60)) ==
        Approx(9.0).epsilon(1e-12));
  CHECK(eval(store, R"(sum(rate(vllm:request_success_total{namespace="serving"}[1m])))", t(60)) ==
        Approx(14.0 / 9 + 0.15).epsilon(1e-12));

  // A gap to the start above 1.1 × the spacing extrapolates only half a spacing:
  // 100, 110 at 40 s, 55 s over [0, 60]: 10 × (15 + 7.5 + 5) / 15 = 55/3.
  MetricsStore late;
  SeriesId e = late.series("c", {});
  late.record(e, t(40), 100);
  late.record(e, t(55), 110);
  CHECK(eval(late, "increase(c[1m])", t(60)) == Approx(55.0 / 3).epsilon(1e-12));
  // One sample is no rate.
  CHECK_FALSE(eval(late, "rate(c[10s])", t(60)));
  // Staleness markers are not samples.
  late.mark_stale(e, t(58));
  CHECK(eval(late, "increase(c[1m])", t(60)) == Approx(55.0 / 3).epsilon(1e-12));
}

TEST_CASE("*_over_time over [t - w, t]", "[autoscaling]") {
  MetricsStore store;
  SeriesId s = store.series("DCGM_FI_DEV_GPU_UTIL", {{"deployment", "x"}});
  for (int i = 0; i <= 8; ++i) store.record(s, t(15 * i), 10.0 * i);
  const char* q = R"(avg_over_time(DCGM_FI_DEV_GPU_UTIL{deployment="x"}[2m]))";
  CHECK(eval(store, q, t(120)) == 40.0);  // 0, 10, …, 80
  CHECK(eval(store, q, t(130)) == 45.0);  // 10, …, 80
  CHECK(eval(store, "max_over_time(DCGM_FI_DEV_GPU_UTIL[2m])", t(130)) == 80.0);
  CHECK(eval(store, "min_over_time(DCGM_FI_DEV_GPU_UTIL[2m])", t(130)) == 10.0);
  CHECK(eval(store, "sum_over_time(DCGM_FI_DEV_GPU_UTIL[30s])", t(120)) == 210.0);
  CHECK(eval(store, "count_over_time(DCGM_FI_DEV_GPU_UTIL[1m30s])", t(120)) == 7.0);
  CHECK_FALSE(eval(store, "avg_over_time(DCGM_FI_DEV_GPU_UTIL[10s])", t(500)));
  CHECK(PromQuery::parse(q).longest_range() == minutes(2));
  CHECK(PromQuery::parse("sum(x)").longest_range() == SimDuration{0});
}

TEST_CASE("a query names the metrics it reads unless a selector may read any", "[autoscaling]") {
  using Names = std::optional<std::vector<std::string>>;
  CHECK(PromQuery::parse("sum(rate(a_total[1m])) / sum(b{pod=\"x\"}) + 2").metric_names() ==
        Names{std::vector<std::string>{"a_total", "b"}});
  CHECK(PromQuery::parse("3").metric_names() == Names{std::vector<std::string>{}});
  CHECK(PromQuery::parse("sum({__name__=~\"vllm:.*\"})").metric_names() == std::nullopt);
  CHECK(PromQuery::parse("sum({pod=\"x\"})").metric_names() == std::nullopt);
}

TEST_CASE("binary operations between a result and a number", "[autoscaling]") {
  MetricsStore store = gpu_store();
  CHECK(eval(store, R"(avg(DCGM_FI_DEV_GPU_UTIL{pod=~"model-a-.*"}) / 100)", t(0)) == 0.6);
  CHECK(eval(store, "2 * sum(DCGM_FI_DEV_GPU_UTIL)", t(0)) == 440.0);
  CHECK(eval(store, "sum(DCGM_FI_DEV_GPU_UTIL) - 20 / 2", t(0)) == 210.0);
  CHECK(eval(store, "-max(DCGM_FI_DEV_GPU_UTIL) + 100", t(0)) == 10.0);
  CHECK(eval(store, "(1 + 2) * 3", t(0)) == 9.0);
  CHECK(eval(store, "1 + 2 * 3", t(0)) == 7.0);
  CHECK(eval(store, "1e2 - .5", t(0)) == 99.5);
  auto v =
      PromQuery::parse(R"(DCGM_FI_DEV_GPU_UTIL{pod="model-b-1"} * 2)").evaluate_vector(store, t(0));
  REQUIRE(v.size() == 1);
  CHECK(v[0].value == 180.0);
  CHECK(v[0].labels == LabelSet{{"deployment", "model-b"}, {"pod", "model-b-1"}});  // no name
  CHECK(std::isinf(*eval(store, "sum(DCGM_FI_DEV_GPU_UTIL) / 0", t(0))));
  CHECK_FALSE(eval(store, "sum(missing) * 2", t(0)));
}

TEST_CASE("arithmetic between two vectors pairs equal label sets", "[autoscaling]") {
  MetricsStore store = gpu_store();
  // Two sums without grouping: one element each, both with no labels.
  CHECK(eval(store,
             R"(sum(DCGM_FI_DEV_GPU_UTIL{deployment="model-a"}) + sum(vllm:num_requests_waiting))",
             t(0)) == 123.0);
  // Grouped: only the groups present on both sides pair up; the left side's labels stay.
  auto v = PromQuery::parse(
               R"(sum by (pod) (DCGM_FI_DEV_GPU_UTIL) / sum by (pod) (vllm:num_requests_waiting))")
               .evaluate_vector(store, t(0));
  REQUIRE(v.size() == 1);
  CHECK(v[0].labels == LabelSet{{"pod", "model-b-1"}});
  CHECK(v[0].value == 30.0);
  // Selectors pair by labels less the metric name; here no pod has both metrics' labels.
  CHECK_FALSE(eval(store, "DCGM_FI_DEV_GPU_UTIL - vllm:num_requests_waiting", t(0)));
  // Division by a zero vector element is +Inf, as in Prometheus.
  store.record(store.series("zero", {}), t(0), 0);
  CHECK(std::isinf(*eval(store, "sum(vllm:num_requests_waiting) / sum(zero)", t(0))));
}

TEST_CASE("two series with one label set on a side fail the query", "[autoscaling]") {
  MetricsStore store = gpu_store();
  store.record(store.series("dup_a", {{"pod", "p"}}), t(0), 1);
  store.record(store.series("dup_b", {{"pod", "p"}}), t(0), 2);
  // {__name__="dup_a"} and {__name__="dup_b"} are the same set once the names go.
  const PromQuery q = PromQuery::parse(R"({__name__=~"dup_.*"} + {__name__="dup_a"})");
  CHECK_THROWS_AS(q.evaluate(store, t(0)), PromQlEvalError);
}

TEST_CASE("unsupported PromQL is rejected naming the construct and column", "[autoscaling]") {
  CHECK(parse_error("histogram_quantile(0.9, rate(x[5m]))") ==
        "unsupported PromQL: `histogram_quantile` at column 1; fleetsim evaluates "
        "avg|sum|max|min|count over selectors, rate/increase, *_over_time, and + - * / "
        "between them");
  struct Case {
    std::string_view query;
    std::string_view construct;
    int column;
  };
  for (const Case& c :
       {Case{"topk(3, m)", "`topk`", 1}, Case{"irate(m[1m])", "`irate`", 1},
        Case{"sum(label_replace(m, \"a\", \"b\", \"c\", \"d\"))", "`label_replace`", 5},
        Case{"sum(m) > 5", "`>`", 8}, Case{"sum(m) == 5", "`==`", 8}, Case{"sum(m) % 2", "`%`", 8},
        Case{"sum(m) ^ 2", "`^`", 8}, Case{"sum(m) and sum(n)", "`and`", 8},
        Case{"m * on(a) n", "`on`", 5}, Case{"m offset 5m", "`offset`", 3},
        Case{"m @ 100", "`@`", 3}, Case{"rate(m[5m:1m])", "`[range:step]` (a subquery)", 7},
        Case{"max_over_time(rate(m[1m])[5m:])", "`[range:step]` (a subquery)", 26},
        Case{"m[5m]", "`[range]` (a range vector)", 1},
        Case{"sum(m[5m])", "`[range]` (a range vector)", 5},
        Case{"\"text\"", "`string literal`", 1}}) {
    INFO(c.query);
    std::string error = parse_error(c.query);
    CHECK(error.starts_with(std::string("unsupported PromQL: ") + std::string(c.construct)));
    CHECK(error.find(fmt_column(c.column)) != std::string::npos);
    CHECK(error_column(c.query) == c.column);
  }
}

TEST_CASE("PromQL syntax errors name the column", "[autoscaling]") {
  CHECK(parse_error("sum(m") ==
        "PromQL syntax error at column 6: expected `)` to close the aggregation, got the end");
  CHECK(parse_error("rate(m)") ==
        "PromQL syntax error at column 6: rate() needs a range selector such as metric[1m]");
  CHECK(parse_error(R"({pod=~".*"})") ==
        "PromQL syntax error at column 1: a selector needs a metric name or a matcher that does "
        "not match \"\"");
  CHECK(parse_error("m[5x]") ==
        "PromQL syntax error at column 3: bad range duration `5x`; write it as Prometheus does, "
        "e.g. 30s, 1m, 1h30m");
  CHECK(parse_error("m[1s1m]").starts_with("PromQL syntax error at column 3: bad range"));
  CHECK(parse_error(R"(m{pod="a")") ==
        "PromQL syntax error at column 10: expected `,` or `}` in a selector, got the end");
  CHECK(parse_error(R"(m{pod=~"("})").starts_with("PromQL syntax error at column 8: bad regex"));
  CHECK(
      parse_error(R"(m{pod="\d"})").starts_with("PromQL syntax error at column 8: unknown escape"));
  CHECK(parse_error("sum(m) sum(n)") == "PromQL syntax error at column 8: unexpected `sum`");
  CHECK(parse_error("") == "PromQL syntax error at column 1: expected an expression, got the end");
  CHECK(parse_error("sum(1)") == "PromQL syntax error at column 5: sum() needs an instant vector");
  CHECK(parse_error("5m") == "PromQL syntax error at column 2: unexpected `m` after a number");
  // Hostile input is refused, not recursed into.
  CHECK(parse_error(std::string(100'000, '(')) ==
        "PromQL syntax error at column 33: the query is nested too deeply");
  CHECK(parse_error(std::string(100'000, '-') + "1").starts_with("PromQL syntax error"));
  CHECK(parse_error("m{pod=~\"" + std::string(2000, 'a') + "\"}") ==
        "PromQL syntax error at column 8: a regex longer than 1024 bytes");
}

TEST_CASE("the queries users write for GPU serving parse", "[autoscaling]") {
  for (
      std::string_view q : {
          R"(avg(DCGM_FI_DEV_GPU_UTIL{pod=~"model-a-.*"}))",
          R"(sum(vllm:num_requests_waiting{model_name="llama"}))",
          R"(sum(rate(vllm:request_success_total{namespace="serving"}[1m])))",
          R"(avg_over_time(DCGM_FI_DEV_GPU_UTIL{deployment="x"}[2m]))",
          R"(sum by (model_name) (vllm:num_requests_running{namespace="serving", model_name!~"x|y",}) / 4)",
          "up",
      }) {
    INFO(q);
    CHECK(parse_error(q) == "no error");
  }
}

TEST_CASE("regex matchers run in linear time and speak RE2 (issue 13, class 4)", "[autoscaling]") {
  // (.*)*z backtracks exponentially in a backtracking engine: on a 5,000-character label
  // std::regex did not finish; RE2, as Prometheus uses, answers at once.
  MetricsStore store;
  store.record(store.series("x", {{"pod", std::string(5000, 'a')}}), t(0), 1);
  CHECK_FALSE(eval(store, R"(count(x{pod=~"(.*)*z"}))", t(0)));
  store.record(store.series("x", {{"pod", std::string(5000, 'a') + "z"}}), t(0), 1);
  CHECK(eval(store, R"(count(x{pod=~"(.*)*z"}))", t(0)) == 1.0);
  // RE2 syntax: \d is fine; backreferences are refused, as in Prometheus.
  CHECK(eval(gpu_store(), R"(count(DCGM_FI_DEV_GPU_UTIL{pod=~"model-[ab]-\\d"}))", t(0)) == 3.0);
  CHECK(
      parse_error(R"(m{pod=~"(a)\\1"})").starts_with("PromQL syntax error at column 8: bad regex"));
}

TEST_CASE("a # comment runs to the end of the line, outside strings (issue 12, finding 6)",
          "[autoscaling]") {
  // Prometheus's lexer (promql/parser/lex.go lexLineComment); a query folded over lines in a
  // ScaledObject's YAML often carries one.
  MetricsStore store = gpu_store();
  CHECK(eval(store,
             "sum(DCGM_FI_DEV_GPU_UTIL{deployment=\"model-a\"}) # both replicas\n"
             "  / 2 # per replica",
             t(0)) == 60);
  CHECK(eval(store, R"(sum(DCGM_FI_DEV_GPU_UTIL{pod="model-#-1"}))", t(0)) == std::nullopt);
  CHECK(parse_error("# only a comment") != "no error");
}
