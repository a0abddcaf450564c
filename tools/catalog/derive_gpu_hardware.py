#!/usr/bin/env python3
"""Derive the GPU hardware tables of fleetsim's AWS us-east-1 catalog from the project's data.

Inputs:
  --data/gpu_hardware.csv   per GPU: memory, bandwidth, tensor peaks; per instance: the GPU links
                            (NVIDIA datasheets, AWS's accelerated-computing table; see SOURCES.md)
  --out/instance-types.csv  the catalog's own GPU names and per-GPU memory, to key the rows on

Outputs, written to --out:
  gpu-hardware.csv      one row per (gpu_name, gpu_memory_mib) of instance-types.csv
  gpu-interconnect.csv  one row per instance type with more than one GPU

Run from the repository root:
  python3 tools/catalog/derive_gpu_hardware.py --data ../shared/data --out instance-catalog/aws/us-east-1

Standard library only. Output is deterministic: the same inputs give byte-identical files.
"""

import argparse
import csv
import re
import sys
from pathlib import Path

REGION = "us-east-1"

HARDWARE_COLUMNS = [
    "gpu_name", "gpu_memory_mib", "usable_memory_mib", "memory_bandwidth_gb_s", "bf16_tflops",
    "fp16_tflops", "fp8_tflops", "int8_tops", "source",
]
INTERCONNECT_COLUMNS = ["instance_type", "kind", "bandwidth_gb_s", "latency_us", "source"]

# A10G's dense FP16/BF16 tensor peak. gpu_hardware.csv gives "70 planning / 125 upper bound":
# NVIDIA publishes no A10G figure; 125 TF is the A10's datasheet peak.
# Measurement: PyTorch 2.7 (CUDA 12.8) matmul on an A10G reaches 69.47 TFLOPS in FP16 and in BF16
# at 10240x10240 (65.7-66.6 at 8192; github.com/zzc0721/torch-performance-test-data issue 126).
# With 125 TF that is 56% of peak for the largest GEMM, and the prefill MFU the serving model
# fits on A100 (0.56-0.67 of peak) would put A10G prefill at 70-84 TF: above what the GPU's own
# GEMM reaches, so prefill would come out too fast. With 70 TF the GEMM runs at 99% of peak: the
# measurement is a floor on the peak and sits at 70, GA102's GeForce tensor rate (RTX 3090, the
# same die: 71 TF dense with FP32 accumulation, half its FP16-accumulate rate). So: 70 TF.
A10G_TENSOR_TFLOPS = 70
A10G_TENSOR_SOURCE = (
    "A10G tensor peak 70 TF chosen by measurement: PyTorch FP16/BF16 matmul 69.47 TFLOPS at "
    "10240^3 (github.com/zzc0721/torch-performance-test-data issue 126); the A10's 125 TF would "
    "make that 56% of peak (see README)")

# gpu_hardware.csv names -> the instance-types.csv family patterns it gives for them. The
# catalog's GPU name and per-GPU memory are read from the matching types, not retyped here.
# Inferentia2 is left out: the serving model has no figures it can use for a NeuronCore.
NOT_MODELLED = {"Inferentia2 (per chip)": "Neuron: the serving model keeps nominal rates"}

# How the GPUs of a multi-GPU type talk, by family, from the `instance` rows of gpu_hardware.csv.
# NVSwitch: the NVLink rate per GPU per direction (half the bidirectional figure AWS quotes):
# the link is what bounds an all-reduce there. PCIe: an effective rate, because peers reach far
# less than the nominal x16 rate through the host's root complexes (see README).
PCIE_GEN4_EFFECTIVE_GB_S = 20  # g6e TP4->TP8 fit (TRT-LLM v0.17 L40S rows); g5 note: 15-25
PCIE_GEN3_EFFECTIVE_GB_S = 10  # half of Gen4, as the link rate is half
PCIE_LATENCY_US = 30           # g5 note: ~20-40 us per small all-reduce
PCIE_CROSS_SOCKET_LATENCY_US = 40  # 8 GPUs span two root complexes / NUMA nodes: the top of it
NVSWITCH_LATENCY_US = 10  # NCCL small all-reduce on HGX H100: ~6 us at 2 GPUs, rising with
                          # the count (github.com/NVIDIA/nccl issue 1259)
