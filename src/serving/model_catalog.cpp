#include "fleetsim/serving/model_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "fleetsim/core/ascii_case.hpp"
#include "fleetsim/core/csv_reader.hpp"

namespace fleetsim {

namespace {

constexpr std::string_view kHeader =
    "name,aliases,hf_id,total_parameters,active_parameters,layers,hidden_size,attention_heads,"
    "kv_heads,head_dim,vocabulary,max_context,experts,experts_per_token,"
    "kv_elements_per_token_layer,tied_embeddings,source";
constexpr std::array<std::string_view, 17> kColumns{"name",
                                                    "aliases",
                                                    "hf_id",
                                                    "total_parameters",
                                                    "active_parameters",
                                                    "layers",
                                                    "hidden_size",
                                                    "attention_heads",
                                                    "kv_heads",
                                                    "head_dim",
                                                    "vocabulary",
                                                    "max_context",
                                                    "experts",
                                                    "experts_per_token",
                                                    "kv_elements_per_token_layer",
                                                    "tied_embeddings",
                                                    "source"};

// Far above any model (the largest open ones have ~1e12 weights, 2^18 vocabulary, 10^7
// context), low enough that a typo cannot overflow the byte arithmetic built on them.
constexpr double kMaxParameters = 1e14;
constexpr std::int64_t kMaxDimension = 1 << 24;
constexpr std::int64_t kMaxContext = 1LL << 30;
constexpr std::uintmax_t kMaxFileBytes = 16ULL << 20;

// Names and aliases are typed in scenarios: no blanks, no commas, printable ASCII.
bool is_name_char(char c) { return c > ' ' && c < 127 && c != ',' && c != '"'; }

struct Columns {
  std::size_t name, aliases, hf_id, total, active, layers, hidden, heads, kv_heads, head_dim,
      vocabulary, max_context, experts, experts_per_token, kv_elements, tied, source;

