// `fleetsim serving-table`: for one model, every GPU instance type and tensor-parallel degree
// that holds it, with its speed from the engine model and its cost per million output tokens.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fleetsim/catalog/catalog.hpp"
#include "fleetsim/service/service_config.hpp"
#include "fleetsim/serving/step_cost.hpp"

namespace fleetsim {

struct ServingTableQuery {
  ServiceModel model;          // the catalog model, with the formats asked for (nullopt: "auto")
  EngineOptions engine;        // tensor_parallel_size is left unset: each row sets its own
  std::uint32_t input = 1020;  // prompt tokens of every request
  std::uint32_t output = 129;  // output tokens of every request (≥ 2: TPOT needs two)
  std::optional<double> ttft_slo_s;  // on the mean TTFT at the chosen batch
  std::optional<double> tpot_slo_s;  // on the mean TPOT at the chosen batch
};

// b users in a closed loop (no think time) on one replica, measured in steady state.
struct LoadPoint {
  std::uint32_t users = 0;
  double ttft_s = 0;        // mean over the measured requests
  double tpot_s = 0;        // mean of (finished − first token) ÷ (output − 1)
  double tokens_per_s = 0;  // output tokens ÷ (last completion − first arrival), per replica
};

struct ServingTableRow {
  const InstanceType* type = nullptr;
  std::uint32_t tp = 1;
  std::uint32_t replicas = 1;     // per instance: gpu_count ÷ tp
  double ttft1_s = 0;             // one prefill of `input` tokens alone (in budget-sized chunks)
  double tpot1_s = 0;             // one decode step of one sequence at context input + output ÷ 2
  std::uint32_t kv_batch = 0;     // min(max_num_seqs, KV blocks ÷ blocks of one request)
  std::optional<LoadPoint> best;  // the largest batch meeting the SLOs; nullopt: not even 1
  std::optional<double> on_demand_price;     // cheapest on-demand offering, USD/h
  std::optional<double> spot_price;          // cheapest spot offering, USD/h
  std::optional<double> on_demand_per_mtok;  // USD per million output tokens
  std::optional<double> spot_per_mtok;
  std::string note;  // replica_engine's note (fp8 weight-only, …)
};

struct ServingTable {
  std::vector<ServingTableRow> rows;  // by on-demand cost per million tokens, then name, TP
  std::size_t types_considered = 0;   // GPU types with hardware figures
  // Types with figures that hold the model at no TP degree, by the reason at their largest.
  std::map<std::string, std::vector<std::string>> not_held;
};

// One closed-loop measurement (see serving_table.cpp for the warm-up and window).
LoadPoint measure_closed_loop(const StepCost& cost, std::uint32_t users, std::uint32_t input,
                              std::uint32_t output);

// The rows for `types` (those without GPU figures are skipped).
ServingTable serving_table(const std::vector<const InstanceType*>& types,
                           const ServingTableQuery& query);

}  // namespace fleetsim
