#include "fleetsim/cli/serving_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>

#include "fleetsim/core/time.hpp"
#include "fleetsim/service/replica_engine.hpp"
#include "fleetsim/serving/reference_engine.hpp"

namespace fleetsim {

namespace {

// Each user sends this many requests: a warm-up one, then the measured ones. Fixed lengths keep
// a closed loop periodic, so a few rounds are its steady state.
constexpr std::uint32_t kRounds = 5;

constexpr std::array<std::uint32_t, 4> kTpDegrees{1, 2, 4, 8};

// Batch-1 TTFT: the prompt prefilled alone, in chunks of the token budget, as the engine does
// it (reference_engine.cpp: a chunk's attention spans its tokens' positions).
double batch1_ttft(const StepCost& cost, std::uint32_t input) {
  const double budget = std::max<std::uint32_t>(1, cost.limits().max_num_batched_tokens);
  double done = 0, seconds = 0;
  while (done < input) {
    const double chunk = std::min(budget, input - done);
    seconds +=
        cost.seconds({.prefill_tokens = chunk, .prefill_context = chunk * (done + chunk / 2)});
    done += chunk;
  }
  return seconds;
}

// Per-token time at batch 1: one sequence's decode step at its mean context over its output.
double batch1_tpot(const StepCost& cost, std::uint32_t input, std::uint32_t output) {
  return cost.seconds({.decodes = 1, .decode_context = input + output / 2.0});
}

// The most requests the KV cache holds whole: its blocks ÷ the blocks one request ends with,
// and no more than max_num_seqs.
std::uint32_t kv_batch(const StepCost& cost, std::uint32_t input, std::uint32_t output) {
  const std::int64_t block = cost.limits().block_tokens;
  const std::int64_t per_request = (std::int64_t{input} + output + block - 1) / block;
  const std::int64_t held = cost.kv_capacity_tokens() / block / per_request;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(held, 0, cost.limits().max_num_seqs));
}

bool meets(const LoadPoint& p, const ServingTableQuery& q) {
  return (!q.ttft_slo_s || p.ttft_s <= *q.ttft_slo_s) &&
         (!q.tpot_slo_s || p.tpot_s <= *q.tpot_slo_s);
}

// The largest batch up to `limit` whose measurement meets the SLOs: doubling from 1, then
// bisection between the last batch that met them and the first that did not (TTFT and TPOT grow
// with the batch). Without SLOs, the limit itself.
std::optional<LoadPoint> best_batch(const StepCost& cost, std::uint32_t limit,
                                    const ServingTableQuery& q) {
  if (limit == 0) return std::nullopt;
  if (!q.ttft_slo_s && !q.tpot_slo_s) return measure_closed_loop(cost, limit, q.input, q.output);
  std::optional<LoadPoint> best;
  std::uint32_t fail = 0;  // 0: none failed
  for (std::uint32_t b = 1;; b = std::min(limit, 2 * b)) {
    const LoadPoint p = measure_closed_loop(cost, b, q.input, q.output);
    if (!meets(p, q)) {
      fail = b;
      break;
    }
    best = p;
    if (b == limit) break;
  }
  if (!best || fail == 0) return best;
  std::uint32_t lo = best->users, hi = fail;
  while (hi - lo > 1) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const LoadPoint p = measure_closed_loop(cost, mid, q.input, q.output);
    if (meets(p, q)) {
      best = p;
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return best;
}

std::optional<double> price(const InstanceType& type, CapacityType ct) {
  const Offering* o = type.cheapest_offering(ct);
  return o != nullptr ? std::optional(o->price_per_hour) : std::nullopt;
}

// USD per hour ÷ output tokens per hour, per million tokens.
std::optional<double> per_mtok(std::optional<double> usd_per_hour, double tokens_per_s) {
  if (!usd_per_hour || tokens_per_s <= 0) return std::nullopt;
  return *usd_per_hour / (tokens_per_s * kSecondsPerHour) * 1e6;
}

}  // namespace

LoadPoint measure_closed_loop(const StepCost& cost, std::uint32_t users, std::uint32_t input,
                              std::uint32_t output) {
  std::vector<EngineRequest> requests(std::size_t{users} * kRounds,
                                      EngineRequest{.prompt = input, .output = output});
  // The warm-up round's outputs run from output ÷ users to output, so the users end it one after
  // another and stay spread over a request's life, as in a loop that has run a long time; with
  // the same lengths from one start they would move in lockstep, every prompt at once.
  for (std::uint32_t i = 0; i < users; ++i)
    requests[i].output = std::max<std::uint32_t>(
        1, static_cast<std::uint32_t>(std::llround(static_cast<double>(output) * (i + 1) / users)));
  const std::vector<EngineOutcome> out = run_closed_loop_engine(cost, users, requests);
  // The window in which every user has a measured request in flight: from the end of the last
  // warm-up request to the sending of the last request (after it the loop drains).
  double from = 0;
  for (std::uint32_t i = 0; i < users; ++i) from = std::max(from, out[i].finished);
  const double to = requests.back().arrival;
  LoadPoint p{.users = users};
  double ttft = 0, tpot = 0, sent = 0, ended = 0;
  for (std::size_t i = users; i < out.size(); ++i) {
    if (out[i].rejected) continue;
    if (out[i].finished > from && out[i].finished <= to) ended += 1;
    if (requests[i].arrival < from) continue;
    ttft += out[i].first_token - requests[i].arrival;
    tpot += (out[i].finished - out[i].first_token) / (output - 1);
    sent += 1;
  }
  if (sent > 0) {
    p.ttft_s = ttft / sent;
    p.tpot_s = tpot / sent;
  }
  p.tokens_per_s = to > from ? ended * output / (to - from) : 0;
  return p;
}

ServingTable serving_table(const std::vector<const InstanceType*>& types,
                           const ServingTableQuery& query) {
  ServingTable table;
  ServiceConfig service;
  service.model = query.model;
  service.engine = query.engine;
  service.engine.tensor_parallel_size.reset();
  for (const InstanceType* type : types) {
    if (type->gpu_count <= 0 || !type->gpu_hardware) continue;
    ++table.types_considered;
    std::string why_not;
    bool held = false;
    for (std::uint32_t tp : kTpDegrees) {
      if (tp > static_cast<std::uint32_t>(type->gpu_count)) break;
      if (query.model.spec.attention_heads % tp != 0) continue;
      const ReplicaEngine engine = replica_engine(service, *type, tp);
      if (!engine.cost) {
        why_not = engine.why_not;
        continue;
      }
      held = true;
      const StepCost& cost = *engine.cost;
      ServingTableRow row{.type = type,
                          .tp = tp,
                          .replicas = static_cast<std::uint32_t>(type->gpu_count) / tp,
                          .ttft1_s = batch1_ttft(cost, query.input),
                          .tpot1_s = batch1_tpot(cost, query.input, query.output),
                          .kv_batch = kv_batch(cost, query.input, query.output),
                          .on_demand_price = price(*type, CapacityType::OnDemand),
                          .spot_price = price(*type, CapacityType::Spot),
                          .note = engine.note};
      row.best = best_batch(cost, row.kv_batch, query);
      if (row.best) {
        const double instance_tps = row.best->tokens_per_s * row.replicas;
        row.on_demand_per_mtok = per_mtok(row.on_demand_price, instance_tps);
        row.spot_per_mtok = per_mtok(row.spot_price, instance_tps);
      }
      table.rows.push_back(std::move(row));
    }
    if (!held)
      table.not_held[why_not.empty() ? "no TP degree divides its attention heads" : why_not]
          .push_back(type->name);
  }
  // Cheapest first; rows without an on-demand cost last.
  auto key = [](const ServingTableRow& r) {
    return std::make_tuple(!r.on_demand_per_mtok.has_value(), r.on_demand_per_mtok.value_or(0),
                           std::string_view(r.type->name), r.tp);
  };
  std::stable_sort(
      table.rows.begin(), table.rows.end(),
      [&](const ServingTableRow& a, const ServingTableRow& b) { return key(a) < key(b); });
  return table;
}

}  // namespace fleetsim
