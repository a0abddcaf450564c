// The serving model against published measurements (issue 24, item 8): each row of
// calibration_rows.inc (tools/calibration/derive_calibration.py) is run as its source ran it, the
// engine's default calibration in force, and the statistic the source reports is compared with
// the published one. Targets: the median absolute error of TTFT, of per-token time and of
// throughput each ≤ 20 %, and every grade-A row within ±40 %.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/serving/reference_engine.hpp"
#include "unit/serving/engine_fixtures.hpp"

namespace fleetsim {
namespace {

enum class Load : std::uint8_t {
  Batch,    // every request at t = 0: offline, infinite rate or a static batch
  Poisson,  // `rate` requests per second
  Closed,   // `users` users, each sending its next request when its last one ends
};

struct CalibrationRow {
  const char* id;
  const char* source;
  const char* model;  // engine_fixtures.hpp's names
  const char* gpu;
  NumberFormat weights;
  NumberFormat kv_cache;
  std::uint32_t tp;
  EngineKind engine;
  const char* engine_label;
  // The settings the source's engine version ran with; 0 or -1: fleetsim's default.
  std::uint32_t max_num_seqs;
  std::uint32_t max_num_batched_tokens;
  int chunked_prefill;
  int reserve_output;
  // TensorRT-LLM sizes its KV cache as a share of the memory left free after the weights and
  // buffers (kv_cache_free_gpu_mem_fraction); 0: the engine's gpu_memory_utilization.
  double kv_free_fraction;
  Load load;
  const char* load_label;
  std::uint32_t requests;
  double rate;
  std::uint32_t users;
  std::uint32_t input;  // fixed lengths, or ShareGPT's means
  std::uint32_t output;
  bool sharegpt;
  char grade;
  // Published figures (ms and tokens/s); 0: not reported.
  double ttft_mean = 0;
  double ttft_median = 0;
  double tpot_mean = 0;
  double tpot_median = 0;
  double itl_mean = 0;
  double output_tok_s = 0;
};

const CalibrationRow kRows[] = {
#include "unit/serving/calibration_rows.inc"
};

// Grade-A rows the ±40 % bound does not hold for, with the reason: an error no calibration
// constant explains (README, "Serving speed against published measurements"). They stay in the
// table and in the medians.
struct KnownGap {
  const char* id;
  const char* reason;
};
constexpr KnownGap kKnownGaps[] = {
    {"M48",
     "TensorRT-LLM 0.6.1's static batch of 480 (Llama-2-70B fp8, TP4, 128/2048) ran 80 ms a "
     "step; the roofline of its weights, KV reads, FP8 GEMMs and all-reduces gives about 32 ms"},
};

const char* known_gap(const char* id) {
  for (const KnownGap& g : kKnownGaps)
    if (std::string_view(g.id) == id) return g.reason;
  return nullptr;
}

// ---- The workload as published ---------------------------------------------------------------

// ShareGPT's lengths as a log-normal with the published means and a spread of σ = 1 (its prompts
// and answers run from a few tokens to about two thousand), filtered as vLLM's and SGLang's
// benchmark_serving do: at least 4 tokens each, a prompt of at most 1024 and a pair of at most
// 2048 tokens.
std::vector<EngineRequest> requests_for(const CalibrationRow& row) {
  std::mt19937_64 rng(24);
  std::normal_distribution<double> z(0, 1);
  std::exponential_distribution<double> gap(row.rate > 0 ? row.rate : 1);
  constexpr double kSigma = 1.0;
  auto draw = [&](double mean) {
    return static_cast<std::uint32_t>(
        std::round(std::exp(std::log(mean) - kSigma * kSigma / 2 + kSigma * z(rng))));
  };
  std::vector<EngineRequest> out(row.requests);
  double t = 0;
  for (EngineRequest& r : out) {
    if (row.load == Load::Poisson) t += gap(rng);
    r = {.arrival = t, .prompt = row.input, .output = row.output};
    while (row.sharegpt) {
      r.prompt = draw(row.input);
      r.output = draw(row.output);
      if (r.prompt >= 4 && r.output >= 4 && r.prompt <= 1024 && r.prompt + r.output <= 2048) break;
    }
  }
  return out;
}

StepCost cost_for(const CalibrationRow& row, const EngineCalibration& override_calibration) {
  const auto model = test::model_named(row.model);
  const auto gpu = test::gpu_named(row.gpu);
  REQUIRE(model.has_value());
  REQUIRE(gpu.has_value());
  EngineOptions options{.kind = row.engine, .calibration_override = override_calibration};
  options.tensor_parallel_size = row.tp;
  if (row.max_num_seqs > 0) options.max_num_seqs = row.max_num_seqs;
  if (row.max_num_batched_tokens > 0) options.max_num_batched_tokens = row.max_num_batched_tokens;
  if (row.chunked_prefill >= 0) options.enable_chunked_prefill = row.chunked_prefill == 1;
  EngineLimits limits = resolve(options, *gpu, row.tp);
  if (row.reserve_output >= 0) limits.reserve_output = row.reserve_output == 1;
  const ServedModel served{.spec = *model, .weights = row.weights, .kv_cache = row.kv_cache};
  const ReplicaHardware hardware{.gpu = *gpu, .link = test::link_for(*gpu)};
  if (row.kv_free_fraction > 0) limits.gpu_memory_utilization = row.kv_free_fraction;
  return StepCost(served, hardware, limits);
}

// ---- The statistics as the sources compute them ----------------------------------------------

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Comparison {
  const CalibrationRow* row;
  std::string statistic;
  double published;
  double model;
  double error() const { return model / published - 1; }
  // TTFT, per-token time or throughput: the targets hold for each group apart.
  int group() const {
    if (statistic.starts_with("TTFT")) return 0;
    if (statistic.starts_with("output")) return 2;
    return 1;
  }
};

std::vector<Comparison> evaluate(const CalibrationRow& row, const EngineCalibration& calibration,
                                 std::uint64_t* rejected) {
  const StepCost cost = cost_for(row, calibration);
  std::vector<EngineRequest> requests = requests_for(row);
  const std::vector<EngineOutcome> outcomes =
      row.load == Load::Closed ? run_closed_loop_engine(cost, row.users, requests)
                               : run_closed_form_engine(cost, requests);
  std::vector<double> ttft, tpot;
  double decode_time = 0, decode_tokens = 0, output_tokens = 0, first = 1e300, last = 0;
  *rejected = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const EngineRequest& r = requests[i];
    const EngineOutcome& o = outcomes[i];
    if (o.rejected) {
      ++*rejected;
      continue;
    }
    ttft.push_back((o.first_token - r.arrival) * 1e3);
    if (r.output > 1) {
      tpot.push_back((o.finished - o.first_token) * 1e3 / (r.output - 1));
      decode_time += (o.finished - o.first_token) * 1e3;
      decode_tokens += r.output - 1;
    }
    output_tokens += r.output;
    first = std::min(first, r.arrival);
    last = std::max(last, o.finished);
  }
  std::vector<Comparison> out;
  auto add = [&](const char* statistic, double published, double model) {
    if (published > 0) out.push_back({&row, statistic, published, model});
  };
  add("TTFT mean (ms)", row.ttft_mean, mean(ttft));
  add("TTFT median (ms)", row.ttft_median, median(ttft));
  add("TPOT mean (ms)", row.tpot_mean, mean(tpot));
  add("TPOT median (ms)", row.tpot_median, median(tpot));
  // Inter-token latency: the mean gap over every streamed token after the first.
  add("ITL mean (ms)", row.itl_mean, decode_tokens > 0 ? decode_time / decode_tokens : 0);
  // From the first arrival to the last completion, as trtllm-bench and benchmark_serving count.
  add("output tokens/s", row.output_tok_s, last > first ? output_tokens / (last - first) : 0);
  return out;
}

// FLEETSIM_CALIBRATION="engine,bandwidth,compute,step_s,sequence_s,reserve_gib" replaces one
// engine's defaults (tools/calibration/fit_calibration.py); unset in the normal test.
EngineCalibration override_for(EngineKind kind) {
  const char* text = std::getenv("FLEETSIM_CALIBRATION");
  if (text == nullptr) return {};
  std::stringstream in(text);
  std::string engine;
  std::getline(in, engine, ',');
  if (parse_engine_kind(engine) != kind) return {};
  EngineCalibration c;
  char comma = 0;
  double reserve_gib = 0;
  in >> c.bandwidth_efficiency >> comma >> c.compute_efficiency >> comma >> c.step_overhead_s >>
      comma >> c.per_sequence_overhead_s >> comma >> reserve_gib;
  c.activation_reserve_bytes = reserve_gib * 1024 * 1024 * 1024;
  return c;
}

std::vector<Comparison> evaluate_all(std::uint64_t* rejected) {
  std::vector<Comparison> all;
  *rejected = 0;
  for (const CalibrationRow& row : kRows) {
    std::uint64_t r = 0;
    for (const Comparison& c : evaluate(row, override_for(row.engine), &r)) all.push_back(c);
    *rejected += r;
  }
  return all;
}

// Three significant figures, without an exponent.
std::string figure(double x) {
  return x >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}

std::string csv_line(const Comparison& c) {
  const CalibrationRow& r = *c.row;
  return fmt::format("{},{},{}×{},{},{},{},{},{},{:+.0f}%", r.id, r.model, r.gpu, r.tp,
                     r.engine_label, r.load_label, c.statistic, figure(c.published),
                     figure(c.model), 100 * c.error());
}

double median_abs_error(const std::vector<Comparison>& all, int group) {
  std::vector<double> errors;
  for (const Comparison& c : all)
    if (c.group() == group) errors.push_back(std::abs(c.error()));
  return median(errors);
}

TEST_CASE("The serving model meets the published measurements within the issue's targets",
          "[serving]") {
  std::uint64_t rejected = 0;
  const std::vector<Comparison> all = evaluate_all(&rejected);
  std::string table = "row,model,GPU×TP,engine,load,statistic,published,fleetsim,error\n";
  for (const Comparison& c : all) table += csv_line(c) + "\n";
  INFO(table);
  CHECK(rejected == 0);
  const char* groups[] = {"TTFT", "per-token time", "throughput"};
  for (int g = 0; g < 3; ++g) {
    INFO("median absolute error of " << groups[g]);
    CHECK(median_abs_error(all, g) <= 0.20);
  }
  for (const Comparison& c : all) {
    if (c.row->grade != 'A') continue;
    INFO(c.row->id << " " << c.statistic << ": published " << c.published << ", fleetsim "
                   << c.model);
    if (const char* reason = known_gap(c.row->id)) {
      // Still a gap: the day the model explains it, this fails and the exception goes.
      WARN(c.row->id << " is a known gap: " << reason);
      CHECK(std::abs(c.error()) > 0.40);
      continue;
    }
    CHECK(std::abs(c.error()) <= 0.40);
  }
}

TEST_CASE("The closed loop sends each request when the one before it ends", "[serving]") {
  // One user: no two requests overlap, so each one's arrival is the end of the one before and
  // its time to first token is one prefill step.
  const StepCost cost = test::step_cost(test::llama_8b(), test::h100());
  std::vector<EngineRequest> requests(5, EngineRequest{.prompt = 500, .output = 20});
  const auto outcomes = run_closed_loop_engine(cost, 1, requests);
  const double prefill = cost.seconds({.prefill_tokens = 500, .prefill_context = 500 * 250.0});
  REQUIRE(requests[0].arrival == 0);
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (i > 0) CHECK(requests[i].arrival == outcomes[i - 1].finished);
    CHECK(outcomes[i].first_token - requests[i].arrival == Approx(prefill).epsilon(1e-9));
  }
  // Two users on the same requests: two requests in flight from t = 0, so the last ends sooner.
  std::vector<EngineRequest> pair(5, EngineRequest{.prompt = 500, .output = 20});
  const auto two = run_closed_loop_engine(cost, 2, pair);
  CHECK(pair[0].arrival == 0);
  CHECK(pair[1].arrival == 0);
  CHECK(pair[2].arrival > 0);
  CHECK(two.back().finished < outcomes.back().finished);
}

// The table README "Serving speed against published measurements" shows, as CSV
// (derive_calibration.py --readme), and what fit_calibration.py reads.
TEST_CASE("Print the calibration table", "[.calibration-table]") {
  std::uint64_t rejected = 0;
  const std::vector<Comparison> all = evaluate_all(&rejected);
  for (const Comparison& c : all) std::cout << csv_line(c) << "\n";
  std::cout << fmt::format("median |error|: TTFT {:.1f}%, per-token {:.1f}%, throughput {:.1f}%\n",
                           100 * median_abs_error(all, 0), 100 * median_abs_error(all, 1),
                           100 * median_abs_error(all, 2));
  std::cout << "rejected requests: " << rejected << "\n";
  SUCCEED();
}

}  // namespace
}  // namespace fleetsim
