#include "fleetsim/serving/model_catalog.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "fleetsim/core/error.hpp"

using namespace fleetsim;

namespace {

const std::filesystem::path kBundled =
    std::filesystem::path(FLEETSIM_SOURCE_DIR) / "models" / "models.csv";

constexpr std::string_view kHeader =
    "name,aliases,hf_id,total_parameters,active_parameters,layers,hidden_size,attention_heads,"
    "kv_heads,head_dim,vocabulary,max_context,experts,experts_per_token,"
    "kv_elements_per_token_layer,tied_embeddings,source\n";
constexpr std::string_view kGoodRow =
    "tiny-1b,tiny,org/Tiny-1B,1000000000,1000000000,16,2048,32,8,64,128256,131072,0,0,1024,0,"
    "test\n";

// A models.csv in a scratch file, removed afterwards.
struct TempCsv {
  std::filesystem::path path;
  explicit TempCsv(const std::string& text)
      : path(std::filesystem::temp_directory_path() /
             ("fleetsim-models-" + std::to_string(::getpid()) + ".csv")) {
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempCsv() { std::filesystem::remove(path); }
};

CatalogError load_error(const std::string& text) {
  TempCsv csv(text);
  try {
    ModelCatalog::load(csv.path);
  } catch (const CatalogError& e) {
    return e;
  }
  FAIL("expected a CatalogError");
  return CatalogError({}, "", "unreachable");
}

}  // namespace

TEST_CASE("the bundled catalog has llama-3.1-8b with its config.json figures", "[serving]") {
  const ModelCatalog catalog = ModelCatalog::load(kBundled);
  const ModelSpec* m = catalog.find("llama-3.1-8b");
  REQUIRE(m != nullptr);
  CHECK(m->name == "llama-3.1-8b");
  CHECK(m->layers == 32);
  CHECK(m->hidden_size == 4096);
  CHECK(m->attention_heads == 32);
  CHECK(m->kv_heads == 8);
  CHECK(m->head_dim == 128);
  CHECK(m->vocabulary == 128256);
  CHECK(m->max_context == 131072);
  // 8,030,261,248: the count of the safetensors Meta publishes.
  CHECK(m->total_parameters == 8030261248.0);
  CHECK(m->active_parameters == m->total_parameters);
  CHECK(m->kv_elements_per_token_layer == 2 * 8 * 128);
  CHECK_FALSE(m->is_moe());
}

TEST_CASE("a model is found by alias or Hugging Face id whatever the case", "[serving]") {
  const ModelCatalog catalog = ModelCatalog::load(kBundled);
  const ModelSpec* by_name = catalog.find("llama-3.1-70b");
  REQUIRE(by_name != nullptr);
  CHECK(catalog.find("llama-3.3-70b") == by_name);
  CHECK(catalog.find("meta-llama/Llama-3.3-70B-Instruct") == by_name);
  CHECK(catalog.find("META-LLAMA/LLAMA-3.1-70B-INSTRUCT") == by_name);
  CHECK(catalog.find("Llama-3.1-70B") == by_name);
  CHECK(catalog.find("llama-3-8b") == catalog.find("llama-3.1-8b"));
  CHECK(catalog.find("llama-3.1-7b") == nullptr);
  CHECK(catalog.find("") == nullptr);
  const std::vector<std::string> names = catalog.names();
  CHECK(names.size() == catalog.models().size());
  CHECK(names.front() == "llama-2-7b");
}

TEST_CASE("deepseek-v3 caches the MLA latent, 512 + 64 elements per token and layer", "[serving]") {
  const ModelCatalog catalog = ModelCatalog::load(kBundled);
  const ModelSpec* m = catalog.find("deepseek-ai/DeepSeek-V3");
  REQUIRE(m != nullptr);
  CHECK(m->kv_elements_per_token_layer == 576);
  CHECK(m->attention_heads == 128);
  CHECK(m->layers == 61);
  CHECK(m->experts == 256);
  CHECK(m->experts_per_token == 8);
  // 671B total and 37B per token, as DeepSeek reports (within the script's 2%).
  CHECK(m->total_parameters == Approx(671e9).epsilon(0.02));
  CHECK(m->active_parameters == Approx(37e9).epsilon(0.02));
}

TEST_CASE("mixtral-8x7b's token passes through 2 of 8 experts: 12.9B of 46.7B", "[serving]") {
  const ModelCatalog catalog = ModelCatalog::load(kBundled);
  const ModelSpec* m = catalog.find("mixtral-8x7b");
  REQUIRE(m != nullptr);
  CHECK(m->is_moe());
  CHECK(m->experts == 8);
  CHECK(m->experts_per_token == 2);
  // Attention, embeddings and routers count once; experts 8 × 176,160,768 × 32 layers in total,
  // 2 × per token.
  CHECK(m->total_parameters == 46702792704.0);
  CHECK(m->active_parameters == 12879925248.0);
  CHECK(m->total_parameters - m->active_parameters == 6.0 * 3 * 4096 * 14336 * 32);
}

TEST_CASE("every bundled model's figures hold together", "[serving]") {
  const ModelCatalog catalog = ModelCatalog::load(kBundled);
  CHECK(catalog.models().size() == 21);
  for (std::size_t i = 0; i < catalog.models().size(); ++i) {
    const ModelSpec& m = catalog.models()[i];
    INFO(m.name);
    CHECK(catalog.find(m.name) == &m);
    for (const std::string& alias : catalog.aliases(i)) CHECK(catalog.find(alias) == &m);
    CHECK(m.active_parameters <= m.total_parameters);
    CHECK(m.kv_heads <= m.attention_heads);
  }
}

TEST_CASE("a malformed model row names its file, line and column", "[serving]") {
  SECTION("a word where a number belongs") {
    const std::string text = std::string(kHeader) + std::string(kGoodRow) +
                             "bad-7b,,,7000000000,7000000000,thirty,4096,32,8,128,32000,4096,0,0,"
                             "2048,0,test\n";
    const CatalogError e = load_error(text);
    CHECK(e.where().line == 3);
    CHECK(e.where().col == 32);
    CHECK(e.field() == "layers");
  }
  SECTION("more experts per token than experts") {
    const CatalogError e =
        load_error(std::string(kHeader) +
                   "moe,,,1000000000,500000000,16,2048,32,8,64,128256,131072,4,5,1024,0,test\n");
    CHECK(e.where().line == 2);
    CHECK(e.field() == "experts_per_token");
    CHECK(e.message() == "5 must be from 1 to experts (4)");
  }
  SECTION("an alias that already names another model") {
    const CatalogError e =
        load_error(std::string(kHeader) + std::string(kGoodRow) +
                   "other-1b,other "
                   "TINY,,1000000000,1000000000,16,2048,32,8,64,128256,131072,0,0,1024,0,test\n");
    CHECK(e.where().line == 3);
    CHECK(e.where().col == 16);  // at TINY, not at the field's start
    CHECK(e.field() == "aliases");
    CHECK(e.message() == "\"TINY\" already names a model (line 2)");
  }
  SECTION("a dense model whose active count differs from its total") {
    const CatalogError e =
        load_error(std::string(kHeader) +
                   "dense,,,1000000000,900000000,16,2048,32,8,64,128256,131072,0,0,1024,0,test\n");
    CHECK(e.field() == "active_parameters");
  }
  SECTION("a column the catalog does not read") {
    const CatalogError e =
        load_error(std::string(kHeader.substr(0, kHeader.size() - 1)) + ",license\n" +
                   std::string(kGoodRow.substr(0, kGoodRow.size() - 1)) + ",mit\n");
    CHECK(e.where().line == 1);
    CHECK(e.field() == "license");
  }
  SECTION("a missing column") {
    const CatalogError e = load_error("name,aliases\nx,y\n");
    CHECK(e.where().line == 1);
    CHECK(e.field() == "hf_id");
    CHECK(e.message() == "missing column (the header has: name, aliases)");
  }
}

TEST_CASE("the catalog compiled in is the bundled models.csv, tied embeddings included",
          "[serving]") {
  const ModelCatalog file = ModelCatalog::load(kBundled);
  const ModelCatalog& built_in = bundled_model_catalog();
  REQUIRE(built_in.models().size() == file.models().size());
  for (std::size_t i = 0; i < file.models().size(); ++i)
    CHECK(built_in.models()[i].name == file.models()[i].name);
  // Gemma 2 and Llama 3.2's small models tie the output head to the embeddings; Llama 3.1 not.
  CHECK(built_in.find("gemma-2-9b")->tied_embeddings);
  CHECK(built_in.find("llama-3.2-1b")->tied_embeddings);
  CHECK_FALSE(built_in.find("llama-3.1-8b")->tied_embeddings);
}
