// An inference server's flags as users write them in a Deployment (issue 24: a container's vLLM
// flags take effect instead of being read past).
#include "fleetsim/service/server_args.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace fleetsim {
namespace {

std::optional<ServerArgs> parse(const std::string& image, const std::vector<std::string>& argv) {
  return parse_server_args(image, argv);
}

TEST_CASE("vllm serve with its flags in both spellings", "[service]") {
  const auto a =
      parse("vllm/vllm-openai:v0.10.1",
            {"vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "4",
             "--max-model-len=8192", "--quantization", "fp8", "--kv-cache-dtype", "fp8_e4m3",
             "--gpu-memory-utilization", "0.95", "--max-num-seqs", "128",
             "--max-num-batched-tokens", "4096", "--no-enable-chunked-prefill", "--port", "8000"});
  REQUIRE(a);
  CHECK(a->engine == EngineKind::Vllm);
  CHECK(a->model == "meta-llama/Llama-3.1-70B-Instruct");
  CHECK(a->tensor_parallel_size == 4u);
  CHECK(a->max_model_len == 8192u);
  CHECK(a->weights == NumberFormat::Fp8);
  CHECK(a->kv_cache == NumberFormat::Fp8);
  CHECK(a->gpu_memory_utilization == 0.95);
  CHECK(a->max_num_seqs == 128u);
  CHECK(a->max_num_batched_tokens == 4096u);
  CHECK(a->chunked_prefill == false);
  CHECK(a->problems.empty());
}

TEST_CASE("the vllm-openai image takes its model as --model", "[service]") {
  const auto a =
      parse("vllm/vllm-openai:v0.6.3", {"--model", "meta-llama/Llama-3.1-8B-Instruct",
                                        "--max-num-seqs", "8", "--dtype", "half", "-tp", "2"});
  REQUIRE(a);
  CHECK(a->model == "meta-llama/Llama-3.1-8B-Instruct");
  CHECK(a->max_num_seqs == 8u);
  CHECK(a->weights == NumberFormat::Fp16);
  CHECK(a->tensor_parallel_size == 2u);
}

TEST_CASE("SGLang and TensorRT-LLM spell their flags their own way", "[service]") {
  const auto sglang =
      parse("lmsysorg/sglang:latest",
            {"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct",
             "--tp", "2", "--mem-fraction-static", "0.8", "--context-length", "4096",
             "--max-running-requests", "64", "--chunked-prefill-size", "8192"});
  REQUIRE(sglang);
  CHECK(sglang->engine == EngineKind::Sglang);
  CHECK(sglang->model == "Qwen/Qwen2.5-7B-Instruct");
  CHECK(sglang->tensor_parallel_size == 2u);
  CHECK(sglang->gpu_memory_utilization == 0.8);
  CHECK(sglang->max_model_len == 4096u);
  CHECK(sglang->max_num_seqs == 64u);
  CHECK(sglang->max_num_batched_tokens == 8192u);
  const auto trt = parse("nvcr.io/nvidia/tritonserver:25.01-trtllm-python-py3",
                         {"trtllm-serve", "serve", "meta-llama/Llama-3.1-8B", "--tp_size", "1",
                          "--max_batch_size", "256", "--max_seq_len", "4096"});
  REQUIRE(trt);
  CHECK(trt->engine == EngineKind::TensorRtLlm);
  CHECK(trt->model == "meta-llama/Llama-3.1-8B");
  CHECK(trt->max_num_seqs == 256u);
  CHECK(trt->max_model_len == 4096u);
}

TEST_CASE("a container that runs no inference server is not read", "[service]") {
  CHECK_FALSE(parse("nginx:1.27", {"nginx", "-g", "daemon off;"}));
  CHECK_FALSE(parse("example/api:1", {}));
}

TEST_CASE("a server flag whose value fleetsim cannot use is named", "[service]") {
  const auto a =
      parse("vllm/vllm-openai:latest", {"--max-num-seqs", "eight", "--quantization", "bitblas",
                                        "--gpu-memory-utilization", "1.5", "--max-model-len"});
  REQUIRE(a);
  CHECK(a->problems == std::vector<std::string>{
                           "--max-num-seqs eight: expected a positive whole number",
                           "--quantization bitblas: a quantization method fleetsim does not model",
                           "--gpu-memory-utilization 1.5: expected a share above 0 and at most 1",
                           "--max-model-len: no value follows"});
  CHECK_FALSE(a->max_num_seqs);
}

}  // namespace
}  // namespace fleetsim