NVSWITCH_SOURCE_NOTE = ("bandwidth: half the bidirectional NVLink figure; latency: NCCL small "
                        "all-reduce on HGX H100 (NVIDIA/nccl issue 1259)")
PCIE_SOURCE_NOTE = ("effective Gen4 rate 20 GB/s per direction fitted on TRT-LLM v0.17 L40S TP4 vs "
                    "TP8 (Gen3: half); latency from the g5 note (20-40 us per small all-reduce)")

INTERCONNECT_BY_FAMILY = {
    # family: (kind, per-direction GB/s, which gpu_hardware.csv instance row says so)
    "g4dn": ("pcie", PCIE_GEN3_EFFECTIVE_GB_S, "g4dn.12xlarge"),
    "g5": ("pcie", PCIE_GEN4_EFFECTIVE_GB_S, "g5.12xlarge / g5.24xlarge"),
    "g6": ("pcie", PCIE_GEN4_EFFECTIVE_GB_S, "g6.12xlarge / g6.48xlarge"),
    "g6e": ("pcie", PCIE_GEN4_EFFECTIVE_GB_S, "g6e.12xlarge / g6e.24xlarge"),
    "p4d": ("nvswitch", 300, "p4d.24xlarge"),
    "p4de": ("nvswitch", 300, "p4de.24xlarge"),
    "p5": ("nvswitch", 450, "p5.48xlarge"),
    "p5en": ("nvswitch", 450, "p5e.48xlarge / p5en.48xlarge"),
}


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def write_csv(path, columns, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row[c] for c in columns])


def leading_number(text):
    """The first number of a cell such as "121 (242 sparse)" or "~250 (A10 figure)"; 0 for
    "n/a" (the GPU has no such unit)."""
    text = text.strip()
    if text.startswith("n/a") or not text:
        return 0
    m = re.match(r"~?(\d+(?:\.\d+)?)", text)
    assert m, f"no number in {text!r}"
    value = float(m.group(1))
    return int(value) if value.is_integer() else value


def matches(pattern, instance_type):
    """gpu_hardware.csv's aws_instances: "g5.*", "p4d.24xlarge", "g6.* / gr6.*"."""
    for p in (s.strip() for s in pattern.split("/")):
        if p.endswith(".*") and instance_type.split(".")[0] == p[:-2]:
            return True
        if p == instance_type:
            return True
    return False


def hardware_row(src, catalog):
    """One gpu-hardware.csv row from one `gpu` row of gpu_hardware.csv."""
    keys = {(t["gpu_name"], t["gpu_memory_mib"]) for t in catalog
            if int(t["gpu_count"] or 0) > 0 and matches(src["aws_instances"], t["instance_type"])}
    assert len(keys) == 1, f"{src['name']}: catalog GPUs {sorted(keys)} for {src['aws_instances']}"
    gpu_name, gpu_memory_mib = keys.pop()
    peak = src["bf16_fp16_dense_tflops"]
    bf16 = fp16 = leading_number(peak)
    source = src["source"]
    if "no BF16" in peak:
        bf16 = 0  # Turing: FP16 tensor cores only
    if gpu_name == "a10g":
        assert "70 planning / 125" in peak, peak
        bf16 = fp16 = A10G_TENSOR_TFLOPS
        source = f"{source}; {A10G_TENSOR_SOURCE}"
    return {
        "gpu_name": gpu_name,
        "gpu_memory_mib": int(gpu_memory_mib),
        "usable_memory_mib": int(src["memory_usable_mib_nvidia_smi"]),
        "memory_bandwidth_gb_s": leading_number(src["mem_bw_gb_s"]),
        "bf16_tflops": bf16,
        "fp16_tflops": fp16,
        "fp8_tflops": leading_number(src["fp8_dense_tflops"]),
        "int8_tops": leading_number(src["int8_dense_tops"]),
        "source": f"gpu_hardware.csv {src['name']}: {source}",
    }


