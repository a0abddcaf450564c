// The model catalog: the architecture figures of open models (models/models.csv, derived from
// their config.json by tools/models/derive_models.py), looked up by name, alias or HF id.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/serving/model_spec.hpp"

namespace fleetsim {

class ModelCatalog {
 public:
  // Reads the CSV; a malformed row throws CatalogError naming file:line:col and the column.
  static ModelCatalog load(const std::filesystem::path& csv);
  static ModelCatalog read(CsvReader& csv);

  // The model named `name_or_alias` (its name, an alias or its Hugging Face id; case does not
  // matter), or nullptr.
  const ModelSpec* find(std::string_view name_or_alias) const;
  const std::vector<ModelSpec>& models() const { return models_; }
  // The catalog names, in file order (for "did you mean" and messages).
  std::vector<std::string> names() const;
  // The aliases of models()[i], its Hugging Face id first.
  const std::vector<std::string>& aliases(std::size_t i) const { return aliases_[i]; }

 private:
  std::vector<ModelSpec> models_;
  std::vector<std::vector<std::string>> aliases_;
  std::map<std::string, std::size_t, std::less<>> by_key_;  // lower-case name or alias → index
};

// The bundled catalog (models/models.csv as the build embedded it), read once.
const ModelCatalog& bundled_model_catalog();
// That CSV's text.
std::string_view bundled_models_csv_text();

}  // namespace fleetsim
