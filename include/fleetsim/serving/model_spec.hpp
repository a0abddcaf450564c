// What a served model is, as far as its speed and memory go: the architecture figures of its
// config.json. Plain data; the bundled catalog is models/models.csv (model_catalog.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace fleetsim {

struct ModelSpec {
  std::string name;              // catalog name, "llama-3.1-8b"
  double total_parameters = 0;   // every weight, embeddings included
  double active_parameters = 0;  // the weights one token passes through (== total when dense)
  std::uint32_t layers = 0;
  std::uint32_t hidden_size = 0;
  std::uint32_t attention_heads = 0;
  std::uint32_t kv_heads = 0;  // == attention_heads for MHA; fewer for GQA
  std::uint32_t head_dim = 0;
  std::uint32_t vocabulary = 0;
  std::uint32_t max_context = 0;
  // Mixture of experts: routed experts per layer and how many each token uses; 0 when dense.
  std::uint32_t experts = 0;
  std::uint32_t experts_per_token = 0;
  // Elements the KV cache keeps per token and layer: 2 × kv_heads × head_dim for MHA and GQA;
  // for MLA (DeepSeek-V2/V3) the compressed latent, kv_lora_rank + qk_rope_head_dim.
  std::uint32_t kv_elements_per_token_layer = 0;
  // The output projection is the embedding matrix itself (config.json's tie_word_embeddings).
  bool tied_embeddings = false;

  bool is_moe() const { return experts > 0; }
};

}  // namespace fleetsim
