// `fleetsim models`: the model catalog, with what each model needs in memory.
#include <fmt/format.h>

#include <array>
#include <iostream>
#include <nlohmann/json.hpp>

#include "fleetsim/cli/commands.hpp"
#include "fleetsim/core/text_table.hpp"
#include "fleetsim/serving/model_catalog.hpp"
#include "fleetsim/serving/number_format.hpp"

namespace fleetsim {

namespace {

constexpr std::array<NumberFormat, 3> kWeightFormats{NumberFormat::Bf16, NumberFormat::Fp8,
                                                     NumberFormat::Int4};

// Bytes the KV cache keeps per token at bf16, over every layer.
double kv_bytes_per_token(const ModelSpec& m) {
  return static_cast<double>(m.layers) * m.kv_elements_per_token_layer *
         bytes_per_element(NumberFormat::Bf16);
}

// Every weight stored in `format`, in GB (10^9 bytes, as GPU memory is quoted).
double weight_gb(const ModelSpec& m, NumberFormat format) {
  return m.total_parameters * bytes_per_element(format) / 1e9;
}

// The table keeps the short aliases; Hugging Face ids (with a '/') are in the JSON.
std::string short_aliases(const std::vector<std::string>& aliases) {
  std::string out;
  for (const std::string& a : aliases) {
    if (a.find('/') != std::string::npos) continue;
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out.empty() ? "-" : out;
}

std::string models_table(const ModelCatalog& catalog) {
  TextTable<15> table{.header = {"MODEL", "ALIASES", "PARAMS B", "ACTIVE B", "LAYERS", "HIDDEN",
                                 "HEADS", "KV HEADS", "HEAD DIM", "VOCAB", "MAX CTX", "KV KiB/TOK",
                                 "BF16 GB", "FP8 GB", "INT4 GB"},
                      .left = {true, true}};
  for (std::size_t i = 0; i < catalog.models().size(); ++i) {
    const ModelSpec& m = catalog.models()[i];
    table.rows.push_back(
        {m.name, short_aliases(catalog.aliases(i)), fmt::format("{:.2f}", m.total_parameters / 1e9),
         fmt::format("{:.2f}", m.active_parameters / 1e9), std::to_string(m.layers),
         std::to_string(m.hidden_size), std::to_string(m.attention_heads),
         std::to_string(m.kv_heads), std::to_string(m.head_dim), std::to_string(m.vocabulary),
         std::to_string(m.max_context), fmt::format("{:g}", kv_bytes_per_token(m) / 1024),
         fmt::format("{:.1f}", weight_gb(m, NumberFormat::Bf16)),
         fmt::format("{:.1f}", weight_gb(m, NumberFormat::Fp8)),
         fmt::format("{:.1f}", weight_gb(m, NumberFormat::Int4))});
  }
  return table.text();
}

std::string models_json(const ModelCatalog& catalog) {
  using Json = nlohmann::ordered_json;
  Json list = Json::array();
  for (std::size_t i = 0; i < catalog.models().size(); ++i) {
    const ModelSpec& m = catalog.models()[i];
    Json weights = Json::object();
    for (NumberFormat f : kWeightFormats)
      weights[std::string(to_string(f))] = weight_gb(m, f) * 1e9;
    list.push_back(Json{{"name", m.name},
                        {"aliases", catalog.aliases(i)},
                        {"total_parameters", m.total_parameters},
                        {"active_parameters", m.active_parameters},
                        {"layers", m.layers},
                        {"hidden_size", m.hidden_size},
                        {"attention_heads", m.attention_heads},
                        {"kv_heads", m.kv_heads},
                        {"head_dim", m.head_dim},
                        {"vocabulary", m.vocabulary},
                        {"max_context", m.max_context},
                        {"experts", m.experts},
                        {"experts_per_token", m.experts_per_token},
                        {"kv_elements_per_token_layer", m.kv_elements_per_token_layer},
                        {"kv_bytes_per_token_bf16", kv_bytes_per_token(m)},
                        {"weight_bytes", weights}});
  }
  return list.dump(2) + '\n';
}

}  // namespace

int models_command(const ModelsOptions& options) {
  // Without --catalog, the catalog compiled in: the one scenarios name models from.
  const ModelCatalog catalog =
      options.catalog ? ModelCatalog::load(*options.catalog) : bundled_model_catalog();
  const std::string source =
      options.catalog ? options.catalog->string() : "models/models.csv, built in";
  if (options.format == "json") {
    std::cout << models_json(catalog);
    return kExitOk;
  }
  std::cout << models_table(catalog);
  std::cout << catalog.models().size() << " models (" << source
            << "); a model is found by its name, any alias or its Hugging Face id "
               "(--format json lists them)\n";
  return kExitOk;
}

}  // namespace fleetsim
