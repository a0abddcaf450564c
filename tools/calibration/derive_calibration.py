#!/usr/bin/env python3
"""Derive the serving-speed calibration rows of fleetsim's tests from published measurements.

Input:  llm_serving_calibration.csv   published LLM serving measurements with their conditions
        gpu_hardware.csv              GPU memory as nvidia-smi reports it (for trtllm-bench's sizing)
Output: tests/unit/serving/calibration_rows.inc   one C++ CalibrationRow per measurement

Each row keeps the conditions (model, number formats, GPU, TP degree, engine and the settings that
engine version ran with, the load) and the figures the source reports, with its row id, grade and
source. How a source's load becomes a workload, and which engine settings its version used, is
written out below per source (SETTINGS, LOADS); nothing is fitted here.

Run from the repository root:
  python3 tools/calibration/derive_calibration.py --data ../shared/data
  python3 tools/calibration/derive_calibration.py --readme   # the README table, from the test

--readme runs `test_serving "[.calibration-table]"` (build/release) and prints the Markdown table
of README "Serving speed against published measurements". Standard library only; deterministic.
"""

import argparse
import csv
import math
import re
import subprocess
import sys
from pathlib import Path

OUT = Path("tests/unit/serving/calibration_rows.inc")

# The source's names -> the test fixtures' (engine_fixtures.hpp).
MODELS = {
    "Llama-3.1-8B": "llama-3.1-8b",
    "Llama-3.1-70B": "llama-3.1-70b",
    "Llama-3.3-70B": "llama-3.1-70b",  # the same architecture and parameter count
    "Llama-2-7B": "llama-2-7b",
    "Llama-2-70B": "llama-2-70b",
    "Mistral-7B": "mistral-7b",
    "Mixtral-8x7B": "mixtral-8x7b",
}
GPUS = {
    "H100-SXM-80GB": "H100",
    "H200-SXM-141GB": "H200",
    "A100-SXM4-80GB": "A100-80GB",
    "L40S-48GB": "L40S",
}
# gpu_hardware.csv's names for the GPUs above.
HARDWARE_NAMES = {
    "H100": "H100-SXM-80GB",
    "H200": "H200-SXM-141GB",
    "A100-80GB": "A100-80GB (SXM4)",
    "L40S": "L40S",
}
# config.json parameter counts, KV heads and head dims, for trtllm-bench's sizing (tuning.py).
PARAMS = {"llama-3.1-8b": 8.03e9, "llama-3.1-70b": 70.55e9, "mixtral-8x7b": 46.7e9}
KV = {"llama-3.1-8b": (32, 8, 128), "llama-3.1-70b": (80, 8, 128), "mixtral-8x7b": (32, 8, 128)}

# trtllm-bench's dataset sizes per ISL/OSL (TensorRT-LLM docs/source/performance/perf-overview.md,
# "the number of requests used for each ISL/OSL combo", chosen to reach a steady state).
TRTLLM_BENCH_REQUESTS = {
    (128, 128): 30000,
    (128, 2048): 3000,
    (128, 4096): 1500,
    (500, 2000): 3000,
    (1000, 1000): 3000,
    (1000, 2000): 1500,
    (2048, 128): 3000,
    (2048, 2048): 1500,
    (5000, 500): 1500,
    (20000, 2000): 1000,
}


def trtllm_bench_sizing(model, weights_bytes, kv_bytes, tp, isl, osl, memory_gib):
    """max_batch_size and max_num_tokens as trtllm-bench picks them (tensorrt_llm/bench/build/
    tuning.py calc_engine_setting and finetune_setting, kv_cache_gpu_mem_fraction 0.95)."""
    layers, kv_heads, head_dim = KV[model]
    per_token_gib = 2 * layers * max(tp, kv_heads) * head_dim * kv_bytes / 1024**3
    available = memory_gib * tp - PARAMS[model] * weights_bytes / 1024**3
    max_requests = available * 0.95 / (per_token_gib * (isl + osl))
    raw_bs = min(max_requests, 4096)
    raw_token = min(raw_bs * (1 + isl / osl), 32768)
    if raw_bs < 256:
        max_bs = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        max_bs = 128 * math.ceil(raw_bs / 128)
    else:
        max_bs = 256 * math.ceil(raw_bs / 256)
    if raw_token < 4096:
        max_token = max(2048, 256 * math.ceil(raw_token / 256))
    elif raw_token < 8192:
        max_token = 512 * math.ceil(raw_token / 512)
    else:
        max_token = 1024 * math.ceil(raw_token / 1024)
    return max_bs, max_token