  explicit Columns(const CsvReader& t)
      : name(t.require("name")),
        aliases(t.require("aliases")),
        hf_id(t.require("hf_id")),
        total(t.require("total_parameters")),
        active(t.require("active_parameters")),
        layers(t.require("layers")),
        hidden(t.require("hidden_size")),
        heads(t.require("attention_heads")),
        kv_heads(t.require("kv_heads")),
        head_dim(t.require("head_dim")),
        vocabulary(t.require("vocabulary")),
        max_context(t.require("max_context")),
        experts(t.require("experts")),
        experts_per_token(t.require("experts_per_token")),
        kv_elements(t.require("kv_elements_per_token_layer")),
        tied(t.require("tied_embeddings")),
        source(t.require("source")) {}
};

std::uint32_t dimension(const CsvReader& t, std::size_t col, std::int64_t min = 1,
                        std::int64_t max = kMaxDimension) {
  return static_cast<std::uint32_t>(t.integer(col, min, max));
}

double parameters(const CsvReader& t, std::size_t col) {
  const double v = t.number(col);
  if (v < 1 || v > kMaxParameters)
    t.fail(col, fmt::format("{} is out of range (1 to {:g})", t.field(col), kMaxParameters));
  return v;
}

// `offset`: where `text` starts in the field, so an error points at the alias itself.
std::string checked_name(const CsvReader& t, std::size_t col, std::string_view text,
                         int offset = 0) {
  if (text.empty()) t.fail(col, "is empty");
  if (!std::all_of(text.begin(), text.end(), is_name_char))
    t.fail(
        col,
        fmt::format("\"{}\" is not a model name (printable characters, no blanks or commas)", text),
        offset);
  return std::string(text);
}

ModelSpec parse_model(const CsvReader& t, const Columns& c) {
  ModelSpec m;
  m.name = checked_name(t, c.name, t.field(c.name));
  m.total_parameters = parameters(t, c.total);
  m.active_parameters = parameters(t, c.active);
  if (m.active_parameters > m.total_parameters)
    t.fail(c.active, fmt::format("{} is more than total_parameters ({})", t.field(c.active),
                                 t.field(c.total)));
  m.layers = dimension(t, c.layers);
  m.hidden_size = dimension(t, c.hidden);
  m.attention_heads = dimension(t, c.heads);
  m.kv_heads = dimension(t, c.kv_heads);
  if (m.kv_heads > m.attention_heads)
    t.fail(c.kv_heads,
           fmt::format("{} is more than attention_heads ({})", m.kv_heads, m.attention_heads));
  m.head_dim = dimension(t, c.head_dim);
  m.vocabulary = dimension(t, c.vocabulary);
  m.max_context = static_cast<std::uint32_t>(t.integer(c.max_context, 1, kMaxContext));
  m.experts = dimension(t, c.experts, 0);
  m.experts_per_token = dimension(t, c.experts_per_token, 0);
  if (m.experts == 0 && m.experts_per_token != 0)
    t.fail(c.experts_per_token, "must be 0 when experts is 0 (a dense model)");
  if (m.experts > 0 && (m.experts_per_token == 0 || m.experts_per_token > m.experts))
    t.fail(c.experts_per_token,
           fmt::format("{} must be from 1 to experts ({})", m.experts_per_token, m.experts));
  if (m.experts == 0 && m.active_parameters != m.total_parameters)
    t.fail(c.active, "must equal total_parameters for a dense model (experts is 0)");
  m.kv_elements_per_token_layer = dimension(t, c.kv_elements);
  m.tied_embeddings = t.integer(c.tied, 0, 1) == 1;
  return m;
}

}  // namespace

namespace {

CsvOptions catalog_options() {
  return CsvOptions{.noun = "model catalog",
                    .example_header = kHeader,
                    .input = CsvInput::Catalog,
                    .skip_blank_lines = true,
                    .max_file_bytes = kMaxFileBytes};
}

}  // namespace

ModelCatalog ModelCatalog::load(const std::filesystem::path& csv) {
  CsvReader t(csv, catalog_options());
  return read(t);
}

// The CSV the build embedded (bundled_models_csv.cpp.in): the catalog needs no file at run time.
const ModelCatalog& bundled_model_catalog() {
  static const ModelCatalog catalog = [] {
    CsvReader t = CsvReader::from_text(std::string(bundled_models_csv_text()), "models/models.csv",
                                       catalog_options());
    return ModelCatalog::read(t);
  }();
  return catalog;
}

ModelCatalog ModelCatalog::read(CsvReader& t) {
  t.check_columns(kColumns);
  const Columns c(t);
  ModelCatalog catalog;
  std::map<std::string, int, std::less<>> first_line;  // lower-case key → its line
  while (t.next_row()) {
    ModelSpec m = parse_model(t, c);
    const std::size_t index = catalog.models_.size();
    // Each key (name, HF id, alias) names one model; the same key twice in a row is harmless.
    const auto claim = [&](std::size_t col, const std::string& key, int offset) {
      auto [it, inserted] = first_line.emplace(ascii_lower(key), t.line());
      if (!inserted && catalog.by_key_.at(it->first) != index)
        t.fail(col, fmt::format("\"{}\" already names a model (line {})", key, it->second), offset);
      catalog.by_key_.emplace(ascii_lower(key), index);
    };
    claim(c.name, m.name, 0);
    std::vector<std::string> aliases;
    if (const std::string_view hf_id = t.field(c.hf_id); !hf_id.empty()) {
      aliases.push_back(checked_name(t, c.hf_id, hf_id));
      claim(c.hf_id, aliases.back(), 0);
    }
    const std::string_view field = t.field(c.aliases);
    for (std::size_t start = 0; start < field.size();) {
      const std::size_t end = std::min(field.find(' ', start), field.size());
      const int offset = static_cast<int>(start);  // aliases are ASCII: bytes are characters
      if (end > start) {
        aliases.push_back(checked_name(t, c.aliases, field.substr(start, end - start), offset));
        claim(c.aliases, aliases.back(), offset);
      }
      start = end + 1;
    }
    catalog.models_.push_back(std::move(m));
    catalog.aliases_.push_back(std::move(aliases));
  }
  return catalog;
}

const ModelSpec* ModelCatalog::find(std::string_view name_or_alias) const {
  auto it = by_key_.find(ascii_lower(name_or_alias));
  return it == by_key_.end() ? nullptr : &models_[it->second];
}

std::vector<std::string> ModelCatalog::names() const {
  std::vector<std::string> out;
  out.reserve(models_.size());
  for (const ModelSpec& m : models_) out.push_back(m.name);
  return out;
}

}  // namespace fleetsim
