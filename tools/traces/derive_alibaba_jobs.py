#!/usr/bin/env python3
"""Derive fleetsim job-arrival traces from the Alibaba GPU cluster trace (openb, 2023).

Input:  alibaba_gpu2023_openb_pod_list_default.csv (alibaba/clusterdata cluster-trace-gpu-v2023)
Output: scenarios/traces/alibaba-gpu-jobs.csv        (the trace)
        scenarios/traces/alibaba-gpu-jobs-small.csv  (its first 40 rows, for tests)

Format (fleetsim job trace): submit_time_s,duration_s,gpus,cpu_millis,memory_mib,name,priority

Run from the repository root:
  python3 tools/traces/derive_alibaba_jobs.py --data ../shared/data --out scenarios/traces

The transformation is described in scenarios/traces/README.md. Standard library only;
deterministic output.
"""

import argparse
import bisect
import csv
import sys
from pathlib import Path

SOURCE_FILE = "alibaba_gpu2023_openb_pod_list_default.csv"
COLUMNS = ["submit_time_s", "duration_s", "gpus", "cpu_millis", "memory_mib", "name", "priority"]

MAX_GPUS = 8                 # largest GPU count per node in fleetsim's catalog
WHOLE_GPU_MILLI = 1000       # gpu_milli of a pod that owns its GPUs (no GPU sharing)
MAX_DURATION_S = 12 * 3600   # clamp: keeps a day-scale scenario from being dominated by
                             # long-running services and by pods still running at trace end
HIGH_PRIORITY_QOS = {"LS", "Guaranteed"}  # latency-sensitive / guaranteed pods
HIGH_PRIORITY, LOW_PRIORITY = 1000, 0

# The trace's first pods are survivors: pods created before collection began, which appear only
# because they were still alive (about one per ten days over the first 114 days). The arrival
# process proper starts where kept pods arrive at least this densely over the next 24 hours.
DENSE_WINDOW_S = 24 * 3600
DENSE_MIN_PODS = 24          # i.e. at least one kept pod per hour on average


def read_pods(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def whole_gpu_pod(row):
    """Whole-GPU pods only: GPU-sharing pods (gpu_milli < 1000) need a sharing model fleetsim
    does not have yet, and CPU-only pods are not what this GPU job trace is for."""
    gpus = int(row["num_gpu"])
    return 1 <= gpus <= MAX_GPUS and int(row["gpu_milli"]) == WHOLE_GPU_MILLI


def run_time(row):
    """Seconds the pod held its resources (deletion - scheduled), or None if it never ran.
    Pods with an empty scheduled_time are Pending pods that were never placed. A
    scheduled_time of 0 is a real value only for a pod also created at 0 (the trace origin)."""
    if row["scheduled_time"] == "":
        return None
    scheduled = int(row["scheduled_time"])
    if scheduled == 0 and int(row["creation_time"]) != 0:
        return None
    duration = int(row["deletion_time"]) - scheduled
    return duration if duration > 0 else None


def kept_pods(rows):
    """(creation_time, row, run time) for pods that belong in the trace, in creation order."""
    kept = []
    for row in rows:
        if not whole_gpu_pod(row):
            continue
        duration = run_time(row)
        if duration is not None:
            kept.append((int(row["creation_time"]), row, duration))
    kept.sort(key=lambda k: (k[0], k[1]["name"]))
    return kept


def dense_start(times):
    """Index of the first pod after which arrivals are dense (see DENSE_MIN_PODS)."""
    for i, t in enumerate(times):
        if bisect.bisect_left(times, t + DENSE_WINDOW_S) - i >= DENSE_MIN_PODS:
            return i
    raise SystemExit("no dense arrival window found; has the input changed?")


def job_row(row, submit, duration):
    return {
        "submit_time_s": submit,
        "duration_s": min(duration, MAX_DURATION_S),
        "gpus": int(row["num_gpu"]),
        "cpu_millis": int(row["cpu_milli"]),
        "memory_mib": int(row["memory_mib"]),
        "name": row["name"],
        "priority": HIGH_PRIORITY if row["qos"] in HIGH_PRIORITY_QOS else LOW_PRIORITY,
    }


def derive_jobs(rows, hours, max_rows):
    kept = kept_pods(rows)
    times = [k[0] for k in kept]
    start = dense_start(times)
    origin = times[start]
    end = origin + hours * 3600
    jobs = [job_row(row, t - origin, d) for t, row, d in kept[start:] if t < end]
    jobs.sort(key=lambda j: (j["submit_time_s"], j["name"]))
    stats = {"whole-gpu pods that ran": len(kept), "skipped survivors": start,
             "origin creation_time": origin, "in window": len(jobs),
             "clamped": sum(1 for t, r, d in kept[start:] if t < end and d > MAX_DURATION_S)}
    return jobs[:max_rows], stats


def check(jobs, small, hours):
    assert jobs, "empty trace"
    assert jobs[0]["submit_time_s"] == 0, "trace must start at 0"
    keys = [(j["submit_time_s"], j["name"]) for j in jobs]
    assert keys == sorted(keys), "rows not sorted"
    assert len({j["name"] for j in jobs}) == len(jobs), "duplicate names"
    for j in jobs:
        assert 0 <= j["submit_time_s"] < hours * 3600, j
        assert 0 < j["duration_s"] <= MAX_DURATION_S, j
        assert 1 <= j["gpus"] <= MAX_GPUS, j
        assert j["cpu_millis"] > 0 and j["memory_mib"] > 0, j
        assert j["priority"] in (HIGH_PRIORITY, LOW_PRIORITY), j
    assert small == jobs[:len(small)]


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([row[c] for c in COLUMNS])


def main(argv):
    repo_root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=repo_root / ".." / "shared" / "data")
    parser.add_argument("--out", type=Path, default=repo_root / "scenarios" / "traces")
    parser.add_argument("--hours", type=int, default=72,
                        help="length of the submit-time window (default 72)")
    parser.add_argument("--max-rows", type=int, default=400)
    parser.add_argument("--small-rows", type=int, default=40)
    args = parser.parse_args(argv)

    jobs, stats = derive_jobs(read_pods(args.data / SOURCE_FILE), args.hours, args.max_rows)
    small = jobs[:args.small_rows]
    check(jobs, small, args.hours)

    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(args.out / "alibaba-gpu-jobs.csv", jobs)
    write_csv(args.out / "alibaba-gpu-jobs-small.csv", small)

    for key, value in stats.items():
        print(f"{key}: {value}")
    gpus = sum(j["gpus"] for j in jobs)
    print(f"rows: {len(jobs)} (small: {len(small)}), GPUs requested: {gpus}, "
          f"high priority: {sum(j['priority'] == HIGH_PRIORITY for j in jobs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