def number_format(text):
    text = text.lower()
    for name in ("bf16", "fp16", "fp8", "int8", "int4"):
        if text.startswith(name) or f"({name})" in text:
            return name
    raise SystemExit(f"unknown number format {text!r}")


def engine_settings(row, model, gpu_mib):
    """The engine and the settings the source's version ran with (nullopt-like 0 / -1: the
    engine's own default in fleetsim)."""
    engine, version = row["engine"], row["engine_version"]
    isl, osl = row["input_len"], row["output_len"]
    s = {"seqs": 0, "tokens": 0, "chunked": -1, "reserve": -1, "free_fraction": 0.0}
    if engine == "TensorRT-LLM" and version == "0.17":
        # trtllm-bench throughput: chunked context on, the MAX_UTILIZATION scheduler (no output
        # reservation; a request that does not fit is paused), KV cache 0.95 of free memory,
        # batch and token limits from its sizing heuristic
        # (tensorrt_llm/bench/dataclasses/configuration.py ExecutorSettingsConfig).
        weights = 1 if row["dtype_quant"] == "fp8" else 2
        kv = 1 if row["kv_cache_dtype"].startswith("fp8") else 2
        bs, tokens = trtllm_bench_sizing(model, weights, kv, int(row["tp"]), int(isl), int(osl),
                                         gpu_mib / 1024)
        s.update(seqs=bs, tokens=tokens, chunked=1, reserve=0, free_fraction=0.95)
        return "TensorRtLlm", "TensorRT-LLM 0.17 (trtllm-bench)", s
    if engine.startswith("TensorRT-LLM (Triton"):
        # Triton's tensorrtllm_backend: the engine's defaults (GUARANTEED_NO_EVICT, no chunked
        # context) and kv_cache_free_gpu_mem_fraction 0.9.
        s.update(free_fraction=0.9)
        return "TensorRtLlm", "TensorRT-LLM 0.14 (Triton)", s
    if engine.startswith("TensorRT-LLM (gptSessionBenchmark"):
        # Static batching: the batch's prompts in one context step, KV allocated for the whole
        # sequence; the batch is the engine's limit.
        batch = int(row["concurrency_or_batch"])
        s.update(seqs=batch, tokens=batch * int(isl), chunked=0, reserve=1, free_fraction=0.9)
        return "TensorRtLlm", f"TensorRT-LLM {version} (gptSessionBenchmark)", s
    if engine.startswith("NVIDIA NIM"):
        s.update(free_fraction=0.9)
        return "TensorRtLlm", "NIM 1.8.0 (TensorRT-LLM)", s
    if engine == "vLLM":
        # vLLM V0 (0.5/0.6): chunked prefill off below a 32K context, so a step batches at most
        # max(max_model_len, 2048) prompt tokens; 256 sequences (vllm/config.py SchedulerConfig).
        max_model_len = 4096 if row["row_id"] in ("M55", "M61") else 2048
        s.update(seqs=256, tokens=max(max_model_len, 2048), chunked=0)
        return "Vllm", f"vLLM {version}", s
    raise SystemExit(f"{row['row_id']}: no settings for engine {engine!r}")


def load(row):
    """(kind, requests, rate, users, label) for the row's load."""
    text = row["load"]
    isl, osl = row["input_len"], row["output_len"]
    if m := re.match(r"static batch (\d+)", text):
        n = int(m.group(1))
        return "Batch", n, 0, 0, f"static batch {n}"
    if m := re.match(r"concurrency (\d+)", text):
        users = int(m.group(1))
        return "Closed", 50 * users, 0, users, f"concurrency {users}"
    if m := re.match(r"request rate ([\d.]+) QPS", text):
        rate = float(m.group(1))
        return "Poisson", 500, rate, 0, f"{m.group(1)} QPS"
    if m := re.search(r"(\d+) prompts", text):
        n = int(m.group(1))
        return "Batch", n, 0, 0, f"offline ({n} requests)"
    if "infinite rate" in text or "inf QPS" in text:
        if "trtllm-bench" in row["source"]:
            n = TRTLLM_BENCH_REQUESTS[(int(isl), int(osl))]
        else:
            n = int(re.search(r"(\d+) requests", row["notes"]).group(1))
        return "Batch", n, 0, 0, f"offline ({n} requests)"
    raise SystemExit(f"{row['row_id']}: cannot read load {text!r}")


