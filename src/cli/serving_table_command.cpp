// `fleetsim serving-table`: the options checked, the rows computed (serving_table.cpp), printed as
// a table or JSON.
#include <fmt/format.h>

#include <array>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "fleetsim/catalog/catalog_filter.hpp"
#include "fleetsim/catalog/catalog_loader.hpp"
#include "fleetsim/cli/commands.hpp"
#include "fleetsim/cli/serving_table.hpp"
#include "fleetsim/core/text_table.hpp"
#include "fleetsim/core/time.hpp"
#include "fleetsim/scenario/name_hint.hpp"
#include "fleetsim/service/replica_engine.hpp"
#include "fleetsim/serving/model_catalog.hpp"

namespace fleetsim {

namespace {

// A bad option: its message on stderr, exit 2.
struct BadOption {
  std::string message;
};

[[noreturn]] void bad(std::string_view option, std::string_view message) {
  throw BadOption{fmt::format("error: serving-table {}: {}\n", option, message)};
}

std::optional<NumberFormat> format_option(std::string_view option,
                                          const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::optional<NumberFormat> f = parse_number_format(*text);
  if (!f)
    bad(option, fmt::format("unknown number format \"{}\"; expected one of {}", text->substr(0, 40),
                            number_format_names()));
  return f;
}

std::optional<double> slo_option(std::string_view option, const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const std::optional<SimDuration> d = parse_duration(*text);
  if (!d || d->count() <= 0)
    bad(option, fmt::format("expected a duration above zero such as 500ms or 2s, got \"{}\"",
                            text->substr(0, 40)));
  return to_seconds(*d);
}

ServingTableQuery query_of(const ServingTableOptions& o) {
  ServingTableQuery q;
  const ModelCatalog& models = bundled_model_catalog();
  const ModelSpec* spec = models.find(o.model);
  if (spec == nullptr) {
    const std::vector<std::string> names = models.names();
    const std::vector<std::string_view> views(names.begin(), names.end());
    bad("--model", fmt::format("no model \"{}\" in the catalog (`fleetsim models` lists it){}",
                               o.model.substr(0, 60), did_you_mean(o.model, views)));
  }
  q.model.spec = *spec;
  q.model.weights = format_option("--dtype", o.dtype);
  q.model.kv_cache = format_option("--kv-dtype", o.kv_dtype);
  const std::optional<EngineKind> engine = parse_engine_kind(o.engine);
  if (!engine) {
    constexpr std::array<std::string_view, 3> kEngines{"vllm", "tensorrt-llm", "sglang"};
    bad("--engine", fmt::format("unknown engine \"{}\"; expected vllm, tensorrt-llm or sglang{}",
                                o.engine.substr(0, 40), did_you_mean(o.engine, kEngines)));
  }
  q.engine.kind = *engine;
  q.input = o.input;
  q.output = o.output;
  const std::uint64_t length = std::uint64_t{o.input} + o.output;
  if (length > spec->max_context)
    bad("--input", fmt::format("{} input and {} output tokens exceed {}'s context of {} tokens",
                               o.input, o.output, spec->name, spec->max_context));
  // vLLM's default max_model_len is the model's context, which the KV cache of most GPUs cannot
  // hold for large models; a planner sets it to what the traffic needs, as this default does.
  const std::uint32_t max_len = o.max_model_len.value_or(static_cast<std::uint32_t>(length));
  if (max_len < length)
    bad("--max-model-len", fmt::format("{} is shorter than a request ({} input + {} output tokens)",
                                       max_len, o.input, o.output));
  if (max_len > spec->max_context)
    bad("--max-model-len", fmt::format("{} exceeds {}'s context of {} tokens", max_len, spec->name,
                                       spec->max_context));
  q.engine.max_model_len = max_len;
  q.engine.max_num_seqs = o.max_num_seqs;
  q.ttft_slo_s = slo_option("--ttft-slo", o.ttft_slo);
  q.tpot_slo_s = slo_option("--tpot-slo", o.tpot_slo);
  return q;
}

std::string opt(const std::optional<double>& v, const char* spec) {
  return v ? fmt::format(fmt::runtime(spec), *v) : "-";
}

std::string formats(const ServingTableRow& r, const ServiceModel& m) {
  const ServedModel served = served_model(m, *r.type->gpu_hardware);
  return fmt::format("{}/{}", to_string(served.weights), to_string(served.kv_cache));
}

std::string table_text(const ServingTable& t, const ServingTableQuery& q) {
  TextTable<17> table{
      .header = {"INSTANCE", "GPUS", "TP", "REPL", "DTYPE/KV", "TTFT1 ms", "TPOT1 ms", "KV BATCH",
                 "BATCH", "TTFT ms", "TPOT ms", "TOK/S REPL", "TOK/S INST", "OD $/H", "SPOT $/H",
                 "OD $/MTOK", "SPOT $/MTOK"},
      .left = {true, true, false, false, true}};
  for (const ServingTableRow& r : t.rows) {
    const std::optional<LoadPoint>& b = r.best;
    table.rows.push_back({r.type->name, fmt::format("{}x{}", r.type->gpu_count, r.type->gpu_name),
                          std::to_string(r.tp), std::to_string(r.replicas), formats(r, q.model),
                          fmt::format("{:.1f}", r.ttft1_s * 1e3),
                          fmt::format("{:.2f}", r.tpot1_s * 1e3), std::to_string(r.kv_batch),
                          b ? std::to_string(b->users) : "-",
                          b ? fmt::format("{:.1f}", b->ttft_s * 1e3) : "-",
                          b ? fmt::format("{:.2f}", b->tpot_s * 1e3) : "-",
                          b ? fmt::format("{:.0f}", b->tokens_per_s) : "-",
                          b ? fmt::format("{:.0f}", b->tokens_per_s * r.replicas) : "-",
                          opt(r.on_demand_price, "{:.3f}"), opt(r.spot_price, "{:.3f}"),
                          opt(r.on_demand_per_mtok, "{:.3f}"), opt(r.spot_per_mtok, "{:.3f}")});
  }
  return table.text();
}

std::string slo_text(const ServingTableQuery& q) {
  std::vector<std::string> parts;
  if (q.ttft_slo_s) parts.push_back(fmt::format("mean TTFT <= {:g} ms", *q.ttft_slo_s * 1e3));
  if (q.tpot_slo_s) parts.push_back(fmt::format("mean TPOT <= {:g} ms", *q.tpot_slo_s * 1e3));
  return parts.empty() ? "no SLO: BATCH is KV BATCH" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string json_text(const ServingTable& t, const ServingTableQuery& q) {
  using Json = nlohmann::ordered_json;
  auto maybe = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  Json rows = Json::array();
  for (const ServingTableRow& r : t.rows) {
    const ServedModel served = served_model(q.model, *r.type->gpu_hardware);
    Json best = nullptr;
    if (r.best)
      best = Json{{"batch", r.best->users},
                  {"ttft_s", r.best->ttft_s},
                  {"tpot_s", r.best->tpot_s},
                  {"replica_output_tokens_per_s", r.best->tokens_per_s},
                  {"instance_output_tokens_per_s", r.best->tokens_per_s * r.replicas}};
    rows.push_back(Json{{"instance_type", r.type->name},
                        {"gpu_count", r.type->gpu_count},
                        {"gpu_name", r.type->gpu_name},
                        {"tensor_parallel_size", r.tp},
                        {"replicas_per_instance", r.replicas},
                        {"dtype", to_string(served.weights)},
                        {"kv_dtype", to_string(served.kv_cache)},
                        {"batch1_ttft_s", r.ttft1_s},
                        {"batch1_tpot_s", r.tpot1_s},
                        {"kv_batch", r.kv_batch},
                        {"slo_batch", best},
                        {"on_demand_price_per_hour", maybe(r.on_demand_price)},
                        {"spot_price_per_hour", maybe(r.spot_price)},
                        {"on_demand_usd_per_million_output_tokens", maybe(r.on_demand_per_mtok)},
                        {"spot_usd_per_million_output_tokens", maybe(r.spot_per_mtok)},
                        {"note", r.note}});
  }
  Json not_held = Json::array();
  for (const auto& [reason, names] : t.not_held)
    not_held.push_back(Json{{"instance_types", names}, {"reason", reason}});
  Json out{{"model", q.model.spec.name},
           {"engine", to_string(q.engine.kind)},
           {"input_tokens", q.input},
           {"output_tokens", q.output},
           {"max_model_len", *q.engine.max_model_len},
           {"ttft_slo_s", maybe(q.ttft_slo_s)},
           {"tpot_slo_s", maybe(q.tpot_slo_s)},
           {"rows", rows},
           {"not_held", not_held}};
  return out.dump(2) + '\n';
}

}  // namespace

int serving_table_command(const ServingTableOptions& options) {
  ServingTableQuery query;
  try {
    query = query_of(options);
  } catch (const BadOption& e) {
    std::cerr << e.message;
    return kExitBadInput;
  }
  const std::filesystem::path dir =
      options.catalog_dir ? *options.catalog_dir : bundled_catalog_root() / "aws" / "us-east-1";
  const Catalog catalog = load_catalog(dir);
  CatalogFilter filter = options.filter ? parse_catalog_filter(*options.filter) : CatalogFilter{};
  filter.gpu_only = true;
  const ServingTable table = serving_table(select_instance_types(catalog, filter), query);
  if (table.types_considered == 0) {
    std::cerr << "error: serving-table --filter: no GPU instance type with hardware figures "
                 "matches (`fleetsim catalog --gpu` lists them)\n";
    return kExitBadInput;
  }
  if (table.rows.empty()) {
    std::vector<std::string> parts;
    for (const auto& [reason, names] : table.not_held)
      parts.push_back(fmt::format("{} ({})", first_names(names, 3), reason));
    std::cerr << fmt::format(
        "error: serving-table --model: {} fits on none of the {} GPU instance types at any "
        "tensor-parallel degree: {}\n",
        query.model.spec.name, table.types_considered, fmt::join(parts, "; "));
    return kExitBadInput;
  }
  if (options.format == "json") {
    std::cout << json_text(table, query);
    return kExitOk;
  }
  std::cout << fmt::format("{} on {}, {} input + {} output tokens, max_model_len {}; {}\n",
                           query.model.spec.name, to_string(query.engine.kind), query.input,
                           query.output, *query.engine.max_model_len, slo_text(query));
  std::cout << table_text(table, query);
  std::set<std::string> held;
  for (const ServingTableRow& r : table.rows) held.insert(r.type->name);
  std::cout << fmt::format(
      "{} rows: {} of {} GPU instance types hold the model ({}). TTFT1, TPOT1: one request "
      "alone; BATCH: the most users of a closed loop whose mean TTFT and TPOT meet the SLOs; "
      "$/MTOK: the instance's price per million output tokens at BATCH on every replica\n",
      table.rows.size(), held.size(), table.types_considered, dir.string());
  for (const auto& [reason, names] : table.not_held)
    std::cout << fmt::format("not held: {}: {}\n", first_names(names, 4), reason);
  std::map<std::string, std::set<std::string>> notes;
  for (const ServingTableRow& r : table.rows)
    if (!r.note.empty()) notes[r.note].insert(r.type->name);
  for (const auto& [note, names] : notes) {
    const std::vector<std::string> list(names.begin(), names.end());
    std::cout << fmt::format("note: on {}: {}\n", first_names(list, 4), note);
  }
  return kExitOk;
}

}  // namespace fleetsim
