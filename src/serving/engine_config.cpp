#include "fleetsim/serving/engine_config.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "fleetsim/core/ascii_case.hpp"
#include "fleetsim/core/quantity.hpp"

namespace fleetsim {

namespace {

constexpr std::array<std::string_view, 3> kEngineNames{"vllm", "tensorrt-llm", "sglang"};

}  // namespace

std::string_view to_string(EngineKind kind) { return kEngineNames[static_cast<std::size_t>(kind)]; }

std::optional<EngineKind> parse_engine_kind(std::string_view name) {
  for (std::size_t i = 0; i < kEngineNames.size(); ++i)
    if (iequals(name, kEngineNames[i])) return static_cast<EngineKind>(i);
  if (iequals(name, "trtllm") || iequals(name, "trt-llm")) return EngineKind::TensorRtLlm;
  return std::nullopt;
}

// Fitted on the published measurements of tests/unit/serving/calibration_rows.inc (README,
// "Serving speed against published measurements"; tools/calibration/fit_calibration.py searches
// a grid and scores each engine's rows by their mean squared log error). One set per engine,
// chosen where the fit is flat by what the engine's kernels and runtime are known to do: the
// rows are few, and other measurements will check that the constants generalise.
EngineCalibration default_calibration(EngineKind kind) {
  switch (kind) {
    // Efficiencies fitted on M55 (vLLM 0.6.0, Llama-3.1-8B bf16, A100, ShareGPT offline) and M61
    // (vLLM 0.5.4, Llama-3.1-70B fp8 weight-only, A100, KV-starved); M58 (vLLM 0.5.4,
    // Mistral-7B) is left out of the fit: 0.5.4's scheduler cost per sequence (up to half a step,
    // WukLab's study) made it slower than these constants say (published 1591 tokens/s, here
    // about +70 %); vLLM 0.6 removed most of that cost.
    // - bandwidth 0.8: M61 is a batch of ~15 decodes streaming 68 GiB of weights through FP8
    //   Marlin (its TPOT wants 0.85; 0.8 is also what BLIS's early roofline used, 0.72–0.8).
    // - compute 0.6: M55 is compute-bound (400 tokens of work per request); A100's 16-bit
    //   GEMMs reach 0.6–0.7 of the 312 TF peak (M08 and M18 say the same for TensorRT-LLM).
    // - step 2 ms and 15 µs per sequence: the CPU's share of a step in vLLM V1, which fleetsim
    //   models (V1's schedule() ≈ 12.7 µs and update_from_output ≈ 1.1 µs per running request;
    //   BLIS's fit of current vLLM on H100: 126 µs + 32 µs per layer a step, 1.2–2.7 ms for
    //   8B–70B). Every vLLM row is V0, whose CPU cost was higher (Vidur's A100 profile: 1 ms +
    //   40 µs per sequence, which the rows prefer, loss 0.016 against 0.021 here); at V1's 1024
    //   sequences on an H100, 40 µs would add 41 ms to every step. So M55 reads +11 %.
    // - reserve 2.5 GiB: vLLM's profile of an 8B model on H100 (activation peak 1.2–1.3 GiB,
    //   NCCL/cuBLAS 0.1–1.8 GiB, CUDA graphs 0.1–0.6 GiB).
    case EngineKind::Vllm:
      return {.bandwidth_efficiency = 0.8,
              .compute_efficiency = 0.6,
              .step_overhead_s = 0.002,
              .per_sequence_overhead_s = 0.000015,
              .activation_reserve_bytes = 2.5 * kGib};
    // Fitted on the TensorRT-LLM rows: trtllm-bench offline throughput (M03–M22), Triton online
    // (M31–M36), gptSessionBenchmark batch-1 prefill (M41–M45) and NIM at concurrency 1 (M73).
    // M48 (v0.6.1, batch 480) is left out: it is 2.5× slower than any constant here explains.
    // - bandwidth 0.75: the decode-bound rows, M73 (70B fp8 TP2 at batch 1: 18.9 ms a token),
    //   M31 (8B bf16, light load: 8 ms) and M12 (70B fp8 on one H100, KV-bound); 0.7–0.8 fit.
    // - compute 0.5: most rows compute in FP8 on H100 and L40S, where GEMMs reach about half the
    //   FP8 peak (M03, M05, M15, M43, M45: 0.45–0.55); the A100 16-bit rows want more (M08 −30 %
    //   at 0.5, −5 % at 0.7): the model has one efficiency for every number format.
    // - step 2 ms: light-load decode steps beyond the weights' streaming, M31 (1.6 ms, Triton) and
    //   M73 (2.8 ms, NIM); both include the server's per-token streaming. The loss is lowest at
    //   3 ms, which buys the server rows' TTFT (M36, M73: a per-request front-end cost the model
    //   does not have) at the price of every step's time.
    // - 10 µs per sequence: 0–20 µs score within 1 %; 10 µs keeps M33's batch of 500 right.
    // - reserve 3 GiB: the runtime's activation and decoder buffers beside weights and KV, of the
    //   order of vLLM's measured profile; M12, the one KV-bound row, prefers 4–5 GiB.
    case EngineKind::TensorRtLlm:
      return {.bandwidth_efficiency = 0.75,
              .compute_efficiency = 0.5,
              .step_overhead_s = 0.002,
              .per_sequence_overhead_s = 0.00001,
              .activation_reserve_bytes = 3.0 * kGib};
    // No published row runs SGLang. Its kernels (FlashInfer attention, the same cuBLAS and
    // CUTLASS GEMMs) are vLLM's, so are its achieved fractions; its overlap scheduler prepares
    // the next step on the CPU while the GPU runs this one (host 2.6–2.9 ms hidden behind a
    // 5.7 ms forward in sglang-jax's trace), so less of the CPU's time shows than in vLLM:
    // 0.5 ms a step and 10 µs a sequence, not measured. mem_fraction_static already leaves the
    // activations, CUDA graphs and NCCL buffers out (server_args.py reserves them), so there is
    // no reserve beside.
    case EngineKind::Sglang:
      return {.bandwidth_efficiency = 0.8,
              .compute_efficiency = 0.6,
              .step_overhead_s = 0.0005,
              .per_sequence_overhead_s = 0.00001,
              .activation_reserve_bytes = 0};
  }
  return {};
}

// Each engine's defaults as its own source sets them (/work/notes → README "Serving engines"):
// - vLLM ≥ 0.9, vllm/engine/arg_utils.py: on a GPU of 70 GiB or more that is not an A100, 1024
//   sequences and 8192 batched tokens for the OpenAI server, else 256 and 2048; chunked prefill
//   always on in V1; 16-token blocks; gpu_memory_utilization 0.9.
// - TensorRT-LLM (trtllm-serve, llm_args.py): max_batch_size 2048, max_num_tokens 8192, chunked
//   context off, the GUARANTEED_NO_EVICT scheduler, 32-token blocks; its KV cache takes 0.9 of
//   the memory left free after the weights (kv_cache_free_gpu_memory_fraction), which
//   gpu_memory_utilization expresses here as a share of the whole.
// - SGLang (server_args.py): chunked_prefill_size 2048 under 35 GiB, 4096 under 60 GiB, else
//   8192; mem_fraction_static about 0.84 on 24–80 GiB GPUs; pages of one token; a step is a
//   prefill batch or a decode batch, prefill first (enable_mixed_chunk off; scheduler.py
//   get_next_batch_to_run).
EngineLimits resolve(const EngineOptions& options, const GpuHardware& gpu, std::uint32_t gpus) {
  EngineLimits l{.kind = options.kind};
  const double memory = static_cast<double>(gpu.memory_bytes);
  switch (options.kind) {
    case EngineKind::Vllm: {
      const std::string name = ascii_lower(gpu.name);
      const bool large = memory >= 70 * kGib && name.find("a100") == std::string::npos;
      l.max_num_seqs = large ? 1024 : 256;
      l.max_num_batched_tokens = large ? 8192 : 2048;
      l.gpu_memory_utilization = 0.9;
      l.chunked_prefill = true;
      break;
    }
    case EngineKind::TensorRtLlm:
      l.max_num_seqs = 2048;
      l.max_num_batched_tokens = 8192;
      l.gpu_memory_utilization = 0.9;
      l.chunked_prefill = false;
      l.reserve_output = true;
      l.block_tokens = 32;
      l.kv_share_of_free = true;
      break;
    case EngineKind::Sglang:
      l.max_num_seqs = 2048;
      l.max_num_batched_tokens = memory < 35 * kGib ? 2048 : memory < 60 * kGib ? 4096 : 8192;
      l.gpu_memory_utilization = 0.84;
      l.chunked_prefill = true;
      l.block_tokens = 1;
      break;
  }
  l.tensor_parallel_size = options.tensor_parallel_size.value_or(std::max<std::uint32_t>(1, gpus));
  if (options.max_num_batched_tokens) l.max_num_batched_tokens = *options.max_num_batched_tokens;
  // vLLM lowers its default sequence limit to the token budget; one the user set is checked.
  l.max_num_seqs =
      options.max_num_seqs.value_or(std::min(l.max_num_seqs, l.max_num_batched_tokens));
  if (options.gpu_memory_utilization) l.gpu_memory_utilization = *options.gpu_memory_utilization;
  if (options.enable_chunked_prefill) l.chunked_prefill = *options.enable_chunked_prefill;
  l.mixed_steps = l.kind != EngineKind::Sglang && l.chunked_prefill;
  if (options.max_model_len) l.max_model_len = *options.max_model_len;
  l.calibration = default_calibration(options.kind);
  const EngineCalibration& o = options.calibration_override;
  EngineCalibration& c = l.calibration;
  if (o.bandwidth_efficiency > 0) c.bandwidth_efficiency = o.bandwidth_efficiency;
  if (o.compute_efficiency > 0) c.compute_efficiency = o.compute_efficiency;
  if (o.step_overhead_s > 0) c.step_overhead_s = o.step_overhead_s;
  if (o.per_sequence_overhead_s > 0) c.per_sequence_overhead_s = o.per_sequence_overhead_s;
  if (o.activation_reserve_bytes > 0) c.activation_reserve_bytes = o.activation_reserve_bytes;
  return l;
}

}  // namespace fleetsim
