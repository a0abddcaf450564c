#include <catch2/catch.hpp>

#include "cli_harness.hpp"

using fleetsim::test::Run;
using fleetsim::test::Scratch;

TEST_CASE("models lists the catalog with KV bytes per token and weight sizes", "[cli]") {
  Scratch s("models");
  Run r = s.fleetsim("models");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("KV KiB/TOK"));
  // llama-3.1-8b: 8.03B weights, 32 layers × 2,048 elements × 2 bytes = 128 KiB a token;
  // 16.1 GB at bf16, 8.0 at fp8, 4.1 at int4.
  CHECK_THAT(r.out, Catch::Contains("llama-3.1-8b"));
  CHECK_THAT(r.out, Catch::Contains("llama-3-8b llama-3.1-8b-instruct"));
  CHECK_THAT(r.out,
             Catch::Matches(
                 "[\\s\\S]*llama-3\\.1-8b +llama-3-8b llama-3\\.1-8b-instruct +8\\.03 +8\\.03 "
                 "+32 +4096 +32 +8 +128 +128256 +131072 +128 +16\\.1 +8\\.0 +4\\.1\n[\\s\\S]*"));
  CHECK_THAT(r.out, Catch::Contains("21 models ("));
}

TEST_CASE("models --format json gives each model's figures and aliases", "[cli]") {
  Scratch s("models-json");
  Run r = s.fleetsim("models --format json");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"name\": \"deepseek-v3\""));
  CHECK_THAT(r.out, Catch::Contains("\"kv_elements_per_token_layer\": 576"));
  CHECK_THAT(r.out, Catch::Contains("\"meta-llama/Llama-3.1-8B-Instruct\""));
}

TEST_CASE("models refuses a malformed catalog with its line and an unknown format", "[cli]") {
  Scratch s("models-bad");
  const auto csv = s.write(
      "models.csv",
      "name,aliases,hf_id,total_parameters,active_parameters,layers,hidden_size,attention_heads,"
      "kv_heads,head_dim,vocabulary,max_context,experts,experts_per_token,"
      "kv_elements_per_token_layer,tied_embeddings,source\n"
      "x,,,1e9,1e9,-1,2048,32,8,64,128256,131072,0,0,1024,0,test\n");
  Run bad = s.fleetsim("models --catalog " + csv.string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("models.csv:2:"));
  CHECK_THAT(bad.err, Catch::Contains("layers"));
  Run format = s.fleetsim("models --format yaml");
  CHECK(format.exit_code == 2);
}