def lengths(row):
    """(input, output, sharegpt): fixed lengths, or ShareGPT's means."""
    if row["length_distribution"].startswith("ShareGPT"):
        mean = lambda text: int(re.search(r"(\d+)", text).group(1))
        return mean(row["input_len"]), mean(row["output_len"]), True
    return int(row["input_len"]), int(row["output_len"]), False


def published(row):
    num = lambda key: float(row[key]) if row[key] else 0.0
    out = {"ttft_mean": num("ttft_mean_ms"), "ttft_median": num("ttft_p50_ms"),
           "tpot_mean": 0.0, "tpot_median": 0.0, "itl_mean": num("itl_mean_ms"),
           "output_tok_s": num("output_tok_s")}
    if row["tpot_ms"]:
        out["tpot_median" if row["tpot_stat"].startswith("median") else "tpot_mean"] = num("tpot_ms")
    return out


def short_source(source):
    source = source.replace('"', "'")
    if source.startswith("http"):
        return source.split()[0]
    m = re.match(r"(\S+ \S+)", source)
    return m.group(1) if m else source


def derive(data):
    mib = {}
    with open(data / "gpu_hardware.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "gpu" and r["memory_usable_mib_nvidia_smi"].isdigit():
                mib[r["name"]] = int(r["memory_usable_mib_nvidia_smi"])
    lines = [
        "// Generated by tools/calibration/derive_calibration.py from llm_serving_calibration.csv",
        "// (sources in ../shared/data/SOURCES.md); do not edit. One published measurement a row:",
        "// the conditions, the engine settings its version ran with, and the figures reported.",
    ]
    with open(data / "llm_serving_calibration.csv", newline="") as f:
        for row in csv.DictReader(f):
            model = MODELS[row["model"]]
            gpu = GPUS[row["gpu"]]
            kind, label, s = engine_settings(row, model, mib[HARDWARE_NAMES[gpu]])
            load_kind, requests, rate, users, load_label = load(row)
            isl, osl, sharegpt = lengths(row)
            p = published(row)
            weights = number_format(row["dtype_quant"])
            kv = number_format(row["kv_cache_dtype"].replace("auto (bf16)", "bf16"))
            fields = [
                f'.id = "{row["row_id"]}"',
                f'.source = "{short_source(row["source"])}"',
                f'.model = "{model}"',
                f'.gpu = "{gpu}"',
                f".weights = NumberFormat::{weights.capitalize()}",
                f".kv_cache = NumberFormat::{kv.capitalize()}",
                f'.tp = {row["tp"]}',
                f".engine = EngineKind::{kind}",
                f'.engine_label = "{label}"',
                f".max_num_seqs = {s['seqs']}",
                f".max_num_batched_tokens = {s['tokens']}",
                f".chunked_prefill = {s['chunked']}",
                f".reserve_output = {s['reserve']}",
                f".kv_free_fraction = {s['free_fraction']}",
                f".load = Load::{load_kind}",
                f'.load_label = "{load_label}"',
                f".requests = {requests}",
                f".rate = {rate}",
                f".users = {users}",
                f".input = {isl}",
                f".output = {osl}",
                f".sharegpt = {'true' if sharegpt else 'false'}",
                f".grade = '{row['reliability']}'",
            ] + [f".{k} = {v}" for k, v in p.items() if v]
            lines.append("{" + ", ".join(fields) + "},")
    return "\n".join(lines) + "\n"


def readme(binary):
    """The README table from the test's printout (CSV: row,model,hardware,engine,load,stat,
    published,fleetsim,error)."""
    out = subprocess.run([binary, "[.calibration-table]"], check=True, capture_output=True,
                         text=True).stdout
    rows = [line.split(",") for line in out.splitlines() if re.match(r"^M\d+,", line)]
    table = ["| row | model | GPU × TP | engine | load | statistic | published | fleetsim | error |",
             "|---|---|---|---|---|---|---:|---:|---:|"]
    for r in rows:
        table.append("| " + " | ".join(r) + " |")
    medians = [line for line in out.splitlines() if line.startswith("median")]
    return "\n".join(table + [""] + [m[0].upper() + m[1:] + "." for m in medians])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--readme", action="store_true", help="print the README table instead")
    ap.add_argument("--binary", default="build/release/tests/test_serving")
    args = ap.parse_args()
    if args.readme:
        print(readme(args.binary))
        return 0
    OUT.write_text(derive(args.data))
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
