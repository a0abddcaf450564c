#!/usr/bin/python3
"""Charts of a fleetsim run or sweep, as PNG files (Debian's python3-matplotlib).

    tools/plot/plot.py OUT_DIR [--out PLOT_DIR]

OUT_DIR is a run's output folder (`fleetsim run --out`: timeseries.csv) or a sweep's
(`fleetsim sweep --out`: results.csv). PLOT_DIR defaults to OUT_DIR/plots. A run gives
services.png (request rate, replicas and ready replicas per service), nodes.png (nodes per
NodePool, on-demand and spot), gpus.png (provisioned, allocated, busy), cost.png (cost rate and
cumulative cost) and latency.png (p99 per service and interval); a sweep gives frontier.png (cost
against the SLO metric, the frontier marked) and one chart per parameter of each headline metric.
Exit status 2 names the file that is missing or malformed.
"""

import argparse
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def fail(message):
    print(f"plot.py: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    """The header and the rows of a CSV file, each cell a float or None when empty."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            rows = []
            for line, row in enumerate(reader, start=2):
                if len(row) != len(header):
                    fail(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
                rows.append(row)
    except (OSError, StopIteration) as e:
        fail(f"{path}: cannot read it ({e})")
    return header, rows


def number(cell):
    if cell == "":
        return math.nan  # no sample: a gap in the line
    try:
        return float(cell)
    except ValueError:
        return None


def columns(header, rows, path):
    """Numeric columns by name; a column with a non-number cell is left out."""
    out = {}
    for i, name in enumerate(header):
        values = [number(r[i]) for r in rows]
        if all(v is not None for v in values):
            out[name] = values
    if "t_s" not in out:
        fail(f"{path}: no t_s column; is it a fleetsim timeseries.csv?")
    return out


def save(fig, plot_dir, name, written):
    path = os.path.join(plot_dir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)


def hours(col):
    return [t / 3600.0 for t in col["t_s"]]


def names_with(col, prefix, suffix):
    """The <name> of each column named prefix<name>suffix."""
    return [c[len(prefix):len(c) - len(suffix)] for c in col
            if c.startswith(prefix) and c.endswith(suffix) and len(c) > len(prefix) + len(suffix)]


def plot_services(col, plot_dir, written):
    services = names_with(col, "svc_", "_rps")
    if not services:
        print("plot.py: services.png skipped: the run has no services", file=sys.stderr)
        return
    fig, axes = plt.subplots(len(services), 1, figsize=(10, 3.2 * len(services)), squeeze=False)
    t = hours(col)
    for ax, s in zip(axes[:, 0], services):
        ax.plot(t, col[f"svc_{s}_rps"], color="tab:blue", label="requests/s")
        ax.set_ylabel("requests per second")
        ax.set_title(f"service {s}")
        ax2 = ax.twinx()
        ax2.step(t, col[f"svc_{s}_replicas"], where="post", color="tab:orange", label="replicas")
        ax2.step(t, col[f"svc_{s}_ready"], where="post", color="tab:green", label="ready")
        ax2.set_ylabel("replicas")
        lines = ax.get_lines() + ax2.get_lines()
        ax.legend(lines, [l.get_label() for l in lines], loc="upper left")
    axes[-1, 0].set_xlabel("time (hours)")
    save(fig, plot_dir, "services.png", written)


def plot_nodes(col, plot_dir, written):
    fig, ax = plt.subplots(figsize=(10, 4))
    t = hours(col)
    for pool in names_with(col, "nodes_pool_", ""):
        ax.step(t, col[f"nodes_pool_{pool}"], where="post", label=f"NodePool {pool}")
    ax.step(t, col["nodes_on_demand"], where="post", linestyle="--", label="on-demand")
    ax.step(t, col["nodes_spot"], where="post", linestyle=":", label="spot")
    ax.set(title="Nodes", xlabel="time (hours)", ylabel="nodes")
    ax.legend(loc="upper left")
    save(fig, plot_dir, "nodes.png", written)


def plot_gpus(col, plot_dir, written):
    fig, ax = plt.subplots(figsize=(10, 4))
    t = hours(col)
    for name, label in [("gpus_provisioned", "provisioned"), ("gpus_allocated", "allocated"),
                        ("gpus_busy", "busy")]:
        ax.plot(t, col[name], label=label)
    ax.set(title="GPUs", xlabel="time (hours)", ylabel="GPUs")
    ax.legend(loc="upper left")
    save(fig, plot_dir, "gpus.png", written)


def plot_cost(col, plot_dir, written):
    t = hours(col)
    if "cost_usd_cumulative" in col:
        cumulative = col["cost_usd_cumulative"]
    else:  # an older timeseries.csv: the rate times each interval
        cumulative, total = [], 0.0
        for i, rate in enumerate(col["cost_rate_usd_per_hour"]):
            total += rate * (t[i] - (t[i - 1] if i else 0.0))
            cumulative.append(total)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    top.plot(t, col["cost_rate_usd_per_hour"], label="all")
    for pool in names_with(col, "cost_rate_pool_", "_usd_per_hour"):
        top.plot(t, col[f"cost_rate_pool_{pool}_usd_per_hour"], linestyle="--",
                 label=f"NodePool {pool}")
    top.set(title="Cost rate", ylabel="USD per hour")
    top.legend(loc="upper left")
    bottom.plot(t, cumulative, color="tab:red")
    bottom.set(title="Cumulative cost", xlabel="time (hours)", ylabel="USD")
    save(fig, plot_dir, "cost.png", written)


def plot_latency(col, plot_dir, written):
    services = names_with(col, "svc_", "_p99_ms")
    if not services:
        print("plot.py: latency.png skipped: the run has no services", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(10, 4))
    t = hours(col)
    for s in services:
        ax.plot(t, col[f"svc_{s}_p99_ms"], label=f"{s} p99")  # NaN cells leave gaps
    ax.set(title="Latency, p99 of the requests completed in each interval", xlabel="time (hours)",
           ylabel="milliseconds")
    ax.set_yscale("log")
    ax.legend(loc="upper left")
    save(fig, plot_dir, "latency.png", written)


def plot_run(out_dir, plot_dir):
    path = os.path.join(out_dir, "timeseries.csv")
    header, rows = read_csv(path)
    if not rows:
        fail(f"{path}: no rows")
    col = columns(header, rows, path)
    written = []
    for plot in (plot_services, plot_nodes, plot_gpus, plot_cost, plot_latency):
        plot(col, plot_dir, written)
    return written


def plot_sweep(out_dir, plot_dir):
    path = os.path.join(out_dir, "results.csv")
    header, rows = read_csv(path)
    if not rows:
        fail(f"{path}: no rows")
    metrics = header[header.index("cost.total_usd"):] if "cost.total_usd" in header else []
    if not metrics:
        fail(f"{path}: no cost.total_usd column; is it a fleetsim results.csv?")
    params = header[2:header.index("cost.total_usd")]
    written = []
    # Per point: its parameter values and the mean of each metric over its seeds.
    points = {}
    for r in rows:
        p = points.setdefault(r[0], {"params": r[2:2 + len(params)], "values": {}})
        for m in metrics:
            v = number(r[header.index(m)])
            if v is not None and not math.isnan(v):
                p["values"].setdefault(m, []).append(v)
    mean = {k: {m: sum(v) / len(v) for m, v in p["values"].items()} for k, p in points.items()}
    objective = "sla.miss_ratio" if any("sla.miss_ratio" in m for m in mean.values()) \
        else "pods.pending_seconds.p99"
    xs = [(m["cost.total_usd"], m[objective], k) for k, m in mean.items()
          if "cost.total_usd" in m and objective in m]
    frontier = sorted((c, o, k) for c, o, k in xs
                      if not any(c2 <= c and o2 <= o and (c2, o2) != (c, o) for c2, o2, _ in xs))
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.scatter([c for c, _, _ in xs], [o for _, o, _ in xs], label="points")
    ax.plot([c for c, _, _ in frontier], [o for _, o, _ in frontier], color="tab:red",
            marker="o", label="frontier")
    for c, o, k in xs:
        ax.annotate(k, (c, o), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set(title=f"Cost against {objective} (mean over seeds)", xlabel="cost (USD)",
           ylabel=objective)
    ax.legend()
    save(fig, plot_dir, "frontier.png", written)
    for i, param in enumerate(params):
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        for ax, m in zip(axes, ["cost.total_usd", objective]):
            by_value = {}
            for k, p in points.items():
                if m in mean[k]:
                    by_value.setdefault(p["params"][i], []).append(mean[k][m])
            labels = list(by_value)
            ax.boxplot([by_value[v] for v in labels], labels=labels)
            ax.set(title=f"{m} by {param}", xlabel=param, ylabel=m)
        save(fig, plot_dir, f"param_{param}.png", written)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--out", help="folder for the PNG files (default: OUT_DIR/plots)")
    args = parser.parse_args()
    plot_dir = args.out or os.path.join(args.out_dir, "plots")
    os.makedirs(plot_dir, exist_ok=True)
    if os.path.exists(os.path.join(args.out_dir, "timeseries.csv")):
        written = plot_run(args.out_dir, plot_dir)
    elif os.path.exists(os.path.join(args.out_dir, "results.csv")):
        written = plot_sweep(args.out_dir, plot_dir)
    else:
        fail(f"{args.out_dir}: neither a run's timeseries.csv nor a sweep's results.csv")
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
