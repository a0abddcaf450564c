#!/usr/bin/env python3
"""fleetsim run --metrics-out, checked with the real Prometheus tools (issue 10, item 5).

Runs a bundled scenario with --metrics-out, lints the file with `promtool check metrics` (only
vLLM's own colon names may be flagged, as promtool flags them on a real vLLM endpoint), imports
it with `promtool tsdb create-blocks-from openmetrics`, starts a Prometheus server on localhost
over the blocks and asks it the GPU guides' queries, comparing the answers with the run's own
events and the file's samples.

Usage: check_openmetrics.py FLEETSIM SCENARIO WORK_DIR
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    fleetsim, scenario, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    om = os.path.join(work, "run.om")
    out = os.path.join(work, "out")
    subprocess.run([fleetsim, "run", scenario, "--out", out, "--quiet", "--warnings", "none",
                    "--metrics-out", om], check=True)

    lint = subprocess.run(["promtool", "check", "metrics"], stdin=open(om, "rb"),
                          capture_output=True, text=True)
    problems = [line for line in (lint.stdout + lint.stderr).splitlines()
                if line and not (line.startswith("vllm:") and "should not contain ':'" in line)]
    if problems:
        fail("promtool check metrics: " + "; ".join(problems))

    tsdb = os.path.join(work, "tsdb")
    subprocess.run(["promtool", "tsdb", "create-blocks-from", "openmetrics", om, tsdb],
                   check=True, stdout=subprocess.DEVNULL)

    report = json.load(open(os.path.join(out, "report.json")))
    start = 1704067200 if report["start"] == "2024-01-01T00:00:00Z" else None
    if start is None:
        fail("the scenario must start at the default 2024-01-01T00:00:00Z")

    # A query time with GPU nodes up and no node gone in the 6 minutes before: an imported series
    # has no staleness marker, so a node that just ended would still show for 5 minutes.
    ready, ended = {}, []
    events = [json.loads(line) for line in open(os.path.join(out, "events.jsonl"))]
    t = None
    for candidate in range(3600, int(report["duration_s"]), 60):
        nodes = set()
        for e in events:
            if e["t"] > candidate:
                break
            if e["kind"] == "node_registered":
                nodes.add(e["node"])
            elif e["kind"] == "node_deleting":
                nodes.discard(e["node"])
        recent = [e for e in events if e["kind"] in ("nodeclaim_created", "node_deleting")
                  and candidate - 360 <= e["t"] <= candidate]
        if nodes and not recent:
            t, ready = candidate, nodes
            break
    if t is None:
        fail("no quiet time to query in the run")

    # GPUs provisioned at t, from the run's time series.
    import csv
    with open(os.path.join(out, "timeseries.csv")) as f:
        gpus = {int(float(r["t_s"])): float(r["gpus_provisioned"]) for r in csv.DictReader(f)}
    if t not in gpus:
        fail(f"no time series row at t={t}")

    # The DCGM samples in the file for the alert rule's 30-minute window, and the GPU limit.
    dcgm, limit = {}, None
    for line in open(om):
        if line.startswith('karpenter_nodepool_limit{') and 'resource_type="nvidia.com/gpu"' in line:
            limit = float(line.split()[-2])
        if line.startswith("DCGM_FI_DEV_GPU_UTIL{"):
            labels, value, ts = line.rsplit(" ", 2)
            if start + t - 1800 <= int(ts) <= start + t:  # Prometheus 2: [t - 30m, t]
                pod = labels.split('pod="')[1].split('"')[0]
                dcgm.setdefault(pod, []).append(float(value))
    idle = sorted(p for p, v in dcgm.items() if sum(v) / len(v) < 10)

    port = free_port()
    config = os.path.join(work, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global: {scrape_interval: 1h}\n")
    server = subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tsdb}",
         "--storage.tsdb.retention.time=100y", f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if urllib.request.urlopen(base + "/-/ready").status == 200:
                    break
            except OSError:
                time.sleep(0.2)
        else:
            fail("prometheus did not become ready")

        def query(expr):
            url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr, "time": start + t})
            return json.load(urllib.request.urlopen(url))["data"]["result"]

        gpu_nodes = query('count(karpenter_nodes_allocatable{resource_type="nvidia.com/gpu"} > 0)')
        if not gpu_nodes or int(gpu_nodes[0]["value"][1]) != len(ready):
            fail(f"GPU nodes at t={t}: prometheus {gpu_nodes}, the run {len(ready)}")
        ratio = query('karpenter_nodepool_usage{resource_type="nvidia.com/gpu"} / '
                      'karpenter_nodepool_limit{resource_type="nvidia.com/gpu"}')
        if limit is None or not ratio or abs(float(ratio[0]["value"][1]) - gpus[t] / limit) > 1e-9:
            fail(f"usage / limit at t={t}: prometheus {ratio}, the run {gpus[t]} / {limit}")
        alert = query("avg_over_time(DCGM_FI_DEV_GPU_UTIL[30m]) < 10")
        got = sorted(r["metric"]["pod"] for r in alert)
        if got != idle:
            fail(f"idle-GPU alert at t={t}: prometheus {got}, the file {idle}")
        print(f"ok: t={t} s, {len(ready)} GPU nodes, usage/limit {ratio[0]['value'][1]}, "
              f"{len(idle)} idle GPU pods of {len(dcgm)}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
