#include "fleetsim/cli/serving_table.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_harness.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/service/replica_engine.hpp"
#include "fleetsim/serving/model_catalog.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

namespace fleetsim {
namespace {

const Catalog& bundled() {
  static const Catalog catalog =
      load_catalog(std::filesystem::path(FLEETSIM_SOURCE_DIR) / "instance-catalog/aws/us-east-1");
  return catalog;
}

ServingTableQuery query_for(std::string_view model) {
  ServingTableQuery q;
  q.model.spec = *bundled_model_catalog().find(model);
  q.engine.max_model_len = q.input + q.output;
  return q;
}

// The engine replica_engine gives one of `type`'s replicas at TP `tp`.
StepCost cost_on(const InstanceType& type, std::uint32_t tp, const ServingTableQuery& q) {
  ServiceConfig service;
  service.model = q.model;
  service.engine = q.engine;
  ReplicaEngine e = replica_engine(service, type, tp);
  REQUIRE(e.cost);
  return *e.cost;
}

}  // namespace

TEST_CASE("serving-table rows of a 4-GPU type give its replicas, KV batch and cost exactly",
          "[cli]") {
  const InstanceType& g6e = *bundled().find("g6e.12xlarge");  // 4 × L40S
  const ServingTableQuery q = query_for("llama-3.1-8b");
  const ServingTable table = serving_table({&g6e}, q);
  REQUIRE(table.rows.size() == 3);  // TP 1, 2 and 4; 32 heads divide by each
  CHECK(table.types_considered == 1);
  std::map<std::uint32_t, const ServingTableRow*> by_tp;
  for (const ServingTableRow& r : table.rows) by_tp[r.tp] = &r;
  REQUIRE(by_tp.size() == 3);
  CHECK(by_tp[1]->replicas == 4);
  CHECK(by_tp[2]->replicas == 2);
  CHECK(by_tp[4]->replicas == 1);
  for (const auto& [tp, row] : by_tp) {
    const StepCost cost = cost_on(g6e, tp, q);
    // 1,149 tokens a request: 72 blocks of 16.
    const std::int64_t held = cost.kv_capacity_tokens() / 16 / 72;
    CHECK(row->kv_batch == std::min<std::int64_t>(held, cost.limits().max_num_seqs));
    CHECK(row->ttft1_s ==
          cost.seconds({.prefill_tokens = 1020, .prefill_context = 1020.0 * 510.0}));
    CHECK(row->tpot1_s == cost.seconds({.decodes = 1, .decode_context = 1020 + 64.5}));
    // No SLO: the batch is what the KV cache holds.
    REQUIRE(row->best);
    CHECK(row->best->users == row->kv_batch);
    const double od = g6e.cheapest_offering(CapacityType::OnDemand)->price_per_hour;
    const double spot = g6e.cheapest_offering(CapacityType::Spot)->price_per_hour;
    const double per_hour = row->best->tokens_per_s * row->replicas * 3600;
    CHECK(*row->on_demand_price == od);
    CHECK(*row->on_demand_per_mtok == Approx(od / per_hour * 1e6).epsilon(1e-12));
    CHECK(*row->spot_per_mtok == Approx(spot / per_hour * 1e6).epsilon(1e-12));
  }
  // Cheapest first.
  CHECK(*table.rows[0].on_demand_per_mtok <= *table.rows[1].on_demand_per_mtok);
  CHECK(*table.rows[1].on_demand_per_mtok <= *table.rows[2].on_demand_per_mtok);
}

TEST_CASE("serving-table keeps the largest batch whose mean TPOT meets the SLO", "[cli]") {
  const InstanceType& g6e = *bundled().find("g6e.xlarge");
  ServingTableQuery q = query_for("llama-3.1-8b");
  const StepCost cost = cost_on(g6e, 1, q);
  const ServingTable free = serving_table({&g6e}, q);
  REQUIRE(free.rows.size() == 1);
  const std::uint32_t kv = free.rows[0].kv_batch;
  REQUIRE(kv > 8);
  // An SLO between batch 1's TPOT and batch 8's excludes every batch from 8 up.
  const LoadPoint one = measure_closed_loop(cost, 1, q.input, q.output);
  const LoadPoint eight = measure_closed_loop(cost, 8, q.input, q.output);
  REQUIRE(one.tpot_s < eight.tpot_s);
  q.tpot_slo_s = (one.tpot_s + eight.tpot_s) / 2;
  const ServingTable table = serving_table({&g6e}, q);
  REQUIRE(table.rows.size() == 1);
  const std::optional<LoadPoint>& best = table.rows[0].best;
  REQUIRE(best);
  CHECK(best->users >= 1);
  CHECK(best->users < 8);
  CHECK(best->tpot_s <= *q.tpot_slo_s);
  CHECK(measure_closed_loop(cost, best->users + 1, q.input, q.output).tpot_s > *q.tpot_slo_s);
  CHECK(best->tokens_per_s < free.rows[0].best->tokens_per_s);
  // An SLO no batch meets leaves the row without a batch or a cost.
  q.tpot_slo_s = one.tpot_s / 2;
  const ServingTable none = serving_table({&g6e}, q);
  REQUIRE(none.rows.size() == 1);
  CHECK_FALSE(none.rows[0].best);
  CHECK_FALSE(none.rows[0].on_demand_per_mtok);
}

TEST_CASE("serving-table prints a row per type and TP degree", "[cli]") {
  Scratch s("serving-table");
  Run r = s.fleetsim("serving-table --model llama-3.1-8b --filter 'type=g6e.12xlarge|g5.xlarge'");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("llama-3.1-8b on vllm, 1020 input + 129 output tokens"));
  CHECK_THAT(r.out, Catch::Matches("[\\s\\S]*\ng6e\\.12xlarge +4xl40s +2 +2 +bf16/bf16 [\\s\\S]*"));
  CHECK_THAT(r.out, Catch::Matches("[\\s\\S]*\ng5\\.xlarge +1xa10g +1 +1 +bf16/bf16 [\\s\\S]*"));
  CHECK_THAT(r.out, Catch::Contains("4 rows: 2 of 2 GPU instance types hold the model"));
  Run json = s.fleetsim(
      "serving-table --model llama-3.1-8b --filter type=g5.xlarge --format json --tpot-slo 40ms");
  CHECK(json.exit_code == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc["tpot_slo_s"] == Approx(0.04));
  REQUIRE(doc["rows"].size() == 1);
  CHECK(doc["rows"][0]["replicas_per_instance"] == 1);
  // max_num_seqs caps the KV batch; fp8 KV on an L40S.
  Run capped = s.fleetsim(
      "serving-table --model llama-3.1-8b --filter type=g6e.xlarge --format json "
      "--max-num-seqs 8 --kv-dtype fp8");
  CHECK(capped.exit_code == 0);
  const nlohmann::json row = nlohmann::json::parse(capped.out)["rows"][0];
  CHECK(row["kv_batch"] == 8);
  CHECK(row["slo_batch"]["batch"] == 8);
  CHECK(row["kv_dtype"] == "fp8");
}