def interconnect_rows(catalog, instance_rows):
    rows = []
    for t in catalog:
        if int(t["gpu_count"] or 0) < 2:
            continue
        family = t["family"]
        if family not in INTERCONNECT_BY_FAMILY:
            continue
        kind, bandwidth, src_name = INTERCONNECT_BY_FAMILY[family]
        src = instance_rows[src_name]
        if kind == "nvswitch":
            assert "NVSwitch" in src["gpu_interconnect"], src
            latency, note = NVSWITCH_LATENCY_US, NVSWITCH_SOURCE_NOTE
        else:
            assert "PCIe" in src["gpu_interconnect"] and "no NVLink" in src["gpu_interconnect"]
            latency = PCIE_CROSS_SOCKET_LATENCY_US if int(t["gpu_count"]) > 4 else PCIE_LATENCY_US
            note = PCIE_SOURCE_NOTE
        rows.append({
            "instance_type": t["instance_type"],
            "kind": kind,
            "bandwidth_gb_s": bandwidth,
            "latency_us": latency,
            "source": f"gpu_hardware.csv {src_name}: {src['gpu_interconnect']} ({src['source']}); "
                      f"{note}",
        })
    return sorted(rows, key=lambda r: r["instance_type"])


def derive(data_dir, out_dir):
    source = read_csv(data_dir / "gpu_hardware.csv")
    catalog = read_csv(out_dir / "instance-types.csv")
    gpus = [r for r in source if r["kind"] == "gpu" and r["name"] not in NOT_MODELLED]
    instance_rows = {r["name"]: r for r in source if r["kind"] == "instance"}
    hardware = sorted((hardware_row(r, catalog) for r in gpus),
                      key=lambda r: (r["gpu_name"], r["gpu_memory_mib"]))
    keys = [(r["gpu_name"], r["gpu_memory_mib"]) for r in hardware]
    assert len(set(keys)) == len(keys), f"duplicate GPU rows: {keys}"
    for r in hardware:
        assert 0 < r["usable_memory_mib"] <= r["gpu_memory_mib"] * 1.01, r
    links = interconnect_rows(catalog, instance_rows)

    write_csv(out_dir / "gpu-hardware.csv", HARDWARE_COLUMNS, hardware)
    write_csv(out_dir / "gpu-interconnect.csv", INTERCONNECT_COLUMNS, links)
    report(catalog, set(keys), links)


def report(catalog, covered, links):
    uncovered, no_link = {}, []
    linked = {r["instance_type"] for r in links}
    for t in catalog:
        key = (t["gpu_name"], int(t["gpu_memory_mib"] or 0))
        if t["gpu_name"] and key not in covered:
            uncovered.setdefault(f"{t['gpu_name']} {key[1]} MiB", []).append(t["instance_type"])
        if int(t["gpu_count"] or 0) > 1 and t["instance_type"] not in linked:
            no_link.append(t["instance_type"])
    print(f"gpu-hardware.csv: {len(covered)} GPUs; gpu-interconnect.csv: {len(links)} types")
    print("GPUs without hardware figures:")
    for gpu, types in sorted(uncovered.items()):
        print(f"  {gpu}: {' '.join(sorted(types))}")
    print("multi-GPU types without an interconnect row:", " ".join(sorted(no_link)) or "-")
    accel = sorted({t["accelerator_name"] for t in catalog if t["accelerator_name"]})
    print("accelerators left out:", " ".join(accel) or "-")


def main(argv):
    repo_root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=repo_root / ".." / "shared" / "data",
                        help="directory holding gpu_hardware.csv (default: ../shared/data)")
    parser.add_argument("--out", type=Path, default=repo_root / "instance-catalog" / "aws" / REGION,
                        help="catalog directory (default: instance-catalog/aws/us-east-1)")
    args = parser.parse_args(argv)
    derive(args.data, args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
