#!/usr/bin/env python3
"""Fit one engine's calibration (src/serving/engine_config.cpp default_calibration) on the
published measurements of tests/unit/serving/calibration_rows.inc.

A grid search: for each point it runs `test_serving "[.calibration-table]"` with
FLEETSIM_CALIBRATION set to the point (the test's override for that engine) and scores the rows of
that engine by the mean squared log error of every statistic, so a row off by ×2 and one off by
÷2 weigh the same and no single statistic dominates. The activation reserve is not searched: it is
the engine's own memory profile (see engine_config.cpp), since the rows constrain it only through
the KV-bound ones.

Run from the repository root after building (the fits behind engine_config.cpp's defaults):
  python3 tools/calibration/fit_calibration.py --engine tensorrt-llm --reserve-gib 3 --exclude M48
  python3 tools/calibration/fit_calibration.py --engine vllm --reserve-gib 2.5 --exclude M58 \
      --bandwidth 0.75,0.8,0.85 --compute 0.5,0.55,0.6,0.65,0.7

Prints the best points with their per-group median errors. Standard library only.
"""

import argparse
import itertools
import math
import os
import re
import subprocess
import sys

ENGINE_LABELS = {"tensorrt-llm": ("TensorRT-LLM", "NIM"), "vllm": ("vLLM",), "sglang": ("SGLang",)}


def floats(text):
    return [float(x) for x in text.split(",")]


def run(binary, engine, point):
    env = dict(os.environ, FLEETSIM_CALIBRATION=",".join([engine] + [repr(x) for x in point]))
    out = subprocess.run([binary, "[.calibration-table]"], env=env, check=True,
                         capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split(",")
        if re.match(r"^M\d+$", f[0]):
            rows.append({"id": f[0], "engine": f[3], "stat": f[5], "published": float(f[6]),
                         "model": float(f[7])})
    return rows


def score(rows, engine, exclude):
    mine = [r for r in rows
            if r["engine"].startswith(ENGINE_LABELS[engine]) and r["id"] not in exclude]
    if not mine:
        raise SystemExit(f"no rows for {engine}")
    loss = sum(math.log(max(r["model"], 1e-9) / r["published"]) ** 2 for r in mine) / len(mine)
    worst = max(abs(r["model"] / r["published"] - 1) for r in mine)
    return loss, worst


def medians(rows):
    def group(stat):
        return 0 if stat.startswith("TTFT") else 2 if stat.startswith("output") else 1
    out = []
    for g in range(3):
        errors = sorted(abs(r["model"] / r["published"] - 1) for r in rows if group(r["stat"]) == g)
        n = len(errors)
        out.append(0 if n == 0 else (errors[n // 2] if n % 2 else (errors[n // 2 - 1] + errors[n // 2]) / 2))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", required=True, choices=sorted(ENGINE_LABELS))
    ap.add_argument("--binary", default="build/release/tests/test_serving")
    ap.add_argument("--bandwidth", type=floats, default=floats("0.6,0.65,0.7,0.75,0.8,0.85,0.9"))
    ap.add_argument("--compute", type=floats, default=floats("0.4,0.45,0.5,0.55,0.6,0.65,0.7"))
    ap.add_argument("--step", type=floats, default=floats("0.0005,0.001,0.002,0.003,0.004"),
                    help="per-step overheads, seconds")
    ap.add_argument("--sequence", type=floats, default=floats("0,0.00001,0.00002,0.00004"),
                    help="per-sequence overheads, seconds")
    ap.add_argument("--reserve-gib", type=float, required=True)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--exclude", type=lambda t: t.split(","), default=[],
                    help="rows left out of the loss (an error no calibration constant explains)")
    args = ap.parse_args()
    results = []
    for bw, ce, step, seq in itertools.product(args.bandwidth, args.compute, args.step,
                                               args.sequence):
        rows = run(args.binary, args.engine, (bw, ce, step, seq, args.reserve_gib))
        loss, worst = score(rows, args.engine, args.exclude)
        results.append((loss, worst, (bw, ce, step, seq), medians(rows)))
    results.sort()
    print("loss    worst  bandwidth compute step_s   seq_s    | median |error| TTFT, per-token, throughput (all rows)")
    for loss, worst, (bw, ce, step, seq), med in results[: args.top]:
        print(f"{loss:.4f}  {worst:5.2f}  {bw:<9} {ce:<7} {step:<8} {seq:<8} | "
              + ", ".join(f"{100 * m:.1f}%" for m in med))
    return 0


if __name__ == "__main__":
    sys.exit(main())
