#include "fleetsim/service/server_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

namespace fleetsim {

namespace {

bool mentions(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

std::optional<EngineKind> engine_of(const std::string& image, std::span<const std::string> argv) {
  std::string all = image;
  for (const std::string& a : argv) all += " " + a;
  if (mentions(all, "sglang")) return EngineKind::Sglang;
  if (mentions(all, "trtllm") || mentions(all, "tensorrt")) return EngineKind::TensorRtLlm;
  if (mentions(all, "vllm")) return EngineKind::Vllm;
  return std::nullopt;
}

// Each flag fleetsim reads, under each engine's spelling.
enum class Flag : std::uint8_t {
  Model,
  Dtype,
  Quantization,
  KvCacheDtype,
  MaxNumSeqs,
  MaxBatchedTokens,
  TensorParallel,
  MaxModelLen,
  MemoryShare,
  ChunkedPrefill,
  NoChunkedPrefill,
};
struct Spelling {
  std::string_view name;
  Flag flag;
};
constexpr std::array<Spelling, 24> kSpellings{{
    // vLLM (vllm/engine/arg_utils.py)
    {"--model", Flag::Model},
    {"--dtype", Flag::Dtype},
    {"--quantization", Flag::Quantization},
    {"-q", Flag::Quantization},
    {"--kv-cache-dtype", Flag::KvCacheDtype},
    {"--max-num-seqs", Flag::MaxNumSeqs},
    {"--max-num-batched-tokens", Flag::MaxBatchedTokens},
    {"--tensor-parallel-size", Flag::TensorParallel},
    {"-tp", Flag::TensorParallel},
    {"--max-model-len", Flag::MaxModelLen},
    {"--gpu-memory-utilization", Flag::MemoryShare},
    {"--enable-chunked-prefill", Flag::ChunkedPrefill},
    {"--no-enable-chunked-prefill", Flag::NoChunkedPrefill},
    // SGLang (python/sglang/srt/server_args.py)
    {"--model-path", Flag::Model},
    {"--tp-size", Flag::TensorParallel},
    {"--tp", Flag::TensorParallel},
    {"--max-running-requests", Flag::MaxNumSeqs},
    {"--chunked-prefill-size", Flag::MaxBatchedTokens},
    {"--context-length", Flag::MaxModelLen},
    {"--mem-fraction-static", Flag::MemoryShare},
    // TensorRT-LLM (trtllm-serve)
    {"--tp_size", Flag::TensorParallel},
    {"--max_batch_size", Flag::MaxNumSeqs},
    {"--max_num_tokens", Flag::MaxBatchedTokens},
    {"--max_seq_len", Flag::MaxModelLen},
}};

bool takes_no_value(Flag f) { return f == Flag::ChunkedPrefill || f == Flag::NoChunkedPrefill; }

std::optional<std::uint32_t> count(std::string_view text) {
  std::uint32_t n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || ptr != text.data() + text.size() || n == 0) return std::nullopt;
  return n;
}

std::optional<double> fraction(std::string_view text) {
  double x = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc{} || ptr != text.data() + text.size() || !(x > 0 && x <= 1))
    return std::nullopt;
  return x;
}

// vLLM's --quantization methods as the weights' format.
std::optional<NumberFormat> quantization_format(std::string_view method) {
  for (std::string_view four :
       {"awq", "awq_marlin", "gptq", "gptq_marlin", "marlin", "bitsandbytes"})
    if (method == four) return NumberFormat::Int4;
  if (method == "fp8" || method == "fbgemm_fp8" || method == "modelopt") return NumberFormat::Fp8;
  if (method == "experts_int8" || method == "smoothquant") return NumberFormat::Int8;
  return parse_number_format(method);
}

void apply(ServerArgs& out, Flag flag, std::string_view name, std::string_view value) {
  auto problem = [&](std::string_view why) {
    out.problems.push_back(fmt::format("{} {}: {}", name, value, why));
  };
  switch (flag) {
    case Flag::Model:
      out.model = std::string(value);
      return;
    case Flag::Dtype:
      if (value == "auto") return;
      if (auto f = parse_number_format(value))
        out.weights = *f;
      else
        problem("not a dtype fleetsim knows");
      return;
    case Flag::Quantization:
      if (auto f = quantization_format(value))
        out.weights = *f;
      else
        problem("a quantization method fleetsim does not model");
      return;
    case Flag::KvCacheDtype:
      if (value == "auto") return;
      if (value.starts_with("fp8"))
        out.kv_cache = NumberFormat::Fp8;
      else if (auto f = parse_number_format(value))
        out.kv_cache = *f;
      else
        problem("not a KV-cache dtype fleetsim knows");
      return;
    case Flag::MemoryShare:
      if (auto x = fraction(value))
        out.gpu_memory_utilization = *x;
      else
        problem("expected a share above 0 and at most 1");
      return;
    case Flag::ChunkedPrefill:
    case Flag::NoChunkedPrefill:
      return;
    default:
      break;
  }
  const std::optional<std::uint32_t> n = count(value);
  if (!n) {
    problem("expected a positive whole number");
    return;
  }
  if (flag == Flag::MaxNumSeqs) out.max_num_seqs = *n;
  if (flag == Flag::MaxBatchedTokens) out.max_num_batched_tokens = *n;
  if (flag == Flag::TensorParallel) out.tensor_parallel_size = *n;
  if (flag == Flag::MaxModelLen) out.max_model_len = *n;
}

}  // namespace

std::optional<ServerArgs> parse_server_args(const std::string& image,
                                            std::span<const std::string> argv) {
  const std::optional<EngineKind> engine = engine_of(image, argv);
  if (!engine) return std::nullopt;
  ServerArgs out{.engine = *engine};
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string_view word = argv[i];
    // `vllm serve MODEL`, `trtllm-serve MODEL` (the subcommand's positional argument).
    if (word == "serve" && i + 1 < argv.size() && !argv[i + 1].starts_with("-")) {
      out.model = argv[++i];
      continue;
    }
    std::string_view value;
    bool inline_value = false;
    if (const auto eq = word.find('='); word.starts_with("-") && eq != std::string_view::npos) {
      value = word.substr(eq + 1);
      word = word.substr(0, eq);
      inline_value = true;
    }
    const auto* spelling = std::find_if(kSpellings.begin(), kSpellings.end(),
                                        [&](const Spelling& s) { return s.name == word; });
    if (spelling == kSpellings.end()) continue;
    if (takes_no_value(spelling->flag)) {
      out.chunked_prefill = spelling->flag == Flag::ChunkedPrefill;
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argv.size()) {
        out.problems.push_back(fmt::format("{}: no value follows", word));
        continue;
      }
      value = argv[++i];
    }
    apply(out, spelling->flag, word, value);
  }
  return out;
}

}  // namespace fleetsim
