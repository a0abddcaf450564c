// What an inference server's command line says of its model and engine: vLLM (`vllm serve MODEL`,
// the vllm-openai image's `--model`), SGLang (`python -m sglang.launch_server --model-path`) and
// TensorRT-LLM (`trtllm-serve MODEL`), read from the serving container of a Deployment as users
// write it, so its flags take effect (or conflict with the scenario's `engine:`) instead of being
// read past.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fleetsim/serving/engine_config.hpp"
#include "fleetsim/serving/number_format.hpp"

namespace fleetsim {

struct ServerArgs {
  EngineKind engine = EngineKind::Vllm;
  std::optional<std::string> model;  // as written: an HF id, a catalog name or a path
  std::optional<NumberFormat> weights;
  std::optional<NumberFormat> kv_cache;
  std::optional<std::uint32_t> max_num_seqs;
  std::optional<std::uint32_t> max_num_batched_tokens;
  std::optional<std::uint32_t> tensor_parallel_size;
  std::optional<std::uint32_t> max_model_len;
  std::optional<double> gpu_memory_utilization;
  std::optional<bool> chunked_prefill;
  // A flag this reads whose value it cannot use ("--max-num-seqs eight", "--quantization
  // bitblas"), as "--flag value: why".
  std::vector<std::string> problems;
};

// nullopt when neither the image nor the command line names a server fleetsim reads.
std::optional<ServerArgs> parse_server_args(const std::string& image,
                                            std::span<const std::string> argv);

}  // namespace fleetsim
