#!/usr/bin/env python3
"""Derives models/models.csv from the models' config.json values in tools/models/configs/.

Each configs/<name>.json holds the config.json fields this script reads (copied from the public
copy its "source" names), the catalog name, aliases and Hugging Face id, and the parameter
counts the model's publisher gives. The script counts the parameters from the architecture and
fails when a count is more than 2% off the published one, so a mistyped field cannot pass.

    python3 tools/models/derive_models.py            # writes models/models.csv
    python3 tools/models/derive_models.py --check    # exit 1 if models.csv differs
"""

import argparse
import csv
import io
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "tools" / "models" / "configs"
OUT = ROOT / "models" / "models.csv"

# Catalog order: by family, then size.
ORDER = [
    "llama-2-7b", "llama-2-13b", "llama-2-70b",
    "llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
    "mistral-7b", "mistral-nemo-12b", "mixtral-8x7b", "mixtral-8x22b",
    "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b",
    "qwen3-30b-a3b", "qwen3-235b-a22b",
    "gemma-2-9b", "gemma-2-27b",
    "deepseek-v3",
]

COLUMNS = [
    "name", "aliases", "hf_id", "total_parameters", "active_parameters", "layers", "hidden_size",
    "attention_heads", "kv_heads", "head_dim", "vocabulary", "max_context", "experts",
    "experts_per_token", "kv_elements_per_token_layer", "tied_embeddings", "source",
]

TOLERANCE = 0.02
KNOWN_TYPES = {"llama", "mistral", "mixtral", "qwen2", "qwen3_moe", "gemma2", "deepseek_v3"}


def is_mla(c):
    return "kv_lora_rank" in c


def head_dim(c):
    if is_mla(c):  # the query/key head: the part without RoPE and the RoPE part
        return c["qk_nope_head_dim"] + c["qk_rope_head_dim"]
    return c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]


def attention_parameters(c):
    d, heads = c["hidden_size"], c["num_attention_heads"]
    if is_mla(c):
        qk = c["qk_nope_head_dim"] + c["qk_rope_head_dim"]
        q = (d * c["q_lora_rank"] + c["q_lora_rank"] + c["q_lora_rank"] * heads * qk
             if c.get("q_lora_rank") else d * heads * qk)
        kv = (d * (c["kv_lora_rank"] + c["qk_rope_head_dim"]) + c["kv_lora_rank"]
              + c["kv_lora_rank"] * heads * (c["qk_nope_head_dim"] + c["v_head_dim"]))
        return q + kv + heads * c["v_head_dim"] * d
    hd, kv_heads = head_dim(c), c["num_key_value_heads"]
    n = d * heads * hd + 2 * d * kv_heads * hd + heads * hd * d
    if c["model_type"] == "qwen2":  # q, k and v carry biases
        n += heads * hd + 2 * kv_heads * hd
    if c["model_type"] == "qwen3_moe":  # RMSNorm on each query and key head
        n += 2 * hd
    return n


def gated_mlp(d, inner):
    return 3 * d * inner  # gate, up and down projections


def layer_parameters(c, layer, experts_used):
    """One decoder layer's weights; experts_used: all routed experts (total) or those a token
    passes through (active)."""
    d = c["hidden_size"]
    norms = (4 if c["model_type"] == "gemma2" else 2) * d
    n = attention_parameters(c) + norms
    routed = c.get("num_local_experts") or c.get("num_experts") or c.get("n_routed_experts") or 0
    dense_layers = c.get("first_k_dense_replace", 0)
    if routed == 0 or layer < dense_layers or layer in c.get("mlp_only_layers", []):
        return n + gated_mlp(d, c["intermediate_size"])
    expert = gated_mlp(d, c.get("moe_intermediate_size") or c["intermediate_size"])
    shared = c.get("n_shared_experts", 0) * expert
    return n + routed * d + experts_used(routed) * expert + shared  # router, experts, shared


def parameters(c, active):
    d, vocab = c["hidden_size"], c["vocab_size"]
    tied = c.get("tie_word_embeddings", c["model_type"] == "gemma2")
    n = vocab * d * (1 if tied else 2) + d  # embeddings, lm_head unless tied, final norm
    per_token = c.get("num_experts_per_tok", 0)
    used = (lambda routed: per_token) if active else (lambda routed: routed)
    return n + sum(layer_parameters(c, i, used) for i in range(c["num_hidden_layers"]))


def kv_elements(c):
    if is_mla(c):  # the compressed latent and the shared RoPE key
        return c["kv_lora_rank"] + c["qk_rope_head_dim"]
    return 2 * c["num_key_value_heads"] * head_dim(c)


def source_text(s):
    where = f"{s['repo']}@{s['commit'][:12]}:{s['path']}" if "commit" in s else s["copy_of"]
    return f"{where} (copy of {s['copy_of']})" if "commit" in s else where


def check(name, what, computed, published):
    error = abs(computed - published) / published
    if error > TOLERANCE:
        sys.exit(f"derive_models: {name}: {what} parameters computed {computed / 1e9:.3f}B but "
                 f"published {published / 1e9:.3f}B ({error:.1%} off, more than "
                 f"{TOLERANCE:.0%}): a config value is wrong")
    return error


def row(entry):
    name, c = entry["name"], dict(entry["config"], **entry.get("overrides", {}))
    if c["model_type"] not in KNOWN_TYPES:
        sys.exit(f"derive_models: {name}: model_type {c['model_type']} is not one this script "
                 "counts; add it")
    total, active = parameters(c, active=False), parameters(c, active=True)
    published = entry["published"]
    check(name, "total", total, published["total"])
    check(name, "active", active, published.get("active", published["total"]))
    experts = c.get("num_local_experts") or c.get("num_experts") or c.get("n_routed_experts") or 0
    return {
        "name": name,
        "aliases": " ".join(entry["aliases"]),
        "hf_id": entry["hf_id"],
        "total_parameters": total,
        "active_parameters": active,
        "layers": c["num_hidden_layers"],
        "hidden_size": c["hidden_size"],
        "attention_heads": c["num_attention_heads"],
        "kv_heads": c.get("num_key_value_heads", c["num_attention_heads"]),
        "head_dim": head_dim(c),
        "vocabulary": c["vocab_size"],
        "max_context": c["max_position_embeddings"],
        "experts": experts,
        "experts_per_token": c.get("num_experts_per_tok", 0) if experts else 0,
        "kv_elements_per_token_layer": kv_elements(c),
        "tied_embeddings": int(bool(c.get("tie_word_embeddings", c["model_type"] == "gemma2"))),
        "source": source_text(entry["source"]),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if models.csv is stale")
    args = parser.parse_args()
    files = {p.stem: p for p in CONFIGS.glob("*.json")}
    if set(files) != set(ORDER):
        sys.exit(f"derive_models: configs/ and ORDER differ: {sorted(set(files) ^ set(ORDER))}")
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for name in ORDER:
        entry = json.loads(files[name].read_text())
        if entry["name"] != name:
            sys.exit(f"derive_models: {files[name]} names {entry['name']}")
        writer.writerow(row(entry))
    text = out.getvalue()
    if args.check:
        if OUT.read_text() != text:
            sys.exit(f"derive_models: {OUT} is stale; run tools/models/derive_models.py")
        return
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(ORDER)} models)")


if __name__ == "__main__":
    main()