TEST_CASE("serving-table refuses a model that fits nowhere and bad options", "[cli]") {
  Scratch s("serving-table-bad");
  Run nowhere = s.fleetsim("serving-table --model llama-3.1-405b --filter family=g5");
  CHECK(nowhere.exit_code == 2);
  CHECK_THAT(nowhere.err, Catch::Contains("llama-3.1-405b fits on none of the 8 GPU instance"));
  CHECK_THAT(nowhere.err, Catch::Contains("no room for a KV cache"));
  Run unknown = s.fleetsim("serving-table --model llama-3.1-8c");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("did you mean \"llama-3.1-8b\""));
  Run dtype = s.fleetsim("serving-table --model llama-3.1-8b --dtype fp9");
  CHECK(dtype.exit_code == 2);
  CHECK_THAT(dtype.err, Catch::Contains("--dtype: unknown number format \"fp9\""));
  Run engine = s.fleetsim("serving-table --model llama-3.1-8b --engine vlm");
  CHECK(engine.exit_code == 2);
  CHECK_THAT(engine.err, Catch::Contains("did you mean \"vllm\""));
  Run slo = s.fleetsim("serving-table --model llama-3.1-8b --ttft-slo 5");
  CHECK(slo.exit_code == 2);
  CHECK_THAT(slo.err, Catch::Contains("--ttft-slo: expected a duration"));
  Run context = s.fleetsim("serving-table --model llama-2-7b --input 4000 --output 200");
  CHECK(context.exit_code == 2);
  CHECK_THAT(context.err, Catch::Contains("exceed llama-2-7b's context of 4096 tokens"));
  Run len = s.fleetsim("serving-table --model llama-3.1-8b --max-model-len 1000");
  CHECK(len.exit_code == 2);
  CHECK_THAT(len.err, Catch::Contains("--max-model-len: 1000 is shorter than a request"));
  CHECK(s.fleetsim("serving-table --model llama-3.1-8b --output 1").exit_code == 2);
  CHECK(s.fleetsim("serving-table").exit_code == 2);
  Run filter = s.fleetsim("serving-table --model llama-3.1-8b --filter family=c5");
  CHECK(filter.exit_code == 2);
  CHECK_THAT(filter.err, Catch::Contains("no GPU instance type with hardware figures matches"));
}

}  // namespace fleetsim
